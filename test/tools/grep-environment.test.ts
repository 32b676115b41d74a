import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { grepTool } from "../../src/tools/grep.js";
import {
  makeContext,
  makeTemporaryDirectory,
  removeTemporaryDirectory,
  runTool,
} from "./tool-context.js";

// Trial 34, HIGH 3: ripgrep ran with turnloop's whole environment, so a pattern over its own
// `/proc/self/environ` answered yes or no for each guessed character of an API key. The grep
// tool's ripgrep now gets the commands' environment (session/command-environment.ts), which has no
// secret-named variable. This calls the tool itself (the gate's hidden places, which refuse
// `/proc/self` before the tool runs, are not in the way), with a real ripgrep.

const NAME = "TURNLOOP_TRIAL_API_TOKEN";
let directory: string;

beforeEach(async () => {
  directory = await makeTemporaryDirectory();
  process.env[NAME] = "tok-CCCC3333";
});

afterEach(async () => {
  delete process.env[NAME];
  await removeTemporaryDirectory(directory);
});

describe("grep's ripgrep", () => {
  it("has no secret-named variable of turnloop's in its environment", async () => {
    // Made after the variable is set: the commands' environment as a host computes it.
    const context = makeContext(directory);
    const guess = (text: string) =>
      runTool(
        grepTool,
        { pattern: `${NAME}=${text}`, path: "/proc/self/environ", output_mode: "count" },
        context,
      );
    expect(await guess("tok-C")).toEqual({ content: "No matches found.", isError: false });
    // The search itself works: a variable that is not secret is there.
    const path = await runTool(
      grepTool,
      { pattern: "PATH=/", path: "/proc/self/environ", output_mode: "count" },
      context,
    );
    expect(path.content).toMatch(/^\/proc\/self\/environ:[1-9]\d*$/);
  });
});
