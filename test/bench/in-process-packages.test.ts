import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
// @ts-expect-error: a benchmark module in JavaScript, without type declarations.
import { distWithBundledPackages } from "../../bench/in-process/bundled-packages.mjs";

// Issue 26, figure 3b, round 3 session 45 (bench/notes/turn45.md): the in-process benchmarks ran
// turnloop's `dist/` with the packages as the bundle runs them through module hooks, which Node 20
// runs on a thread of their own; every module loaded after them (those a session's first tool call
// imports) waited for that thread, so each benchmark process's first tool turn read 40–47 ms and
// was figure 3b's p99. They now load from an overlay written once per content
// (bench/in-process/bundled-packages.mjs): the same changed packages, no thread.

const REPOSITORY = fileURLToPath(new URL("../..", import.meta.url));
const DIST = join(REPOSITORY, "dist");

/**
 * Loaded with `--import` into the benchmark's process: its threads at start (once a file system
 * call has started libuv's thread pool) and at exit.
 */
const THREAD_COUNT = `data:text/javascript,${encodeURIComponent(`
  import { readdirSync } from "node:fs";
  import { stat } from "node:fs/promises";
  await stat("/");
  const atStart = readdirSync("/proc/self/task").length;
  process.on("exit", () => {
    process.stderr.write("threads added: " + (readdirSync("/proc/self/task").length - atStart) + "\\n");
  });
`)}`;

let temporary: string;

beforeAll(async () => {
  temporary = await mkdtemp(join(tmpdir(), "in-process-packages-"));
});

afterAll(async () => {
  await rm(temporary, { recursive: true, force: true });
});

/** The first line of a package's ES entry in the overlay. */
async function entryHead(overlay: string, name: string): Promise<string | undefined> {
  const text = await readFile(join(overlay, "node_modules", name, "dist", "index.mjs"), "utf8");
  return text.split("\n")[0];
}

describe("the in-process benchmarks' packages", () => {
  test("load the bundle's changed packages from an overlay written once, with no thread added", async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [
        "--import",
        THREAD_COUNT,
        join(REPOSITORY, "bench", "in-process.mjs"),
        "rss-breakdown",
        JSON.stringify({ dist: DIST }),
      ],
      { env: { ...process.env, TMPDIR: temporary } },
    );
    const steps = (JSON.parse(stdout) as { steps: Array<{ step: string }> }).steps;
    expect(steps.map((step) => step.step)).toEqual([
      "node + this script",
      "+ cli/arguments.js",
      "+ cli/prompt-command.js (session, loop, tools, zod)",
      "+ @ai-sdk/openai-compatible",
    ]);
    expect(stderr).toBe("threads added: 0\n");

    const folders = await readdir(temporary);
    expect(folders).toEqual([expect.stringMatching(/^turnloop-bench-packages-[0-9a-f]{20}$/)]);
    const overlay = join(temporary, folders[0] ?? "");
    const providerHead =
      'import { ValueTransform as TransformStream } from "../../../../dist/llm/value-transform.js";';
    expect({
      "@ai-sdk/provider-utils": await entryHead(overlay, "@ai-sdk/provider-utils"),
      "@ai-sdk/openai-compatible": await entryHead(overlay, "@ai-sdk/openai-compatible"),
      "@ai-sdk/openai": await entryHead(overlay, "@ai-sdk/openai"),
      "@ai-sdk/anthropic": await entryHead(overlay, "@ai-sdk/anthropic"),
    }).toEqual({
      "@ai-sdk/provider-utils":
        'import { HeaderList as Headers } from "../../../../dist/llm/http-headers.js";',
      "@ai-sdk/openai-compatible": providerHead,
      "@ai-sdk/openai": providerHead,
      "@ai-sdk/anthropic": providerHead,
    });
    // Every other package is the repository's own, so the overlay's dist/ and the changed
    // packages share one instance of it.
    expect(await realpath(join(overlay, "node_modules", "zod"))).toBe(
      await realpath(join(REPOSITORY, "node_modules", "zod")),
    );

    // The same build finds the overlay it wrote and writes no other.
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = temporary;
    try {
      expect(await distWithBundledPackages(DIST)).toBe(join(overlay, "dist"));
    } finally {
      if (previous === undefined) {
        delete process.env.TMPDIR;
      } else {
        process.env.TMPDIR = previous;
      }
    }
    expect(await readdir(temporary)).toEqual(folders);
  });
});
