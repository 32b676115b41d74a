import type { CopilotSession, SessionEvent } from "@github/copilot-sdk";
import { defineTool } from "@github/copilot-sdk";
import { afterAll, beforeAll } from "vitest";
import { z } from "zod";
import { type Fixture, fixtureForFile, requestMessages } from "./support.js";
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
  return {
    fixture,
    get server() {
      if (server === undefined) {
        throw new Error("the server starts in beforeAll");
      }
      return server;
    },
    keptForResume: (sessionId) => {
      const said = () => stderr.includes(`session ${sessionId}: the last app left`);
      return new Promise((resolve) => {
        const check = () => (said() ? resolve() : waiters.push(check));
        check();
      });
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

/** The `session.resume` events of the session's log, as the app reads them. */
export async function resumeEvents(session: CopilotSession) {
  const events = await session.getEvents();
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

/** What the app that asked saw until it went away: the prompt up to the open question or call. */
export const UNTIL_ASKED = [
  ["user.message"],
  ["assistant.turn_start"],
  ["assistant.message", ""],
  ["assistant.usage"],
  ["session.usage_info"],
];

/** The rest of the prompt once the answer came: the final reply and the end. */
export const FINAL_TURN = (reply: string) => [
  ["assistant.turn_end"],
  ["assistant.turn_start"],
  ["assistant.message", reply],
  ["assistant.usage"],
  ["session.usage_info"],
  ["assistant.turn_end"],
  ["session.idle"],
];
