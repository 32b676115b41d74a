import { existsSync } from "node:fs";
import { mkdir, stat, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { MAX_SESSION_SAVED_BYTES } from "../../src/tools/command-output.js";
import type { CommandRequest } from "../../src/tools/command-runner.js";
import { ProcessRunner } from "../../src/tools/process-runner.js";
import { commandRequest, useTemporaryDirectory } from "./tool-context.js";

// Trial 27, finding 10a: each call's saved output was capped at 64 MiB but a session's were not
// (three `yes` calls left 193 MB in tool-outputs/). All the session's saved outputs together are
// capped: a call past the cap saves what fits, then none is saved, each result saying so.

let directory: string;
useTemporaryDirectory((path) => {
  directory = path;
});

/** 200,000 bytes of `y`: past the 30,000 characters shown, so the output is saved. */
const LONG_OUTPUT = "head -c 200000 /dev/zero | tr '\\0' y";

/** The session's `tool-outputs/` holding `bytes` already (a sparse file: no disk used). */
async function outputsHolding(bytes: number): Promise<string> {
  const folder = join(directory, "tool-outputs");
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, "call_old.txt"), "");
  await truncate(join(folder, "call_old.txt"), bytes);
  return folder;
}

function request(savePath: string): CommandRequest {
  return commandRequest(directory, { savePath });
}

/** The line between the head and the tail of a result cut for length. */
function markerOf(output: string): string | undefined {
  return output.split("\n").find((line) => line.startsWith("[… "));
}

it("saves only what fits under the session's cap, and says the cap", async () => {
  const folder = await outputsHolding(MAX_SESSION_SAVED_BYTES - 1000);
  const savePath = join(folder, "call_new.txt");
  const result = await new ProcessRunner().run(LONG_OUTPUT, request(savePath));
  expect(markerOf(result.output)).toBe(
    `[… part of 1 line (170000 bytes) omitted; the first 1000 bytes of the output saved to ${savePath} (this session's saved outputs are capped at 256 MiB)]`,
  );
  expect((await stat(savePath)).size).toBe(1000);
});

it("saves nothing once the cap is reached, and says why", async () => {
  const folder = await outputsHolding(MAX_SESSION_SAVED_BYTES);
  const savePath = join(folder, "call_new.txt");
  const result = await new ProcessRunner().run(LONG_OUTPUT, request(savePath));
  expect(markerOf(result.output)).toBe(
    "[… part of 1 line (170000 bytes) omitted; the full output was not saved: this session's saved outputs are capped at 256 MiB, and that is reached]",
  );
  expect(existsSync(savePath)).toBe(false);
});
