import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs, { closeSync, constants, openSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { writeRequestFields } from "../../src/server/write-request.js";

/*
 * The SDK server's `write` permission request shows the diff of a `create` against the file as
 * it is (server/write-request.ts). The file, a repository's, was judged by a `stat` and then read
 * with `readFileSync`: one swapped for a FIFO between the two blocked the server's main thread
 * (every session's) until something wrote to it. The swap is made at the moment of the check, by
 * Node's own `stat` and `lstat` (counted, not mocked: each calls the real one first); a writer
 * process feeds the FIFO, so that a read of it ends and shows what it read.
 */

let folder: string;
let writer: ChildProcess | undefined;
/** Node's `fs` module object, whose functions a test may replace (then `syncBuiltinESMExports`). */
const nodeFs = fs as { -readonly [Name in "statSync" | "lstatSync"]: (typeof fs)[Name] };
const statSync = fs.statSync;
const lstatSync = fs.lstatSync;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), "turnloop-write-request-"));
});

afterEach(async () => {
  nodeFs.statSync = statSync;
  nodeFs.lstatSync = lstatSync;
  syncBuiltinESMExports();
  writer?.kill("SIGKILL");
  writer = undefined;
  await rm(folder, { recursive: true, force: true });
});

/** Makes the first `stat` or `lstat` of `path` swap it for a FIFO, once it has judged the file. */
function swapForFifoAtCheck(path: string): void {
  let swapped = false;
  const swapAfter =
    <Check extends (...args: never[]) => unknown>(check: Check) =>
    (...args: Parameters<Check>): ReturnType<Check> => {
      const result = check(...args) as ReturnType<Check>;
      if (!swapped && args[0] === (path as never)) {
        swapped = true;
        fs.rmSync(path);
        execFileSync("mkfifo", [path]);
        writer = spawn("sh", ["-c", 'printf "SWAPPED\\n" > "$1"', "sh", path], { stdio: "ignore" });
      }
      return result;
    };
  nodeFs.statSync = swapAfter(statSync) as typeof fs.statSync;
  nodeFs.lstatSync = swapAfter(lstatSync) as typeof fs.lstatSync;
  syncBuiltinESMExports();
}

test("a file swapped for a FIFO after its check is not read: the diff is of a new file", async () => {
  const path = join(folder, "notes.txt");
  await writeFile(path, "old\n");
  swapForFifoAtCheck(path);
  const fields = writeRequestFields("create", { path, file_text: "new\n" }, path);
  // The FIFO is there, unread: its writer still waits for a reader (or found one gone).
  expect(fs.lstatSync(path).isFIFO()).toBe(true);
  expect(fields).toEqual({
    diff: `--- /dev/null\n+++ ${path}\n@@ -0,0 +1,1 @@\n+new\n`,
    newFileContents: "new\n",
  });
  closeSync(openSync(path, constants.O_RDWR | constants.O_NONBLOCK));
});
