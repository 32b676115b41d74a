import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { withAttachments } from "../../src/server/prompt-text.js";

/*
 * An SDK prompt's attached file is read to count its lines (server/prompt-text.ts), up to 64 MiB.
 * It was read on the server's one thread: a big file held up every other session the server
 * serves until the read ended. Now the thread pool reads it: the event loop goes on turning
 * meanwhile, which a chain of `setImmediate` callbacks (another session's work) shows, counted,
 * never timed. The bound and the words are as before.
 */

/** The most of an attached file read (prompt-text.ts `ATTACHED_FILE_MAX_BYTES`). */
const MAX_BYTES = 64 * 1024 * 1024;

let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), "turnloop-attachment-read-"));
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** A file of `size` bytes ending in `tail` (the rest a hole, which reads as zero bytes). */
async function fileOf(name: string, size: number, tail: string): Promise<string> {
  const path = join(folder, name);
  const handle = await open(path, "w");
  await handle.truncate(size);
  await handle.write(tail, size - Buffer.byteLength(tail));
  await handle.close();
  return path;
}

/** The model's text for `prompt` with one file attachment of `path`. */
async function promptWithFile(path: string): Promise<string> {
  const attachment = { type: "file" as const, path, displayName: "attached" };
  const composed = await withAttachments("Look.", [attachment], {
    cwd: folder,
    sessionDirectory: join(folder, "session"),
  });
  return composed.text;
}

test("a 64 MiB attachment is read while the event loop goes on turning; its lines are counted", async () => {
  const path = await fileOf("big.txt", MAX_BYTES, "\nsecond line\nthird line");
  let reading = true;
  let turns = 0;
  const turn = (): void => {
    if (reading) {
      turns += 1;
      setImmediate(turn);
    }
  };
  setImmediate(turn);
  const text = await promptWithFile(path).finally(() => {
    reading = false;
  });
  expect(text).toBe(`Look.\n\n\n\n<tagged_files>\n* ${path} (3 lines)\n</tagged_files>`);
  // Read on the server's thread, the whole read was over before any other callback ran.
  expect(turns).toBeGreaterThan(0);
});

test("one byte over 64 MiB, a FIFO, a folder and a missing file are unreadable, at once", async () => {
  const over = await fileOf("over.txt", MAX_BYTES + 1, "x\n");
  const fifo = join(folder, "pipe");
  execFileSync("mkfifo", [fifo]);
  const inner = join(folder, "inner");
  await mkdir(inner);
  const missing = join(folder, "missing.txt");
  for (const path of [over, fifo, inner, missing]) {
    expect(await promptWithFile(path)).toBe(
      `Look.\n\n\n\n<tagged_files>\n* ${path} (unreadable)\n</tagged_files>`,
    );
  }
});

test("lines are counted as before: an empty file, a last line with and without its newline", async () => {
  const cases: Array<[string, string]> = [
    ["", "0 lines"],
    ["\n", "1 lines"],
    ["one", "1 lines"],
    ["one\ntwo\n", "2 lines"],
    ["one\n\ntwo", "3 lines"],
    ["é\nü\n", "2 lines"],
  ];
  for (const [index, [content, note]] of cases.entries()) {
    const path = join(folder, `case-${index}.txt`);
    await writeFile(path, content);
    expect(await promptWithFile(path)).toBe(
      `Look.\n\n\n\n<tagged_files>\n* ${path} (${note})\n</tagged_files>`,
    );
  }
});
