/**
 * The session updates an ACP session sends about itself rather than a turn: what it announces
 * once it is open, and its MCP servers' failures.
 */

import type * as acp from "@agentclientprotocol/sdk";
import type { SessionEvent } from "../events/events.js";
import { randomUUID } from "../events/random-id.js";
import { recordProjectWarnings } from "../session/project-warnings.js";
import type { RunConfig } from "../session/run-config.js";
import type { Session } from "../session/session.js";
import { mcpStatusNotice } from "../tools/mcp/servers.js";
import { availableCommands } from "./commands.js";
import { warningUpdate } from "./compaction-updates.js";
import { editorServerNotes } from "./editor-mcp-servers.js";

/**
 * What a session announces once it is open: the slash commands, what opening its log repaired
 * as an agent message, which every client shows (the `_meta` of the load or resume answer says
 * it too, for clients that read it), an untrusted project's warnings (held config keys, MCP
 * servers waiting: recorded now as `session.warning`s, once per open session, after a load's
 * replay; session/project-warnings.ts), and the MCP servers that failed by then (later
 * failures: {@link mcpFailureUpdates}). Editors hide the agent's stderr, which says them too.
 * A project warning is a `notice` (severity `warning`) for a client that offered
 * `session.notices` in `initialize`, an agent message for any other (ACP v1 schema, `Notice`:
 * agents MUST only send notices to such clients, and may use an agent message otherwise).
 */
export function openingUpdates(
  session: Session,
  config: RunConfig,
  offered: acp.ClientCapabilities | undefined,
): acp.SessionUpdate[] {
  const notice = session.repairNotice;
  const notices = offered?.session?.notices != null;
  const warnings = recordProjectWarnings(session, config).flatMap((event) =>
    event.type !== "session.warning"
      ? []
      : notices
        ? [projectNotice(event.data.message)]
        : [warningUpdate(event.data, event.id)],
  );
  const failed = (session.mcp?.list() ?? []).filter((server) => server.state === "failed");
  return [
    { sessionUpdate: "available_commands_update", availableCommands: availableCommands() },
    ...(notice === undefined
      ? []
      : [
          {
            sessionUpdate: "agent_message_chunk" as const,
            content: { type: "text" as const, text: `⚠ turnloop ${notice}\n` },
          },
        ]),
    ...warnings,
    ...editorServerNotes(session).map((line) => mcpNoticeUpdate(`⚠ ${line}\n`)),
    ...failed.flatMap(({ name, state, error }) =>
      mcpStatusUpdates({
        serverName: name,
        status: state,
        ...(error === undefined ? {} : { error }),
      }),
    ),
  ];
}

/** An untrusted project's warning as an ACP v1 `notice` (live only: never replayed). */
function projectNotice(message: string): acp.SessionUpdate {
  return {
    sessionUpdate: "notice",
    severity: "warning",
    title: "This project is not trusted",
    description: message,
  };
}

/**
 * An MCP server `failed`, or still `pending` with an `error` once a prompt's start-up wait is
 * over (`session.mcp_server_status_changed`), as an agent message: ACP v1 has no update for a
 * server's state (its stable `SessionUpdate`s: messages, thoughts, plans, tool calls, commands,
 * mode, config options, usage, session info), and editors hide the agent's stderr. `[]` else.
 */
export function mcpFailureUpdates(event: SessionEvent): acp.SessionUpdate[] {
  return event.type === "session.mcp_server_status_changed" ? mcpStatusUpdates(event.data) : [];
}

/** A server's status change in every face's words ({@link mcpStatusNotice}), marked `⚠`. */
function mcpStatusUpdates(change: Parameters<typeof mcpStatusNotice>[0]): acp.SessionUpdate[] {
  const notice = mcpStatusNotice(change);
  return notice === undefined ? [] : [mcpNoticeUpdate(`⚠ ${notice}\n`)];
}

function mcpNoticeUpdate(text: string): acp.SessionUpdate {
  return {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text },
    messageId: randomUUID(),
  };
}
