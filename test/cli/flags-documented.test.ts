import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { FLAGS } from "../../src/cli/argument-flags.js";
import { runCli } from "../support/cli.js";

// The project's rule: what README says must be true, and every flag `turnloop` accepts is in
// `--help` and in README. `-m`, `-h`, `-v` and `--prompt` were accepted but named nowhere.

/** Flags the Copilot SDK passes to the CLI it starts: accepted, not read, so not in `--help`. */
const COPILOT_SDK_FLAGS = [
  "no-auto-update",
  "no-auto-login",
  "remote",
  "log-level",
  "auth-token-env",
  "session-idle-timeout",
];

const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

/** `--name` and `-x` of every flag, as a user types them. */
const SPELLINGS = Object.entries(FLAGS).map(([name, option]) => ({
  name,
  spellings: [`--${name}`, ...("short" in option ? [`-${option.short}`] : [])],
}));

/** The spellings of `SPELLINGS` that `text` does not name (a word of its own, not a prefix). */
function missing(text: string, names: readonly string[]): string[] {
  return SPELLINGS.filter(({ name }) => names.includes(name))
    .flatMap(({ spellings }) => spellings)
    .filter((spelling) => !new RegExp(`(^|[^\\w-])${spelling}(?![\\w-])`).test(text));
}

test("every flag turnloop reads is in --help, and every flag it accepts is in README", async () => {
  const cwd = mkdtempSync(join(tmpdir(), "turnloop-flags-"));
  const help = await runCli(["--help"], { cwd, env: { ...process.env, TURNLOOP_HOME: cwd } });
  expect(help.code).toBe(0);
  const read = Object.keys(FLAGS).filter((name) => !COPILOT_SDK_FLAGS.includes(name));
  expect({ help: missing(help.stdout, read), readme: missing(README, Object.keys(FLAGS)) }).toEqual(
    { help: [], readme: [] },
  );
});
