import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { ZodType } from "zod";
import { AcpHarness } from "./support.js";

// The trial's finding 7: an ACP client on a machine without bubblewrap switched to mode auto;
// `config_option_update` said `sandbox: "workspace-write"` and nothing told the editor that no
// sandbox could run. The agent's PATH here holds bash and the tools a command needs, not bwrap.

/** The ACP SDK's own schemas (its zod.gen.js is not exported; read from the file). */
const schemas = (await import(
  new URL("../../node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js", import.meta.url)
    .href
)) as Record<string, ZodType>;

function valid(schemaName: string, value: unknown): unknown {
  const schema = schemas[schemaName];
  if (schema === undefined) {
    throw new Error(`no schema ${schemaName}`);
  }
  return schema.parse(value);
}

let noBubblewrap = "";
beforeEach(async () => {
  noBubblewrap = await mkdtemp(join("/var/tmp", "turnloop-acp-no-bwrap-"));
  await mkdir(join(noBubblewrap, "bin"));
  for (const program of ["bash", "echo", "touch", "env"]) {
    await symlink(`/usr/bin/${program}`, join(noBubblewrap, "bin", program)).catch(() =>
      symlink(`/bin/${program}`, join(noBubblewrap, "bin", program)),
    );
  }
});
afterEach(async () => {
  await rm(noBubblewrap, { recursive: true, force: true });
});

const REASON =
  "bubblewrap (bwrap) is not installed, so commands cannot run in a sandbox. Install it: apt-get install bubblewrap.";
const OPTION_DESCRIPTION = `No sandbox can run here: ${REASON} Commands and edits ask first, and run unconfined once allowed.`;
const WARNING = `No sandbox can run here, so commands and edits ask first and run unconfined once allowed: ${REASON}`;

/** The `sandbox` option of a list, and what mode `auto` is described as. */
function sandboxAndAuto(options: readonly acp.SessionConfigOption[] | null | undefined) {
  const sandbox = options?.find((option) => option.id === "sandbox");
  const mode = options?.find((option) => option.id === "mode");
  const auto =
    mode?.type === "select"
      ? mode.options.flatMap((entry) =>
          "value" in entry && entry.value === "auto" ? [entry.description] : [],
        )
      : [];
  return {
    currentValue: sandbox?.currentValue,
    description: sandbox?.description,
    values:
      sandbox?.type === "select"
        ? sandbox.options.flatMap((entry) => ("value" in entry ? [entry.value] : []))
        : [],
    auto,
  };
}

describe("ACP where bubblewrap cannot run", () => {
  for (const offered of [undefined, { session: { notices: {} } }] as const) {
    test(`mode auto: the sandbox option reads unavailable with the reason, said once (${offered === undefined ? "a thought" : "a notice"})`, async () => {
      const harness = await AcpHarness.start({
        env: { PATH: join(noBubblewrap, "bin") },
        ...(offered === undefined ? {} : { offer: offered as acp.ClientCapabilities }),
      });
      const created = await harness.client.request(acp.methods.agent.session.new, {
        cwd: harness.cwd,
        mcpServers: [],
      });
      valid("zNewSessionResponse", created);
      const { sessionId } = created;
      expect(sandboxAndAuto(created.configOptions).currentValue).toBe("danger-full-access");
      const setMode = await harness.client.request(acp.methods.agent.session.setMode, {
        sessionId,
        modeId: "auto",
      });
      valid("zSetSessionModeResponse", setMode);
      const answer = await harness.setConfigOption(sessionId, "mode", "autopilot");
      valid("zSetSessionConfigOptionResponse", answer);
      expect(sandboxAndAuto(answer.configOptions)).toEqual({
        currentValue: "unavailable",
        description: OPTION_DESCRIPTION,
        values: ["unavailable", "read-only", "workspace-write", "danger-full-access"],
        auto: ["Commands and edits ask first, since no sandbox can run here."],
      });
      for (const entry of harness.wire) {
        if (entry.direction === "to-client" && entry.message.method === "session/update") {
          valid("zSessionNotification", entry.message.params);
        }
      }
      const told = harness
        .updates(sessionId)
        .filter(
          (update) =>
            update.sessionUpdate === "notice" ||
            (update.sessionUpdate === "agent_thought_chunk" && update.content.type === "text"),
        );
      expect(told).toEqual([
        offered === undefined
          ? {
              sessionUpdate: "agent_thought_chunk",
              content: { type: "text", text: `⚠ ${WARNING}\n` },
              messageId: expect.any(String),
            }
          : {
              sessionUpdate: "notice",
              severity: "warning",
              title: "Sandbox unavailable",
              description: WARNING,
            },
      ]);
      const sandboxUpdates = harness
        .updates(sessionId)
        .flatMap((update) =>
          update.sessionUpdate === "config_option_update"
            ? [sandboxAndAuto(update.configOptions).currentValue]
            : [],
        );
      expect(sandboxUpdates).toEqual(["unavailable"]);
    });
  }

  test("choosing the unavailable value is refused as an unknown policy", async () => {
    const harness = await AcpHarness.start({ env: { PATH: join(noBubblewrap, "bin") } });
    const sessionId = await harness.newSession();
    await expect(
      harness.client.request(acp.methods.agent.session.setConfigOption, {
        sessionId,
        configId: "sandbox",
        value: "unavailable",
      }),
    ).rejects.toMatchObject({ code: -32602 });
  });
});
