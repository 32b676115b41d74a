import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseCommand } from "../../src/cli/arguments.js";
import { trustProject } from "../../src/session/config-paths.js";
import { configuredFace } from "../../src/session/face-config.js";
import type { RunConfig } from "../../src/session/run-config.js";

/**
 * The run config resolves each setting once, flags > environment > project config > user config
 * > default, and says where each value came from. Real files in a temporary home and project.
 */

let root: string;
let home: string;
let project: string;
let userFile: string;
let projectFile: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "turnloop-run-config-")));
  home = join(root, "home");
  project = join(root, "project");
  await mkdir(home, { recursive: true });
  await mkdir(join(project, ".turnloop"), { recursive: true });
  userFile = join(home, "config.json");
  projectFile = join(project, ".turnloop", "config.json");
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** The run config for `turnloop config <flags>` in the project, with `env` and the two files. */
async function resolved(
  files: { user?: object; project?: object },
  env: Record<string, string>,
  flags: string[] = [],
): Promise<RunConfig> {
  await rm(userFile, { force: true });
  await rm(projectFile, { force: true });
  if (files.user !== undefined) {
    await writeFile(userFile, JSON.stringify(files.user));
  }
  if (files.project !== undefined) {
    await writeFile(projectFile, JSON.stringify(files.project));
  }
  // Precedence of a trusted project's file (a trust covers the contents it was given for); an
  // untrusted one's held keys: project-trust.test.ts.
  await trustProject(home, project);
  const command = parseCommand(["config", ...flags], project);
  if (command.kind !== "config") {
    throw new Error(`parsed as ${command.kind}`);
  }
  const configured = await configuredFace(command.options, { TURNLOOP_HOME: home, ...env });
  if (!configured.ok) {
    throw new Error(configured.message);
  }
  return configured.config;
}

/** The settings this test compares, whole. */
function picked(config: RunConfig) {
  return {
    model: config.model,
    baseUrl: config.baseUrl,
    maxTurns: config.maxTurns,
    allowAllTools: config.allowAllTools,
    allow: config.allow,
    deny: config.deny,
  };
}

const USER = {
  model: "anthropic:claude-from-user",
  baseUrl: "http://user.invalid/v1",
  maxTurns: 11,
  permissions: { allow: ["view"], deny: ["bash(rm)"] },
};
const PROJECT = {
  model: "openai:gpt-from-project",
  baseUrl: "http://project.invalid/v1",
  maxTurns: 22,
  permissions: { allow: ["grep"] },
};
const ENV = { TURNLOOP_MODEL: "ollama:from-env", TURNLOOP_BASE_URL: "http://env.invalid/v1" };
const FLAGS = ["--model", "openai-chat:from-flag", "--max-turns", "33", "--allow-tool", "glob"];

describe("run config precedence, with the source of each value", () => {
  test("defaults alone", async () => {
    expect(picked(await resolved({}, {}))).toEqual({
      model: undefined,
      baseUrl: undefined,
      maxTurns: { value: 100, source: "default" },
      allowAllTools: { value: false, source: "default" },
      allow: [],
      deny: [],
    });
  });

  test("the user config beats the defaults", async () => {
    expect(picked(await resolved({ user: USER }, {}))).toEqual({
      model: { value: USER.model, source: userFile, resolved: USER.model },
      baseUrl: { value: USER.baseUrl, source: userFile },
      maxTurns: { value: 11, source: userFile },
      allowAllTools: { value: false, source: "default" },
      allow: [{ value: "view", source: userFile }],
      deny: [{ value: "bash(rm)", source: userFile }],
    });
  });

  /** The settings of the user and the project config together, each with its source. */
  const fromBothFiles = () => ({
    model: { value: PROJECT.model, source: projectFile, resolved: PROJECT.model },
    baseUrl: { value: PROJECT.baseUrl, source: projectFile },
    maxTurns: { value: 22, source: projectFile },
    allowAllTools: { value: false, source: "default" },
    allow: [
      { value: "view", source: userFile },
      { value: "grep", source: projectFile },
    ],
    deny: [{ value: "bash(rm)", source: userFile }],
  });

  test("the project config beats the user config; rules add up, user's first", async () => {
    expect(picked(await resolved({ user: USER, project: PROJECT }, {}))).toEqual(fromBothFiles());
  });

  test("the environment beats the project config", async () => {
    expect(picked(await resolved({ user: USER, project: PROJECT }, ENV))).toEqual({
      ...fromBothFiles(),
      model: { value: ENV.TURNLOOP_MODEL, source: "TURNLOOP_MODEL", resolved: ENV.TURNLOOP_MODEL },
      baseUrl: { value: ENV.TURNLOOP_BASE_URL, source: "TURNLOOP_BASE_URL" },
    });
  });

  test("flags beat the environment; a flag's rules come after the files'", async () => {
    const flags = [...FLAGS, "--allow-all-tools", "--deny-tool", "bash(git push)"];
    expect(picked(await resolved({ user: USER, project: PROJECT }, ENV, flags))).toEqual({
      model: {
        value: "openai-chat:from-flag",
        source: "--model",
        resolved: "openai-chat:from-flag",
      },
      baseUrl: { value: ENV.TURNLOOP_BASE_URL, source: "TURNLOOP_BASE_URL" },
      maxTurns: { value: 33, source: "--max-turns" },
      allowAllTools: { value: true, source: "--allow-all-tools" },
      allow: [
        { value: "view", source: userFile },
        { value: "grep", source: projectFile },
        { value: "glob", source: "--allow-tool" },
      ],
      deny: [
        { value: "bash(rm)", source: userFile },
        { value: "bash(git push)", source: "--deny-tool" },
      ],
    });
  });

  test("a profile's model resolves to its provider type, with the profile's endpoint", async () => {
    const profile = { type: "openai-compatible", baseUrl: "http://profile.invalid/v1" };
    const user = { providers: { local: profile }, model: "local:qwen" };
    const config = await resolved({ user }, {});
    expect(picked(config)).toEqual({
      model: { value: "local:qwen", source: userFile, resolved: "openai-compatible:qwen" },
      baseUrl: { value: profile.baseUrl, source: userFile },
      maxTurns: { value: 100, source: "default" },
      allowAllTools: { value: false, source: "default" },
      allow: [],
      deny: [],
    });
  });

  test("is immutable: a face cannot change a setting after resolution", async () => {
    const config = await resolved({ user: USER }, {}, FLAGS);
    expect(() => {
      (config as { maxTurns: unknown }).maxTurns = { value: 1, source: "face" };
    }).toThrow(TypeError);
    expect(() => {
      (config.allow as unknown[]).push({ value: "bash", source: "face" });
    }).toThrow(TypeError);
    expect(config.maxTurns).toEqual({ value: 33, source: "--max-turns" });
  });

  test("a config path that cannot be looked at (home is a file) is an error, not a missing file", async () => {
    const notAFolder = join(root, "home-file");
    await writeFile(notAFolder, "");
    const command = parseCommand(["config"], project);
    if (command.kind !== "config") {
      throw new Error(`parsed as ${command.kind}`);
    }
    await rm(projectFile, { force: true });
    expect(await configuredFace(command.options, { TURNLOOP_HOME: notAFolder })).toEqual({
      ok: false,
      message: `${join(notAFolder, "config.json")} cannot be read: ENOTDIR: not a directory, lstat '${join(notAFolder, "config.json")}'`,
    });
  });
});
