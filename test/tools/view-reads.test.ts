import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { chmod, mkdir, symlink, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { viewTool } from "../../src/tools/view.js";
import { threadPoolRequests } from "../support/thread-pool.js";
import { knownFile, runsInTemporaryDirectory } from "./tool-context.js";

// Issue 26, round 3 session 24: `view` reads a small file on the calling thread after its `stat`
// (src/tools/view.ts, `readSmallFile`), where `readFile` made four thread-pool round trips and
// the knownFile's `realpath` a fifth; since session 40 the `stat` is made there too
// (tool-support.ts `statIfExists`, on the calling thread for every file tool since session 41).
// The answers are the same for every kind of path.

let directory = "";
const view = runsInTemporaryDirectory(viewTool, (path) => {
  directory = path;
});

/** Numbered lines as `view` shows them. */
function numbered(lines: readonly string[]): string {
  return lines.map((line, index) => `${index + 1}. ${line}`).join("\n");
}

describe("view reads", () => {
  it("a small file with no thread-pool request (its stat was one, seven before that)", async () => {
    await writeFile(join(directory, "notes.md"), "# Notes\n\nOne line.\n");
    let result: Awaited<ReturnType<typeof view>> | undefined;
    const requests = await threadPoolRequests(async () => {
      result = await view({ path: "notes.md" });
    });
    expect(result).toEqual({
      content: "1. # Notes\n2.\n3. One line.",
      isError: false,
      knownFile: knownFile(join(directory, "notes.md"), "# Notes\n\nOne line.\n"),
    });
    expect(requests).toBe(0);
  });

  it("a file over 256 KiB through the thread pool, whole", async () => {
    const lines = Array.from({ length: 30_000 }, (_, index) => `line ${index + 1} of the file`);
    const text = `${lines.join("\n")}\n`;
    expect(text.length).toBeGreaterThan(256 * 1024);
    await writeFile(join(directory, "large.txt"), text);
    const result = await view({ path: "large.txt", view_range: [29_999, -1] });
    expect(result).toEqual({
      content: numbered(lines).split("\n").slice(29_998).join("\n"),
      isError: false,
      knownFile: knownFile(join(directory, "large.txt"), text),
    });
  });

  it("a file of exactly 256 KiB and one byte more alike", async () => {
    for (const size of [256 * 1024, 256 * 1024 + 1]) {
      const text = "x".repeat(size - 1).concat("\n");
      await writeFile(join(directory, `${size}.txt`), text);
      const result = await view({ path: `${size}.txt` });
      expect(result.knownFile).toEqual(knownFile(join(directory, `${size}.txt`), text));
      expect(result.content).toContain(`[… line cut, ${size - 1 - 2_000} more characters]`);
    }
  });

  it("a link to a file, or through a linked folder, as its target, known by the target's path", async () => {
    await mkdir(join(directory, "real"));
    await writeFile(join(directory, "real", "target.txt"), "target text\n");
    await symlink(join(directory, "real", "target.txt"), join(directory, "link.txt"));
    await symlink(join(directory, "real"), join(directory, "linked"));
    const expected = {
      content: "1. target text",
      isError: false,
      knownFile: knownFile(join(directory, "real", "target.txt"), "target text\n"),
    };
    expect(await view({ path: "link.txt" })).toEqual(expected);
    expect(await view({ path: "linked/target.txt" })).toEqual(expected);
  });

  it("a dangling link as a missing path, a link loop as a failure saying so", async () => {
    await symlink(join(directory, "nowhere.txt"), join(directory, "dangling.txt"));
    expect(await view({ path: "dangling.txt" })).toEqual({
      content: "Path dangling.txt does not exist. Please provide a valid path.",
      isError: true,
    });
    await symlink(join(directory, "loop-b"), join(directory, "loop-a"));
    await symlink(join(directory, "loop-a"), join(directory, "loop-b"));
    const loop = await view({ path: "loop-a" });
    expect(loop.isError).toBe(true);
    expect(loop.content).toMatch(/^view failed: ELOOP: too many symbolic links encountered/);
  });

  it("an empty file as empty, and a file of /proc that says it is empty by its text", async () => {
    await writeFile(join(directory, "empty.txt"), "");
    expect(await view({ path: "empty.txt" })).toEqual({
      content: "(empty file)",
      isError: false,
      knownFile: knownFile(join(directory, "empty.txt"), ""),
    });
    const status = await view({ path: "/proc/self/status" });
    expect(status.isError).toBe(false);
    expect(status.content).toMatch(/^1\. Name:\t/);
  });

  it("a file over 50 MiB refused by its size, unread", async () => {
    await writeFile(join(directory, "sparse.bin"), "");
    await truncate(join(directory, "sparse.bin"), 50 * 1024 * 1024 + 1);
    const result = await view({ path: "sparse.bin" });
    expect(result).toEqual({
      content:
        "File is too large to view whole (52428801 bytes; the limit is 52428800 bytes). Use view_range [start, end] to read up to 2000 of its lines, grep to find lines, or bash (e.g. sed -n '100,200p') to print a part.",
      isError: true,
    });
  });

  // Root reads any file, so as root the view runs in a child process as the user `nobody`
  // (uid 65534), through the built tool (dist/tools/view.js): the case never skips.
  it("a file it may not read: the file system's refusal in words", async () => {
    const path = join(directory, "secret.txt");
    await writeFile(path, "hidden\n");
    await chmod(path, 0o000);
    const expected = {
      // The file tools' words for a file-system refusal (trial 43's second developer, F4).
      content: "secret.txt: permission denied (by the file system); nothing was read.",
      isError: true,
    };
    if (process.getuid?.() === 0) {
      await chmod(directory, 0o755);
      expect(viewAsNobody(directory, "secret.txt")).toEqual(expected);
    } else {
      expect(await view({ path: "secret.txt" })).toEqual(expected);
    }
    await chmod(path, 0o600);
    expect(readFileSync(path, "utf8")).toBe("hidden\n");
  });
});

/** `view` of `path` in `cwd` by the built tool in a child process running as `nobody`. */
function viewAsNobody(cwd: string, path: string): unknown {
  const tools = new URL("../../dist/tools/", import.meta.url);
  const script = `
    const { viewTool } = await import(${JSON.stringify(new URL("view.js", tools).href)});
    const { KnownFiles } = await import(${JSON.stringify(new URL("tool-support.js", tools).href)});
    const context = {
      cwd: process.argv[1],
      sessionDirectory: process.argv[1] + "/.session",
      toolCallId: "call_1",
      signal: new AbortController().signal,
      knownFiles: new KnownFiles(),
    };
    const result = await viewTool.execute({ path: process.argv[2] }, context);
    process.stdout.write(JSON.stringify(result));
  `;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script, cwd, path], {
    uid: 65534,
    gid: 65534,
    encoding: "utf8",
  });
  expect(child.stderr).toBe("");
  return JSON.parse(child.stdout);
}
