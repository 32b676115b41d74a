// The tool context of the tool children run with plain `node` on the built tools (dist/, which
// `npm test` and CI build first): file-write-child.mjs and file-tool-memory-child.mjs. No
// TypeScript loader, whose start-up took about 0.9 s of CPU a child (bench/notes/suite41.md).
// Built as test/tools/tool-context.ts `makeContext` builds the in-process one, with
// test/support/commands.ts `localCommands` and `localSecrets`.
import { join } from "node:path";
import { secretValues } from "../../dist/events/secrets.js";
import { commandEnvironment } from "../../dist/session/command-environment.js";
import { ProcessRunner } from "../../dist/tools/process-runner.js";

/**
 * A tool context rooted at `cwd` (a path), its session folder `cwd/.session`, the commands and
 * secrets of this process's environment, and `knownFiles` (`{ hashOf(path) }`: the hashes of the
 * files the model has read) as the session's record of what the model knows.
 */
export function childToolContext(cwd, knownFiles) {
  return {
    cwd,
    sessionDirectory: join(cwd, ".session"),
    toolCallId: "call_1",
    signal: new AbortController().signal,
    commands: { runner: new ProcessRunner(), env: commandEnvironment(process.env, []) },
    secrets: secretValues(process.env),
    knownFiles,
  };
}
