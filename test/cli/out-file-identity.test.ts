import { execFileSync } from "node:child_process";
import { chown, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { cleanEnvironment, runCli } from "../support/cli.js";
import { homeWithLog } from "./session-view-page.js";

// Session 41 left it: `--out` (sessions export, sessions view) renamed a temporary file over its
// target, so an existing file became root's (or the user's) with mode 0600, whoever owned it and
// whatever its mode. It now writes as the file tools do (tools/file-writing.ts): the file keeps
// its owner, group and mode. Root gives a file to `nobody`, as CI runs (said and skipped else).

const IS_ROOT = process.getuid?.() === 0;
const GOLDEN = new URL("../golden/failed-command-events.jsonl", import.meta.url);
const SESSION_ID = "f01d5e55-0000-4000-8000-000000000021";
const idOf = (flag: "-u" | "-g", user: string) =>
  Number(execFileSync("id", [flag, user], { encoding: "utf8" }).trim());

let home = "";
beforeEach(async () => {
  home = await homeWithLog(SESSION_ID, await readFile(GOLDEN));
});
afterEach(() => rm(home, { recursive: true, force: true }));

describe.runIf(IS_ROOT)("--out over a file another user owns (root; CI runs as root)", () => {
  test("sessions export --out: the file keeps its owner, group and mode; the export is in it", async () => {
    const out = join(home, "export.md");
    await writeFile(out, "old\n", { mode: 0o644 });
    const owner = { uid: idOf("-u", "nobody"), gid: idOf("-g", "nobody") };
    await chown(out, owner.uid, owner.gid);
    const result = await runCli(
      ["sessions", "export", SESSION_ID, "--format", "markdown", "--out", out],
      { cwd: home, env: cleanEnvironment({ TURNLOOP_HOME: home }) },
    );
    expect(result.code, result.stderr).toBe(0);
    const after = await stat(out);
    expect({ uid: after.uid, gid: after.gid, mode: after.mode & 0o7777 }).toEqual({
      ...owner,
      mode: 0o644,
    });
    expect(await readFile(out, "utf8")).toMatch(/^# /);
  });
});

test("sessions export --out to a new file: readable by the user alone (0600), as before", async () => {
  const out = join(home, "new.jsonl");
  const result = await runCli(
    ["sessions", "export", SESSION_ID, "--format", "jsonl", "--out", out],
    {
      cwd: home,
      env: cleanEnvironment({ TURNLOOP_HOME: home }),
    },
  );
  expect(result.code, result.stderr).toBe(0);
  expect((await stat(out)).mode & 0o777).toBe(0o600);
  expect(await readFile(out, "utf8")).toContain(SESSION_ID);
});
