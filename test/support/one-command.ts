import { type CliResult, cleanEnvironment, runCli } from "./cli.js";
import { chatMessages } from "./fake-model-server.js";
import type { FakeModelServer } from "./fake-model-types.js";

/** Where and how {@link oneCommandThroughCli} runs `turnloop -p`. */
export interface OneCommandOptions {
  /** The work folder (`-p`'s cwd). */
  cwd: string;
  /** `TURNLOOP_HOME`. */
  home: string;
  /** Flags after `-p <prompt>`, e.g. `["--sandbox", "workspace-write", "--yolo"]`. */
  flags: readonly string[];
  /** The prompt; only the model sees it. */
  prompt?: string;
  /** More environment for turnloop, e.g. `XDG_CONFIG_HOME`. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Has the fake model `server` ask for one `bash` call of `command`, then answer "Done.", through
 * a real `turnloop -p` child: what the user saw (exit, stdout, stderr) and `toolResult`, the tool
 * message the model got back in its second request.
 */
export async function oneCommandThroughCli(
  server: FakeModelServer,
  command: string,
  options: OneCommandOptions,
): Promise<CliResult & { toolResult: string }> {
  server.enqueue(
    { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
    { text: "Done." },
  );
  const result = await runCli(["-p", options.prompt ?? "run it", ...options.flags], {
    cwd: options.cwd,
    env: cleanEnvironment({
      TURNLOOP_HOME: options.home,
      TURNLOOP_MODEL: "openai-compatible:fake-model",
      TURNLOOP_BASE_URL: `${server.url}/v1`,
      ...options.env,
    }),
  });
  const toolMessage = chatMessages(server, -1).find((message) => message.role === "tool");
  return { ...result, toolResult: String(toolMessage?.content) };
}

/**
 * {@link oneCommandThroughCli} for several commands in one `turnloop -p` child (a test not about
 * start-up needs no process per command): the fake model asks for one `bash` call of each, all
 * in one reply, then answers "Done.". Each command's tool message, in the order given.
 */
export async function commandsThroughCli(
  server: FakeModelServer,
  commands: readonly string[],
  options: OneCommandOptions,
): Promise<string[]> {
  const toolCalls = commands.map((command, index) => ({
    id: `call_${index}`,
    name: "bash",
    arguments: JSON.stringify({ command }),
  }));
  server.enqueue({ toolCalls }, { text: "Done." });
  const result = await runCli(["-p", options.prompt ?? "run them", ...options.flags], {
    cwd: options.cwd,
    env: cleanEnvironment({
      TURNLOOP_HOME: options.home,
      TURNLOOP_MODEL: "openai-compatible:fake-model",
      TURNLOOP_BASE_URL: `${server.url}/v1`,
      ...options.env,
    }),
  });
  if (result.code !== 0) {
    throw new Error(`turnloop -p exited ${result.code}: ${result.stderr}`);
  }
  const messages = chatMessages(server, -1);
  return toolCalls.map(({ id }) =>
    String(messages.find((message) => message.tool_call_id === id)?.content),
  );
}

/**
 * The commands of several tests run by one `turnloop -p` child ({@link commandsThroughCli}, with
 * the `server` and `options` these give once the file's set-up has made them): each test adds its
 * commands where it is declared (`add`, a function of what the set-up made) and awaits their tool
 * messages, in the order given. `run` (a `beforeAll`, with the time all the commands may take),
 * or else the first test to ask, runs every command added, in the order added (`bash` calls,
 * which may change files, run one after another: src/agent/tool-calls.ts); the tests take their
 * part of that run. A test not about start-up needs no process of its own.
 */
export function sharedCommandsRun(
  server: () => FakeModelServer,
  options: () => OneCommandOptions,
): {
  add: (commands: () => readonly string[]) => () => Promise<string[]>;
  run: () => Promise<void>;
} {
  const groups: Array<() => readonly string[]> = [];
  let run: Promise<string[][]> | undefined;
  const runAll = async (): Promise<string[][]> => {
    const lists = groups.map((group) => group());
    const results = await commandsThroughCli(server(), lists.flat(), options());
    let start = 0;
    return lists.map((list) => {
      start += list.length;
      return results.slice(start - list.length, start);
    });
  };
  return {
    add(commands) {
      const index = groups.push(commands) - 1;
      return async () => {
        run ??= runAll();
        return (await run)[index] ?? [];
      };
    },
    async run() {
      run ??= runAll();
      await run;
    },
  };
}

/**
 * Has the fake model `model` ask for one `bash` call of `command` through the fixture's `cli`
 * (`turnloop -p … flags`), then answer "Done.": the tool message the model got back.
 * @throws when `-p` does not exit 0 (its stderr in the message).
 */
export async function bashResultThroughCli(
  fixtures: {
    cli: (args: readonly string[]) => Promise<CliResult>;
    model: FakeModelServer;
  },
  command: string,
  flags: readonly string[],
): Promise<string> {
  fixtures.model.enqueue(
    { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
    { text: "Done." },
  );
  const result = await fixtures.cli(["-p", "run it", ...flags]);
  if (result.code !== 0) {
    throw new Error(`turnloop -p exited ${result.code}: ${result.stderr}`);
  }
  const toolMessage = chatMessages(fixtures.model, -1).find((message) => message.role === "tool");
  return String(toolMessage?.content);
}

/** One call the model makes: its tool and arguments. */
export type ToolCallSpec = [name: string, input: Record<string, unknown>];

/**
 * Has the fake model make `calls` in one reply through the fixture's `cli` (`turnloop -p "look
 * around" …flags`), then answer "Done.": each call's result (the tool message the model got back),
 * in call order, and what `-p` wrote to stdout and stderr.
 * @throws when `-p` does not exit 0 (its stderr in the message).
 */
export async function toolResultsThroughCli(
  fixtures: {
    cli: (args: readonly string[]) => Promise<CliResult>;
    model: FakeModelServer;
  },
  calls: readonly ToolCallSpec[],
  flags: readonly string[] = [],
): Promise<{ results: string[]; stdout: string; stderr: string }> {
  fixtures.model.enqueue(
    {
      toolCalls: calls.map(([name, input], index) => ({
        id: `call_${index}`,
        name,
        arguments: JSON.stringify(input),
      })),
    },
    { text: "Done." },
  );
  const result = await fixtures.cli(["-p", "look around", ...flags]);
  if (result.code !== 0) {
    throw new Error(`turnloop -p exited ${result.code}: ${result.stderr}`);
  }
  const messages = chatMessages(fixtures.model, -1);
  const results = calls.map((_, index) =>
    String(messages.find((message) => message.tool_call_id === `call_${index}`)?.content),
  );
  return { results, stdout: result.stdout, stderr: result.stderr };
}

/**
 * What the model hears when the sandbox stopped `command` (for `reason`) under `-p
 * --permission-mode auto` and nobody could be asked: the advice names `--permission-mode ask` in
 * place of auto, which `--sandbox danger-full-access` contradicts, as a second
 * `--permission-mode` does (src/tools/bash.ts words the refusal).
 */
export function autoSandboxStop(command: string, reason: string): string {
  return (
    `The sandbox stopped this command: ${reason}. It was not run outside the sandbox: no ` +
    "terminal to ask on; rerun with --permission-mode ask --sandbox danger-full-access --allow-tool " +
    `'bash(${command})', in place of --permission-mode auto (commands run without the sandbox, the only way to write that place), ` +
    "or run -p on a terminal to be asked."
  );
}

/**
 * What the model reads for a `tool` call refused in the hidden place `place` (a credential store,
 * a process's folder under /proc: src/permissions/hidden-places.ts words it), whose allow rule is
 * `tool(place/**)`.
 */
export function hiddenPlaceRefusal(tool: string, place: string): string {
  const rule = `${tool}(${place}/**)`;
  return (
    `Permission denied for '${tool}': ${place} is hidden from the agent: it is one of the places ` +
    "the sandbox hides from commands (credentials, shell histories, turnloop's session logs; " +
    "README, Sandbox), and the file tools keep out of them too. Do not try to reach it another " +
    `way. Only the user can allow it, with an allow rule naming the place: --allow-tool '${rule}' ` +
    `(or "${rule}" in permissions.allow of a config file).`
  );
}
