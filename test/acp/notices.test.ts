import { appendFile, mkdtemp, rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, onTestFinished, test } from "vitest";
import { zSessionNotification } from "../../node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";
import { BADLY_TYPED_LINES } from "../support/badly-typed-lines.js";
import { AcpHarness } from "./support.js";

// One rule for what turnloop itself tells an ACP client (src/acp/notices.ts): a session log's
// repair, a retry, an unavailable sandbox, a warning, autopilot's cap, an MCP server's failure
// are never part of the agent's reply (case 17): a `notice` to a client that offered
// `session.notices`, a thought to any other, and a load replays a recorded one as it was sent
// live (case 25). Before, the repair, warnings, autopilot's cap and MCP failures were agent
// messages, so they joined the reply.

type Harness = Awaited<ReturnType<typeof AcpHarness.start>>;
type Offer = "notices" | "none";

interface Said {
  severity: "info" | "warning";
  title: string;
  text: string | RegExp;
  mark?: string;
}

/** The update a notice is sent as for `offer`, as the rule says it. */
function expected(said: Said, offer: Offer): unknown {
  const text = typeof said.text === "string" ? said.text : expect.stringMatching(said.text);
  if (offer === "notices") {
    return {
      sessionUpdate: "notice",
      severity: said.severity,
      title: said.title,
      description: text,
    };
  }
  const thought =
    typeof said.text === "string"
      ? `${said.mark ?? "⚠"} ${said.text}\n`
      : expect.stringMatching(new RegExp(`^${said.mark ?? "⚠"} ${said.text.source}\\n$`));
  return {
    sessionUpdate: "agent_thought_chunk",
    content: { type: "text", text: thought },
    messageId: expect.any(String),
  };
}

/**
 * The session's notices and thoughts, after checking every `session/update` against ACP v1's
 * schema and that no agent message carries a notice's mark.
 */
function notices(harness: Harness, sessionId: string): acp.SessionUpdate[] {
  for (const entry of harness.wire) {
    if (entry.direction === "to-client" && entry.message.method === "session/update") {
      expect(zSessionNotification.safeParse(entry.message.params).error).toBeUndefined();
    }
  }
  const updates = harness.updates(sessionId);
  const replies = updates.flatMap((update) =>
    update.sessionUpdate === "agent_message_chunk" && update.content.type === "text"
      ? [update.content.text]
      : [],
  );
  expect(replies.filter((text) => /[⚠⟳]/.test(text))).toEqual([]);
  return updates.filter(
    (update) => update.sessionUpdate === "notice" || update.sessionUpdate === "agent_thought_chunk",
  );
}

const offerOf = (offer: Offer): acp.ClientCapabilities | undefined =>
  offer === "notices" ? { session: { notices: {} } } : undefined;

interface Case {
  kind: string;
  /** Whether the notice is recorded in the log, so a load replays it. */
  recorded: boolean;
  run: (offer: Offer) => Promise<{ harness: Harness; sessionId: string; said: Said[] }>;
}

