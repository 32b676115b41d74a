import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { BIN_PATH } from "../support/cli.js";
import { fixtureForFile } from "./support.js";

/**
 * The README's Copilot SDK example runs as written, with its CLI path pointed at this build, on
 * the Anthropic model its comment names: the SDK asks for a non-streaming reply (issue 27 item 5).
 */

const REPOSITORY = fileURLToPath(new URL("../..", import.meta.url));
const fixture = fixtureForFile();

test("the README's cliPath example prints the model's answer", async () => {
  const readme = await readFile(new URL("../../README.md", import.meta.url), "utf8");
  const match = /<!-- copilot-sdk-example -->\n```js\n([\s\S]*?)```/.exec(readme);
  expect(match, "README.md has the marked example").not.toBeNull();
  const code = (match?.[1] ?? "").replace("/path/to/turnloop/dist/cli/turnloop.cjs", BIN_PATH);
  fixture.model.enqueue({ text: "Hello from the example." });
  const child = spawn(process.execPath, ["--input-type=module", "-e", code], {
    cwd: REPOSITORY,
    env: {
      ...process.env,
      ...fixture.env,
      TURNLOOP_MODEL: "anthropic:claude-sonnet-4-5",
      ANTHROPIC_API_KEY: "test-key",
    },
  });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
  });
  const exitCode = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  expect({ exitCode, stdout }).toEqual({ exitCode: 0, stdout: "Hello from the example.\n" });
  const request = fixture.model.requests.at(-1);
  const body = request?.body as { model?: string; stream?: boolean };
  expect([request?.wire, request?.path, body.model, body.stream ?? false]).toEqual([
    "anthropic",
    "/v1/messages",
    "claude-sonnet-4-5",
    false,
  ]);
});
