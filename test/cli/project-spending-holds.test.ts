import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { parseCommand } from "../../src/cli/arguments.js";
import { trustProject } from "../../src/session/config-paths.js";
import { configuredFace } from "../../src/session/face-config.js";
import type { RunConfig } from "../../src/session/run-config-shape.js";
import { PROMPT_BEYOND_WINDOW } from "../support/context-limit.js";
import { type CliFixtures, test } from "../support/fixtures.js";

// Round 3 session 36: an untrusted project's `.turnloop/config.json` could pick the model (which
// provider reads the code, at what price), raise `maxTurns` and `autopilot.maxContinues`
// (unattended spend) and set `contextWindows` (too large: compaction never runs). Each is now held
// until the project is trusted (src/session/project-holds.ts `keptSpending`), said in the warning
// and by `turnloop config`; a trusted project's applies. Each key in-process through the faces'
// `configuredFace`; maxTurns, and the lower values that apply, through real `turnloop` children
// against the fake model server.

interface Case {
  /** The held key, as the warning and `turnloop config` name it. */
  key: string;
  /** The user's `config.json`. */
  user: object;
  /** The project's `.turnloop/config.json`. */
  project: object;
  /** The held value, as `turnloop config` shows it. */
  held: unknown;
  /** The key's value in the run config the faces resolve (session/run-config.ts `RunConfig`). */
  setting: (config: RunConfig) => unknown;
  /** {@link setting} with the user's file alone, then with the project's applied. */
  settings: [unknown, unknown];
  /** Runs `-p` and says what the user sees of the key: the user's value, or the project's. */
  run: (fixtures: Pick<CliFixtures, "cli" | "model">) => Promise<unknown>;
  /** What {@link run} gives with the user's value, then with the project's. */
  untrusted: unknown;
  trusted: unknown;
}

/** A reply that reads a file (no question asked), then one that ends the turn. */
const readThenAnswer = [
  { toolCalls: [{ id: "call_1", name: "view", arguments: JSON.stringify({ path: "." }) }] },
  { text: "Done." },
];

const CASES: Case[] = [
  {
    key: "model",
    user: { model: "openai-compatible:fake-model" },
    project: { model: "openai-compatible:pricey-model" },
    held: "openai-compatible:pricey-model",
    setting: (config) => config.model?.value,
    settings: ["openai-compatible:fake-model", "openai-compatible:pricey-model"],
    run: async ({ cli, model }) => {
      model.enqueue({ text: "Hi." });
      const result = await cli(["-p", "hi"], { env: { TURNLOOP_MODEL: "" } });
      const body = model.requests.at(-1)?.body as { model: string };
      return [result.code, body.model];
    },
    untrusted: [0, "fake-model"],
    trusted: [0, "pricey-model"],
  },
  {
    key: "maxTurns",
    user: { maxTurns: 1 },
    project: { maxTurns: 500 },
    held: 500,
    setting: (config) => config.maxTurns.value,
    settings: [1, 500],
    run: async ({ cli, model }) => {
      model.enqueue(...readThenAnswer);
      const result = await cli(["-p", "look around"]);
      return [result.code, result.stdout];
    },
    // Exit 2: stopped at the turn limit, the answer not reached.
    untrusted: [2, ""],
    trusted: [0, "Done.\n"],
  },
  {
    key: "autopilot.maxContinues",
    user: { autopilot: { maxContinues: 0 } },
    project: { autopilot: { maxContinues: 2 } },
    held: 2,
    setting: (config) => config.maxAutopilotContinues.value,
    settings: [0, 2],
    run: async ({ cli, model }) => {
      const before = model.requests.length;
      model.enqueue({ text: "Stopping." }, { text: "Still stopping." }, { text: "Stopped." });
      await cli(["-p", "work on it", "--autopilot"]);
      return model.requests.length - before;
    },
    // Model requests: the first answer alone, then two more after the autopilot's nudges.
    untrusted: 1,
    trusted: 3,
  },
  {
    key: "contextWindows",
    user: { contextWindows: { "openai-compatible:fake-model": 8_000 } },
    project: { contextWindows: { "openai-compatible:fake-model": 1_000_000 } },
    held: { "openai-compatible:fake-model": 1_000_000 },
    setting: (config) =>
      Object.fromEntries(
        Object.entries(config.contextWindows).map(([model, { value }]) => [model, value]),
      ),
    settings: [
      { "openai-compatible:fake-model": 8_000 },
      { "openai-compatible:fake-model": 1_000_000 },
    ],
    run: async ({ cli, model }) => {
      model.enqueue({ text: "ok" });
      const before = model.requests.length;
      const result = await cli(["-p", "-"], { stdin: PROMPT_BEYOND_WINDOW });
      return [result.code, model.requests.length - before];
    },
    // Exit 3: the prompt is beyond the user's window of 8,000 tokens, nothing sent.
    untrusted: [3, 0],
    trusted: [0, 1],
  },
];

