import type {
  CopilotClient,
  CopilotSession,
  ResumeSessionConfig,
  SessionConfig,
  SessionEvent,
} from "@github/copilot-sdk";
import { defineTool } from "@github/copilot-sdk";
import { afterAll, beforeAll, expect } from "vitest";
import { z } from "zod";
import type { Reply } from "../support/fake-model-types.js";
import {
  type Fixture,
  fixtureForFile,
  nextEvent,
  recordEvents,
  requestMessages,
} from "./support.js";
import { startTcpServer, type TcpServer } from "./tcp-server.js";

/**
 * What the pending-work tests (issue 25, the Copilot SDK's `pending_work_resume.e2e.test.ts`)
 * share: one `turnloop --headless --port` process per file, to which each test connects two
 * official `@github/copilot-sdk` clients, and readers of what the apps saw and the model got.
 */
export interface PendingWorkSetup {
  readonly fixture: Fixture;
  readonly server: TcpServer;
  /** Resolves once the server said on stderr that it keeps `sessionId` for a resume. */
  keptForResume(sessionId: string): Promise<void>;
  /** `[role, content]` (`[tool, id, content]`) of model request `index`, the system prompt left out. */
  sent(index: number): unknown[];
  /**
   * A new client's session with `config`, sent `prompt` with `replies` queued for the model, once
   * `waiting` (opened by the app's tool or permission handler) has settled: the client, the
   * session, what it saw, and the index of the prompt's first model request.
   */
  startWaiting(
    config: SessionConfig,
    prompt: string,
    replies: Reply[],
    waiting: Promise<unknown>,
  ): Promise<{ client: CopilotClient; session: CopilotSession; saw: SessionEvent[]; from: number }>;
  /**
   * A new client's resume of `sessionId` with `config`: the session, what it sees from now on,
   * and its next `session.idle`.
   */
  resumeOn(
    sessionId: string,
    config: ResumeSessionConfig,
  ): Promise<{ session: CopilotSession; saw: SessionEvent[]; idle: Promise<SessionEvent> }>;
  /** Stops `client` and resolves once the server kept `sessionId` for a resume. */
  leave(client: CopilotClient, sessionId: string): Promise<void>;
  /** {@link leave} with the client of `waiting` (from {@link startWaiting}), then {@link resumeOn}. */
  leaveAndResume(
    waiting: { client: CopilotClient; session: CopilotSession },
    config: ResumeSessionConfig,
  ): ReturnType<PendingWorkSetup["resumeOn"]>;
}

/** Starts the fixture and the server before the file's tests and stops them after. */
export function usePendingWorkServer(): PendingWorkSetup {
  const fixture = fixtureForFile();
  let server: TcpServer | undefined;
  let stderr = "";
  const waiters: Array<() => void> = [];
  beforeAll(async () => {
    server = await startTcpServer(fixture);
    server.process.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text;
      for (const waiter of waiters.splice(0)) {
        waiter();
      }
    });
  });
  afterAll(async () => {
    await server?.stop();
  });
  const keptForResume = (sessionId: string) => {
    const said = () => stderr.includes(`session ${sessionId}: the last app left`);
    return new Promise<void>((resolve) => {
      const check = () => (said() ? resolve() : waiters.push(check));
      check();
    });
  };
  const started = () => {
    if (server === undefined) {
      throw new Error("the server starts in beforeAll");
    }
    return server;
  };
  const resumeOn: PendingWorkSetup["resumeOn"] = async (sessionId, config) => {
    const client = await started().copilotClient();
    const session = await client.resumeSession(sessionId, config);
    const saw = recordEvents(session);
    return { session, saw, idle: nextEvent(session, (event) => event.type === "session.idle") };
  };
  const leave: PendingWorkSetup["leave"] = async (client, sessionId) => {
    const kept = keptForResume(sessionId);
    await client.forceStop();
    await kept;
  };
  return {
    fixture,
    get server() {
      return started();
    },
    keptForResume,
    startWaiting: async (config, prompt, replies, waiting) => {
      const client = await started().copilotClient();
      const session = await client.createSession(config);
      const saw = recordEvents(session);
      const from = fixture.model.requests.length;
      fixture.model.enqueue(...replies);
      await session.send({ prompt });
      await waiting;
      return { client, session, saw, from };
    },
    resumeOn,
    leave,
    leaveAndResume: async (waiting, config) => {
      await leave(waiting.client, waiting.session.sessionId);
      return await resumeOn(waiting.session.sessionId, config);
    },
    sent: (index) =>
      requestMessages(fixture.model, index)
        .filter((message) => message.role !== "system")
        .map((message) =>
          message.role === "tool"
            ? ["tool", message.tool_call_id, message.content]
            : [message.role, message.content ?? null],
        ),
  };
}

