import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { loadConfig } from "../../src/session/config.js";
import { readServersFile } from "../../src/tools/mcp/config.js";

// A config file saved as UTF-16 (Windows PowerShell 5's `>` and `Out-File` write UTF-16LE with a
// byte order mark) was refused as "not valid JSON: line 1, column 1: Unexpected character", which
// says nothing of why (round 3, session 43, N7). It is named and said to be UTF-16, not UTF-8.

const JSON_TEXT = '{"model":"openai:gpt-5","mcpServers":{}}';
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(
    folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })),
  );
});

/** `text` as UTF-16 big-endian bytes. */
function utf16be(text: string): Buffer {
  return Buffer.from(text, "utf16le").swap16();
}

test("a UTF-16 config file is refused naming it and the encoding; UTF-8 ones are read", async () => {
  const home = await mkdtemp(join(tmpdir(), "turnloop-utf16-"));
  folders.push(home);
  const user = join(home, "config.json");
  const named = join(home, "servers.json");
  const seen: unknown[] = [];
  for (const bytes of [
    Buffer.from(`\uFEFF${JSON_TEXT}`, "utf16le"),
    utf16be(`\uFEFF${JSON_TEXT}`),
    Buffer.from(JSON_TEXT, "utf16le"),
    Buffer.from(JSON_TEXT, "utf8"),
  ]) {
    await writeFile(user, bytes);
    await writeFile(named, bytes);
    let config: unknown;
    try {
      config = loadConfig(home, home, { userOnly: true }).files.map((file) => file.settings.model);
    } catch (error) {
      config = (error as Error).message;
    }
    seen.push([config, (await readServersFile(named, { named: true })).problems]);
  }
  const refused = [
    `${user} is UTF-16 text: a config file must be UTF-8 (save it as UTF-8)`,
    [`${named} is UTF-16 text: a config file must be UTF-8 (save it as UTF-8)`],
  ];
  expect(seen).toEqual([refused, refused, refused, [["openai:gpt-5"], []]]);
});
