import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { configFileSchema } from "../../src/session/config.js";
import { test } from "../support/fixtures.js";

// Trial of round 3 session 36 (P2-2): `sandbox.tmpfsSizeMiB`, which a project may lower, was
// applied but shown by neither `turnloop config` nor `config --json`. The kind: every setting the
// schema has must be shown. This walks the schema (src/session/config.ts), sets every key in the
// user's file, and asserts a row for each with that file as its source, and a field in the JSON.

/** Every setting's dotted name: the schema's keys, objects walked, records as one setting. */
function settingNames(schema: unknown, prefix = ""): string[] {
  const def = (schema as { _zod: { def: { type: string; innerType?: unknown; shape?: object } } })
    ._zod.def;
  if (def.type === "optional") {
    return settingNames(def.innerType, prefix);
  }
  if (def.type === "object" && def.shape !== undefined) {
    return Object.entries(def.shape).flatMap(([key, value]) =>
      settingNames(value, prefix === "" ? key : `${prefix}.${key}`),
    );
  }
  return [prefix];
}

/** One value for every setting (a record: one entry); `$schema` names the file's schema only. */
const EVERY_SETTING = {
  $schema: "https://example.invalid/turnloop-config.json",
  model: "openai-compatible:m1",
  baseUrl: "http://127.0.0.1:9/v1",
  providers: { lab: { type: "openai-compatible", baseUrl: "http://127.0.0.1:8/v1" } },
  permissions: { allow: ["bash(git status)"], deny: ["bash(rm *)"], mode: "ask" },
  sandbox: {
    policy: "workspace-write",
    network: false,
    allowUnixSockets: false,
    tmpfsSizeMiB: 64,
    hidden: ["~/.secret-place"],
  },
  shellEnvironment: { keep: ["MY_TOKEN"] },
  maxTurns: 7,
  autopilot: { maxContinues: 2 },
  mcpServers: { files: { command: "node", args: ["server.js"] } },
  contextWindows: { "openai-compatible:m1": 32000 },
  store: "postgres://someone:secret@127.0.0.1:1/sessions",
};

/** Where `config --json` shows each setting: a path to an object with `value` and `source`. */
const JSON_FIELDS: Record<string, string[]> = {
  model: ["model"],
  baseUrl: ["baseUrl"],
  providers: ["providers", "lab"],
  "permissions.allow": ["allow", "0"],
  "permissions.deny": ["deny", "0"],
  "permissions.mode": ["permissionMode"],
  "sandbox.policy": ["sandbox", "policy"],
  "sandbox.network": ["sandbox", "network"],
  "sandbox.allowUnixSockets": ["sandbox", "unixSockets"],
  "sandbox.tmpfsSizeMiB": ["sandbox", "tmpfsSizeMiB"],
  "sandbox.hidden": ["sandbox", "hidden", "0"],
  "shellEnvironment.keep": ["keptVariables", "0"],
  maxTurns: ["maxTurns"],
  "autopilot.maxContinues": ["maxAutopilotContinues"],
  mcpServers: ["mcpServers", "files"],
  contextWindows: ["contextWindows", "openai-compatible:m1"],
  store: ["store"],
};

test("turnloop config shows every setting of the schema, with its source", async ({
  cli,
  home,
}) => {
  const names = settingNames(configFileSchema()).filter((name) => name !== "$schema");
  // A setting added to the schema needs a value here and a place in the JSON.
  expect(Object.keys(JSON_FIELDS).sort()).toEqual([...names].sort());
  const path = join(home, "config.json");
  await writeFile(path, JSON.stringify(EVERY_SETTING));
  const env = { TURNLOOP_MODEL: "", TURNLOOP_BASE_URL: "" };
  const text = await cli(["config"], { env });
  expect(text.code, text.stderr).toBe(0);
  const rows = text.stdout.split("\n").map((line) => line.replace(/\s+/g, " "));
  const missing = names.filter(
    (name) =>
      !rows.some(
        (row) =>
          (row.startsWith(`${name} `) || row.startsWith(`${name}.`)) &&
          row.endsWith(`from ${path}`),
      ),
  );
  expect(missing).toEqual([]);
  expect(rows).toContain(
    `sandbox.tmpfsSizeMiB 64 MiB (each of the sandbox's /tmp and /dev/shm) from ${path}`,
  );
  const json = await cli(["config", "--json"], { env });
  const shown = JSON.parse(json.stdout) as Record<string, unknown>;
  const fields = Object.entries(JSON_FIELDS).map(([name, at]) => {
    const field = at.reduce<unknown>(
      (object, key) => (object as Record<string, unknown> | undefined)?.[key],
      shown,
    ) as { source?: unknown } | undefined;
    return [name, field?.source];
  });
  expect(Object.fromEntries(fields)).toEqual(
    Object.fromEntries(Object.keys(JSON_FIELDS).map((name) => [name, path])),
  );
  expect(shown.sandbox).toMatchObject({
    tmpfsSizeMiB: { value: 64, source: path, applies: true },
  });
});