/** A tool `name` taking `{value}`, answered by `handler`. */
export function valueTool(name: string, handler: (value: string) => string | Promise<string>) {
  return defineTool(name, {
    description: `Looks up a value (${name})`,
    parameters: z.object({ value: z.string() }),
    handler: ({ value }) => handler(value),
  });
}

/** A handler that never answers and opens `started` with the value it was called with. */
export function neverAnswering(started: { open(): void }, values: string[] = []) {
  return (value: string) => {
    values.push(value);
    started.open();
    return new Promise<string>(() => undefined);
  };
}

/** `[type, key data]` of the events an app saw, for whole-sequence comparisons. */
export function outline(events: readonly SessionEvent[]): unknown[] {
  return events.map((event) => {
    switch (event.type) {
      case "tool.execution_start":
        return [event.type, event.data.toolCallId];
      case "tool.execution_complete":
        return [event.type, event.data.toolCallId, event.data.success];
      case "external_tool.requested":
        return [event.type, event.data.toolCallId];
      case "external_tool.completed": {
        // turnloop's fields beside the SDK's `requestId`.
        const data = event.data as { toolCallId?: string; status?: string };
        return [event.type, data.toolCallId, data.status];
      }
      case "permission.completed":
        return [event.type, event.data.result.kind];
      case "assistant.message":
        return [event.type, event.data.content];
      default:
        return [event.type];
    }
  });
}

/**
 * Answers, through `session` (`tools.handlePendingToolCall`), the app's tool call whose
 * `external_tool.requested` event is in `saw`: the one for `toolCallId`, or the first. Resolves
 * with whether the server took the answer (`success`).
 */
export async function answerToolCall(
  session: CopilotSession,
  saw: readonly SessionEvent[],
  result: string,
  toolCallId?: string,
): Promise<boolean> {
  const requested = saw
    .flatMap((event) => (event.type === "external_tool.requested" ? [event.data] : []))
    .find((data) => toolCallId === undefined || data.toolCallId === toolCallId);
  const answer = await session.rpc.tools.handlePendingToolCall({
    requestId: requested?.requestId ?? "",
    result,
  });
  return answer.success;
}

/**
 * The `session.resume` events of the session's log, as the app reads them; each one's
 * `eventCount` must be the number of events stored before it (checked here, as a full read counts).
 */
export async function resumeEvents(session: CopilotSession) {
  const events = await session.getEvents();
  for (const [index, event] of events.entries()) {
    if (event.type === "session.resume") {
      expect({ eventCount: event.data.eventCount }).toEqual({ eventCount: index });
    }
  }
  return events.flatMap((event) =>
    event.type === "session.resume"
      ? [
          {
            continuePendingWork: event.data.continuePendingWork,
            sessionWasActive: event.data.sessionWasActive,
          },
        ]
      : [],
  );
}

/** The prompt of the Copilot SDK suite's scenarios with one call of `resume_external_tool`. */
export const EXTERNAL_PROMPT =
  "Use resume_external_tool with value 'beta', then reply with the result.";

/** What the app that asked saw until it went away: the prompt up to the open question or call. */
export const UNTIL_ASKED = [
  ["user.message"],
  ["assistant.turn_start"],
  ["session.usage_info"],
  ["assistant.usage"],
  ["assistant.message", ""],
];

/** The rest of the prompt once the answer came: the final reply and the end. */
export const FINAL_TURN = (reply: string) => [
  ["assistant.turn_end"],
  ["assistant.turn_start"],
  ["session.usage_info"],
  ["assistant.usage"],
  ["assistant.message", reply],
  ["assistant.turn_end"],
  ["assistant.idle"],
  ["session.idle"],
];
