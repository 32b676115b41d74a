/**
 * The session updates an ACP session sends about itself rather than a turn: what it announces
 * once it is open, and its MCP servers' failures.
 */

import type * as acp from "@agentclientprotocol/sdk";
import type { SessionEvent } from "../events/events.js";
import { logProjectWarnings, recordProjectWarnings } from "../session/project-warnings.js";
import type { Session } from "../session/session.js";
import { mcpStatusNotice } from "../tools/mcp/status-notice.js";
import { availableCommands } from "./commands.js";
import { editorServerNotes } from "./editor-mcp-servers.js";
import { noticeUpdate, offersNotices, recordedNotice } from "./notices.js";
import type { AcpSessionContext } from "./session-context.js";

/**
 * What a session announces once it is open: the slash commands, what opening its log repaired
 * (the `_meta` of the load or resume answer says it too, for clients that read it), an untrusted
 * project's warnings (held config keys, MCP servers waiting: recorded now as `session.warning`s,
 * once per open session, after a load's replay; session/project-warnings.ts), and the MCP
 * servers that failed by then (later failures: {@link mcpFailureUpdates}). Editors hide the
 * agent's stderr, which says them too (project-warnings.ts `logProjectWarnings`). Each is a notice of
 * turnloop's own (notices.ts: a `notice` to a client that offered `session.notices`, else a
 * thought, never the reply). `context`: the connection's host (the session's run config), the
 * client's capabilities and `log` (stderr).
 */
export function openingUpdates(
  session: Session,
  context: Pick<AcpSessionContext, "host" | "offered" | "log">,
): acp.SessionUpdate[] {
  const { host, offered } = context;
  const config = host.configOf(session);
  logProjectWarnings(config, host.config, context.log);
  const repaired = session.repairNotice;
  const notices = offersNotices(offered);
  const warnings = recordProjectWarnings(session, config).flatMap((event) =>
    event.type !== "session.warning" ? [] : [noticeUpdate(recordedNotice(event), notices)],
  );
  const failed = (session.mcp?.list() ?? []).filter((server) => server.state === "failed");
  const repair = { severity: "warning", title: "Session log repaired" } as const;
  return [
    { sessionUpdate: "available_commands_update", availableCommands: availableCommands() },
    ...(repaired === undefined
      ? []
      : [noticeUpdate({ ...repair, text: `turnloop ${repaired}` }, notices)]),
    ...warnings,
    ...editorServerNotes(session).map((line) => mcpNotice(line, notices)),
    ...failed.flatMap(({ name, state, error }) =>
      mcpStatusUpdates(
        { serverName: name, status: state, ...(error === undefined ? {} : { error }) },
        notices,
      ),
    ),
  ];
}

/**
 * An MCP server `failed`, or still `pending` with an `error` once a prompt's start-up wait is
 * over (`session.mcp_server_status_changed`), as a notice of turnloop's own (`offered`: the
 * client's capabilities): ACP v1 has no update for a server's state, and editors
 * hide the agent's stderr. `[]` else.
 */
export function mcpFailureUpdates(
  event: SessionEvent,
  offered: acp.ClientCapabilities | undefined,
): acp.SessionUpdate[] {
  return event.type === "session.mcp_server_status_changed"
    ? mcpStatusUpdates(event.data, offersNotices(offered))
    : [];
}

/** A server's status change in every face's words ({@link mcpStatusNotice}). */
function mcpStatusUpdates(
  change: Parameters<typeof mcpStatusNotice>[0],
  notices: boolean,
): acp.SessionUpdate[] {
  const notice = mcpStatusNotice(change);
  return notice === undefined ? [] : [mcpNotice(notice, notices)];
}

function mcpNotice(text: string, notices: boolean): acp.SessionUpdate {
  return noticeUpdate({ severity: "warning", title: "MCP server", text }, notices);
}