const cases: Case[] = [
  {
    kind: "a retried request",
    recorded: true,
    run: async (offer) => {
      const harness = await AcpHarness.start({ offer: offerOf(offer) ?? {} });
      const sessionId = await harness.newSession();
      harness.server.enqueue(
        { status: 503, body: { error: { message: "upstream busy" } } },
        { text: "ok" },
      );
      expect(await harness.prompt(sessionId, "hi")).toEqual({ stopReason: "end_turn" });
      const text = /retrying in \d+(?:\.\d)? (?:ms|s|min) \(attempt 1\): .*upstream busy.*/;
      return {
        harness,
        sessionId,
        said: [{ severity: "info", title: "Retrying", text, mark: "⟳" }],
      };
    },
  },
  {
    kind: "a warning (an empty answer)",
    recorded: true,
    run: async (offer) => {
      const harness = await AcpHarness.start({ offer: offerOf(offer) ?? {} });
      const sessionId = await harness.newSession();
      harness.server.enqueue({ text: "" });
      expect(await harness.prompt(sessionId, "hi")).toEqual({ stopReason: "end_turn" });
      const text = "the model returned an empty answer";
      return { harness, sessionId, said: [{ severity: "warning", title: "Warning", text }] };
    },
  },
  {
    kind: "autopilot's cap",
    recorded: true,
    run: async (offer) => {
      const harness = await AcpHarness.start({
        offer: offerOf(offer) ?? {},
        face: { maxAutopilotContinues: 1 },
      });
      harness.server.enqueue({ text: "Done." }, { text: "Still done." });
      const sessionId = await harness.newSession();
      await harness.prompt(sessionId, "/mode autopilot");
      await harness.prompt(sessionId, "tidy up");
      const text =
        "Autopilot stopped after 1 continuation: the model did not call task_complete, so the task was not marked complete.";
      return {
        harness,
        sessionId,
        said: [{ severity: "warning", title: "Autopilot stopped", text }],
      };
    },
  },
  {
    kind: "an MCP server's failure",
    recorded: false,
    run: async (offer) => {
      const harness = await AcpHarness.start({ offer: offerOf(offer) ?? {} });
      const { sessionId } = await harness.client.request(acp.methods.agent.session.new, {
        cwd: harness.cwd,
        mcpServers: [{ name: "tracker", command: "/nonexistent/tracker", args: [], env: [] }],
      });
      harness.server.enqueue({ text: "ok" });
      expect(await harness.prompt(sessionId, "hi")).toEqual({ stopReason: "end_turn" });
      const text =
        "MCP server tracker failed: command not found: /nonexistent/tracker; its tools are not available";
      return { harness, sessionId, said: [{ severity: "warning", title: "MCP server", text }] };
    },
  },
  {
    kind: "a repaired session log",
    recorded: false,
    run: async (offer) => {
      const first = await AcpHarness.start({ offer: offerOf(offer) ?? {} });
      const sessionId = await first.newSession();
      first.server.enqueue({ text: "first answer" });
      expect(await first.prompt(sessionId, "hello")).toEqual({ stopReason: "end_turn" });
      const before = (await first.persisted(sessionId)).length;
      const path = join(first.home, "session-state", sessionId, "events.jsonl");
      const harness = await first.restart();
      await appendFile(path, BADLY_TYPED_LINES.join(""));
      await harness.loadSession(sessionId);
      // The notice comes with the opening updates, after the load's answer.
      await harness.waitForUpdate(
        (update) =>
          update.sessionUpdate === "notice" || update.sessionUpdate === "agent_thought_chunk",
      );
      const lines = BADLY_TYPED_LINES.map((_, index) => before + 1 + index).join(", ");
      const text = `turnloop repaired the session log: skipped ${BADLY_TYPED_LINES.length} damaged lines (${lines})`;
      return {
        harness,
        sessionId,
        said: [{ severity: "warning", title: "Session log repaired", text }],
      };
    },
  },
  {
    kind: "an unavailable sandbox",
    recorded: false,
    run: async (offer) => {
      const bin = await mkdtemp(join("/var/tmp", "turnloop-acp-notices-"));
      onTestFinished(() => rm(bin, { recursive: true, force: true }));
      for (const program of ["bash", "env"]) {
        await symlink(`/usr/bin/${program}`, join(bin, program));
      }
      const harness = await AcpHarness.start({ offer: offerOf(offer) ?? {}, env: { PATH: bin } });
      const sessionId = await harness.newSession();
      await harness.setConfigOption(sessionId, "mode", "auto");
      harness.server.enqueue({ text: "ok" });
      expect(await harness.prompt(sessionId, "hi")).toEqual({ stopReason: "end_turn" });
      const text =
        "No sandbox can run here, so commands and edits ask first and run unconfined once allowed: bubblewrap (bwrap) is not installed, so commands cannot run in a sandbox. Install it: apt-get install bubblewrap.";
      return {
        harness,
        sessionId,
        said: [{ severity: "warning", title: "Sandbox unavailable", text }],
      };
    },
  },
];

describe("turnloop's own notices over ACP", () => {
  for (const { kind, recorded, run } of cases) {
    for (const offer of ["notices", "none"] as const) {
      test(`${kind}: ${offer === "notices" ? "a notice" : "a thought"}, never the reply${recorded ? ", replayed the same way" : ""}`, async () => {
        const { harness, sessionId, said } = await run(offer);
        const live = notices(harness, sessionId);
        expect(live).toEqual(said.map((one) => expected(one, offer)));
        if (recorded) {
          const again = await harness.restart();
          await again.loadSession(sessionId);
          expect(notices(again, sessionId)).toEqual(live);
        }
      });
    }
  }
});
