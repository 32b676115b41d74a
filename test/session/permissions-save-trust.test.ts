import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { parseRule } from "../../src/permissions/permission-mode.js";
import { isProjectTrusted } from "../../src/session/config-paths.js";
import { SessionHost } from "../../src/session/host.js";
import { PERMISSIONS_COMMAND } from "../../src/session/permissions-command.js";
import { resolveRunConfig } from "../../src/session/run-config.js";
import { defaultFaceOptions } from "../support/face-options.js";

// `/permissions save` in a project not trusted (README, "Trusted projects"): the user's own rules
// are saved; the save trusts the project only when nothing else of it waited for trust.

let root: string;
let home: string;
let cwd: string;
let host: SessionHost;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "turnloop-save-trust-")));
  home = join(root, "home");
  cwd = join(root, "project");
  await mkdir(join(cwd, ".turnloop"), { recursive: true });
  host = new SessionHost({ home, env: {}, config: resolveRunConfig(defaultFaceOptions(cwd), {}) });
});

afterEach(async () => {
  await host.closeAll();
  await rm(root, { recursive: true, force: true });
});

/** Runs `/permissions save` in a new session holding the "always" grant `bash(npm test)`. */
async function save(): Promise<unknown> {
  const session = await host.create(cwd, "openai-compatible:fake-model");
  session.grants.allow.push(parseRule("bash(npm test)"));
  const model = {
    id: "openai-compatible:fake-model",
    provider: "openai-compatible" as const,
    modelName: "fake-model",
  };
  return PERMISSIONS_COMMAND.run({ host, session, model, mode: "ask", argument: "save" });
}

const projectFile = () => join(cwd, ".turnloop", "config.json");

describe("/permissions save in a project not trusted", () => {
  test("a project whose config held nothing becomes trusted: the saved rules apply later", async () => {
    await writeFile(projectFile(), JSON.stringify({ maxTurns: 7 }));
    expect(await save()).toEqual({
      kind: "text",
      text: `saved to ${projectFile()}: allow bash(npm test); this project is now trusted (its config held nothing else), so later sessions apply them`,
    });
    expect(JSON.parse(await readFile(projectFile(), "utf8"))).toEqual({
      maxTurns: 7,
      permissions: { allow: ["bash(npm test)"] },
    });
    expect(await isProjectTrusted(home, cwd)).toBe(true);
  });

  test("a project whose config has held keys stays untrusted, and the answer says what trust would let apply", async () => {
    await writeFile(projectFile(), JSON.stringify({ baseUrl: "http://127.0.0.1:9/v1" }));
    await writeFile(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: {} }));
    expect(await save()).toEqual({
      kind: "text",
      text: `saved to ${projectFile()}: allow bash(npm test); this project is not trusted, so they apply once you trust it (\`turnloop mcp trust\`), which also lets what it held before this save apply: baseUrl, ${join(cwd, ".mcp.json")}`,
    });
    expect(await isProjectTrusted(home, cwd)).toBe(false);
  });

  test("rules permissions.allow held before the save are named as those, not as the rules just saved (trial 30)", async () => {
    await writeFile(projectFile(), JSON.stringify({ permissions: { allow: ["bash(ls)"] } }));
    expect(await save()).toEqual({
      kind: "text",
      text: `saved to ${projectFile()}: allow bash(npm test); this project is not trusted, so they apply once you trust it (\`turnloop mcp trust\`), which also lets what it held before this save apply: the earlier rules of permissions.allow`,
    });
    expect(await isProjectTrusted(home, cwd)).toBe(false);
  });
});
