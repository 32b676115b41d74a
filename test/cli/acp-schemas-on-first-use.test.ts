import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
// @ts-expect-error: a build script in JavaScript, without type declarations.
import { acpSchemasOnFirstUse } from "../../scripts/acp-schemas-on-first-use.mjs";
import { bundledModule } from "../support/bundled-module.js";

/**
 * Issue 26: the bundled CLI builds the ACP SDK's zod schemas on first use
 * (scripts/acp-schemas-on-first-use.mjs). The SDK's generated schema module is bundled twice here,
 * as it is shipped and as the CLI's bundle rewrites it, and both parse the same ACP v1 messages,
 * valid and not: the results (data, or every issue) must be identical.
 */

type Schema = {
  safeParse(value: unknown): { success: boolean; data?: unknown; error?: { issues: unknown[] } };
  _zod: { def: { type: string; _cachedInner?: unknown } };
};
type Schemas = Record<string, Schema>;

const SCHEMA_MODULE = fileURLToPath(
  new URL("../../node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js", import.meta.url),
);

let directory: string;
let shipped: Schemas;
let deferred: Schemas;

async function bundled(name: string, plugins: unknown[]): Promise<Schemas> {
  const output = await bundledModule(directory, name, SCHEMA_MODULE, plugins);
  return (await import(pathToFileURL(output).href)) as Schemas;
}

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "turnloop-acp-schemas-"));
  shipped = await bundled("shipped", []);
  deferred = await bundled("deferred", [acpSchemasOnFirstUse]);
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** What a parse gives: its data, or its issues (ZodError instances compared by their issues). */
function outcome(schema: Schema | undefined, value: unknown) {
  const result = schema?.safeParse(value);
  return result?.success ? { data: result.data } : { issues: result?.error?.issues };
}

const TEXT = { type: "text", text: "What does notes.md say?" };

/**
 * ACP v1 messages an agent receives (params of requests and notifications, client answers), each
 * with whether the shipped schema accepts it.
 */
const MESSAGES: Array<[schema: string, valid: boolean, value: unknown]> = [
  [
    "zInitializeRequest",
    true,
    {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
      clientInfo: { name: "zed", version: "0.200.0" },
    },
  ],
  ["zInitializeRequest", true, { protocolVersion: 1 }],
  ["zInitializeRequest", false, { clientCapabilities: {} }],
  ["zInitializeRequest", false, { protocolVersion: "one", clientCapabilities: { fs: "yes" } }],
  ["zNewSessionRequest", true, { cwd: "/work/project", mcpServers: [] }],
  [
    "zNewSessionRequest",
    true,
    {
      cwd: "/work/project",
      mcpServers: [
        { name: "files", command: "/usr/bin/mcp-files", args: ["--root", "/"], env: [] },
        { type: "http", name: "web", url: "http://127.0.0.1:9000/mcp", headers: [] },
      ],
    },
  ],
  ["zNewSessionRequest", false, { mcpServers: [] }],
  ["zLoadSessionRequest", true, { sessionId: "s-1", cwd: "/work/project", mcpServers: [] }],
  [
    "zPromptRequest",
    true,
    {
      sessionId: "s-1",
      prompt: [
        TEXT,
        { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
        { type: "resource_link", uri: "file:///work/project/notes.md", name: "notes.md" },
        {
          type: "resource",
          resource: { uri: "file:///work/project/a.ts", text: "export {};", mimeType: "text/x-ts" },
        },
      ],
    },
  ],
  ["zPromptRequest", false, { sessionId: "s-1", prompt: [{ type: "video", uri: "x" }] }],
  ["zPromptRequest", false, { sessionId: 7, prompt: "hello" }],
  ["zPromptRequest", true, { sessionId: "s-1", prompt: [TEXT], _meta: "not an object" }],
  ["zCancelNotification", true, { sessionId: "s-1" }],
  ["zSetSessionModeRequest", true, { sessionId: "s-1", modeId: "plan" }],
  ["zListSessionsRequest", true, { cwd: "/work/project" }],
  [
    "zRequestPermissionResponse",
    true,
    { outcome: { outcome: "selected", optionId: "allow-once" } },
  ],
  ["zRequestPermissionResponse", true, { outcome: { outcome: "cancelled" } }],
  ["zRequestPermissionResponse", false, { outcome: { outcome: "maybe" } }],
];

describe("the ACP SDK's schemas built on first use (issue 26)", () => {
  test("parse ACP v1 messages exactly as the schemas the SDK ships", () => {
    const results = MESSAGES.map(([name, , value]) => ({
      name,
      shipped: outcome(shipped[name], value),
      deferred: outcome(deferred[name], value),
    }));
    expect(results.map(({ name, deferred }) => ({ name, result: deferred }))).toEqual(
      results.map(({ name, shipped }) => ({ name, result: shipped })),
    );
    // Both valid and invalid messages were checked (the comparison can fail either way).
    expect(results.map((result) => "data" in result.shipped)).toEqual(
      MESSAGES.map(([, valid]) => valid),
    );
  });

  test("every schema is deferred, and importing builds none of them", async () => {
    const fresh = (await import(
      `${pathToFileURL(join(directory, "deferred.mjs")).href}?fresh`
    )) as Schemas;
    const schemas = Object.entries(fresh).filter(([name]) => /^z[A-Z]/.test(name));
    expect(schemas.map(([name]) => name)).toEqual(
      Object.keys(shipped).filter((name) => /^z[A-Z]/.test(name)),
    );
    expect(schemas.filter(([, schema]) => schema._zod.def.type !== "lazy")).toEqual([]);
    expect(schemas.filter(([, schema]) => schema._zod.def._cachedInner !== undefined)).toEqual([]);
    fresh.zInitializeRequest?.safeParse({ protocolVersion: 1 });
    expect(fresh.zInitializeRequest?._zod.def._cachedInner).toBeDefined();
    expect(fresh.zPromptRequest?._zod.def._cachedInner).toBeUndefined();
  });
});