/** The project's file at `.turnloop/config.json` of `repository`, and the user's config. */
async function writeConfigs(home: string, repository: string, { user, project }: Case) {
  await writeFile(join(home, "config.json"), JSON.stringify(user));
  await mkdir(join(repository, ".turnloop"));
  const path = join(repository, ".turnloop", "config.json");
  await writeFile(path, JSON.stringify(project));
  return path;
}

/** The warning's line for `key` of the untrusted project file at `path`. */
function heldWarning(path: string, key: string): string {
  return `${path}: not applying ${key}: this project is not trusted, and this key loosens permissions, sends data elsewhere or changes what a run may spend; run \`turnloop mcp trust\` in it to trust the whole project config`;
}

describe("an untrusted project's model and spending limits", () => {
  // Each key is held by the same code (session/project-holds.ts) inside the function every face
  // calls (session/face-config.ts `configuredFace`, with -p's parsed flags): each key in-process,
  // untrusted then trusted as `turnloop mcp trust` records it (config-paths.ts `trustProject`).
  // What the user sees of a held key (turnloop config's row, the warning, the run's exit code and
  // answer, before and after `turnloop mcp trust`) is one path for every key: maxTurns end to end.
  test.for(CASES)(
    "$key is held until the project is trusted: the run config keeps the user's value",
    async (entry, { environment, home, repository }) => {
      const path = await writeConfigs(home, repository, entry);
      const command = parseCommand(["-p", "hi"], repository);
      if (command.kind !== "prompt") {
        throw new Error(`parsed as ${command.kind}`);
      }
      const configured = async () => {
        const face = await configuredFace(command.options, environment({ TURNLOOP_MODEL: "" }));
        if (!face.ok) {
          throw new Error(face.message);
        }
        return { warnings: face.warnings, held: face.held, value: entry.setting(face.config) };
      };
      const untrusted = await configured();
      await trustProject(home, repository);
      expect({ untrusted, trusted: await configured() }).toEqual({
        untrusted: {
          warnings: [heldWarning(path, entry.key)],
          held: { path, keys: { [entry.key]: entry.held } },
          value: entry.settings[0],
        },
        trusted: {
          warnings: [],
          held: undefined,
          value: entry.settings[1],
        },
      });
    },
  );

  test("maxTurns is held until the project is trusted: turnloop config's row, the warning, the run", async ({
    cli,
    model,
    home,
    repository,
  }) => {
    const entry = CASES.find(({ key }) => key === "maxTurns");
    if (entry === undefined) {
      throw new Error("no maxTurns case");
    }
    const { key, held, run, untrusted, trusted } = entry;
    const path = await writeConfigs(home, repository, entry);
    const warning = `turnloop: warning: ${heldWarning(path, key)}`;

    const shown = await cli(["config"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stderr.split("\n")[0]).toBe(warning);
    // Its row, the spaces that align the columns taken as one.
    const rows = shown.stdout.split("\n").map((line) => line.replace(/ +/g, " "));
    expect(rows.filter((line) => line.startsWith(`${key} held:`))).toEqual([
      `${key} held: ${JSON.stringify(held)} (this project is not trusted; see turnloop mcp trust) from ${path}`,
    ]);

    let stderr = "";
    const watched: typeof cli = async (args, options) => {
      const result = await cli(args, options);
      stderr = result.stderr;
      return result;
    };
    expect(await run({ cli: watched, model })).toEqual(untrusted);
    expect(stderr.split("\n")[0]).toBe(warning);

    const trust = await cli(["mcp", "trust"]);
    expect(trust.code, trust.stderr).toBe(0);
    expect(await run({ cli: watched, model })).toEqual(trusted);
    expect(stderr).not.toContain("not applying");
  });

  test("a lower maxTurns or maxContinues, or the user's own model, applies untrusted, without a warning", async ({
    cli,
    model,
    home,
    repository,
  }) => {
    const user = { model: "openai-compatible:fake-model", maxTurns: 5 };
    await writeFile(join(home, "config.json"), JSON.stringify(user));
    await mkdir(join(repository, ".turnloop"));
    await writeFile(
      join(repository, ".turnloop", "config.json"),
      JSON.stringify({ ...user, maxTurns: 1, autopilot: { maxContinues: 0 } }),
    );
    model.enqueue(...readThenAnswer);
    const result = await cli(["-p", "look around", "--autopilot"], { env: { TURNLOOP_MODEL: "" } });
    expect([result.code, result.stdout]).toEqual([2, ""]);
    expect(result.stderr).not.toContain("warning");
    expect(result.stderr).toContain("stopped: reached the turn limit (1)");
    expect(model.requests.map((request) => (request.body as { model: string }).model)).toEqual([
      "fake-model",
    ]);
  });
});
