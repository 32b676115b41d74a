import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, copyFileSync, mkdtempSync, openSync, writeSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach } from "vitest";
import type { CommandRequest } from "../../src/tools/command-runner.js";
import type { Tool, ToolContext, ToolResult } from "../../src/tools/define-tool.js";
import { KnownFiles } from "../../src/tools/tool-support.js";
import { localCommands, localSecrets } from "../support/commands.js";

/** A fresh temporary folder; remove it with {@link removeTemporaryDirectory}. */
export function makeTemporaryDirectory(): Promise<string> {
  return mkdtemp(join(tmpdir(), "turnloop-tools-"));
}

/** Deletes a folder made by {@link makeTemporaryDirectory}, with everything in it. */
export function removeTemporaryDirectory(directory: string): Promise<void> {
  return rm(directory, { recursive: true, force: true });
}

/**
 * The `knownFile` a `view`, `edit` or `create` of `path` (absolute, no links in it) answers when
 * the file's text is `text`: the SHA-256 of its UTF-16 code units, in hex.
 */
export function knownFile(path: string, text: string): { path: string; sha256: string } {
  return { path, sha256: createHash("sha256").update(text, "utf16le").digest("hex") };
}

/** A tool context rooted at `cwd`, with its session folder inside it unless told otherwise. */
export function makeContext(cwd: string, overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    cwd,
    sessionDirectory: join(cwd, ".session"),
    toolCallId: "call_1",
    signal: new AbortController().signal,
    commands: localCommands(),
    secrets: localSecrets(),
    knownFiles: new KnownFiles(),
    ...overrides,
  };
}

/**
 * A command request in `directory` with only `PATH` in the environment, 60 s to run, no secrets,
 * its output saved to `saved/output.txt` inside `directory` (a folder of the test's own: the
 * runner makes the save folder 0700), unless `overrides` say otherwise.
 */
export function commandRequest(
  directory: string,
  overrides: Partial<CommandRequest> = {},
): CommandRequest {
  return {
    cwd: directory,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    signal: new AbortController().signal,
    timeoutMs: 60_000,
    savePath: join(directory, "saved", "output.txt"),
    secrets: [],
    ...overrides,
  };
}

/** Validates `args` with the tool's schema, as the loop does, then runs the tool. */
export function runTool<Input>(
  tool: Tool<Input>,
  args: Record<string, unknown>,
  context: ToolContext,
): Promise<ToolResult> {
  return tool.execute(tool.input.parse(args), context);
}

/**
 * Gives each test of the file a fresh temporary folder (made before, removed after it); `use`
 * receives the folder's path before each test.
 */
export function useTemporaryDirectory(use: (directory: string) => void): void {
  let current: string | undefined;
  beforeEach(async () => {
    current = await makeTemporaryDirectory();
    use(current);
  });
  afterEach(async () => {
    if (current !== undefined) {
      await removeTemporaryDirectory(current);
    }
  });
}

/**
 * {@link useTemporaryDirectory} for a file that tests one tool: `use` receives each test's folder,
 * and the answer runs `tool` there ({@link runTool} with {@link makeContext}).
 */
export function runsInTemporaryDirectory<Input>(
  tool: Tool<Input>,
  use: (directory: string) => void,
): (args: Record<string, unknown>) => Promise<ToolResult> {
  let current = "";
  useTemporaryDirectory((directory) => {
    current = directory;
    use(directory);
  });
  return (args) => runTool(tool, args, makeContext(current));
}

/**
 * Writes a file of `bytes` at most, of lines `N lorem ipsum` (the log of trial 32's big-file
 * findings), a MiB at a time.
 */
export function writeLoremFile(path: string, bytes: number): void {
  const file = openSync(path, "w");
  try {
    let written = 0;
    for (let number = 1; ; ) {
      let chunk = "";
      while (chunk.length < 1024 * 1024) {
        chunk += `${number} lorem ipsum\n`;
        number += 1;
      }
      if (written + chunk.length > bytes) {
        return;
      }
      writeSync(file, chunk);
      written += chunk.length;
    }
  } finally {
    closeSync(file);
  }
}

/**
 * A file of tens of MiB that several tests of one file start from, written once for the file:
 * call at the file's top level; the answer copies it to the path it is given (a copy is a few tens
 * of ms, where writing 50-60 MiB of lines took seconds of CPU), writing it with `write` first on
 * the first call. Each test gets a copy of its own, so one that changes it changes no other's. The
 * folder holding the original is removed after the file's last test.
 */
export function sharedFixture(write: (path: string) => void): (to: string) => void {
  let original: string | undefined;
  let folder: string | undefined;
  afterAll(async () => {
    if (folder !== undefined) {
      await removeTemporaryDirectory(folder);
    }
  });
  return (to) => {
    if (original === undefined) {
      folder = mkdtempSync(join(tmpdir(), "turnloop-fixture-"));
      original = join(folder, "fixture");
      write(original);
    }
    copyFileSync(original, to);
  };
}

/** What test/tools/file-tool-memory-child.mjs prints. */
export interface MemoryChildOutput {
  /** How far the child's peak resident memory rose during the calls, in KiB. */
  grownKiB: number;
  results: { isError: boolean; content: string; knownFile?: { path: string; sha256: string } }[];
}

/**
 * Runs `tool` with each of `calls` (argument objects) at once in a child process
 * (file-tool-memory-child.mjs, on the built tools in dist/) in `directory`, the model knowing the files of `hashes` (absolute
 * path to text hash): the results and how far the child's memory grew.
 */
export function runInMemoryChild(
  directory: string,
  calls: readonly object[],
  tool: "view" | "edit" = "view",
  hashes: Record<string, string> = {},
): MemoryChildOutput {
  const child = new URL("./file-tool-memory-child.mjs", import.meta.url).pathname;
  const output = execFileSync(
    process.execPath,
    [child, directory, JSON.stringify(calls), tool, JSON.stringify(hashes)],
    { encoding: "utf8", maxBuffer: 1024 * 1024 },
  );
  return JSON.parse(output) as MemoryChildOutput;
}
