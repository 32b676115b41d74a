/**
 * The permission decision's types (types only: the bundle holds no code of this module): the
 * question asked about a call and its answer, the session's standing rules, and what the rules
 * decide. permission-decision.ts decides and re-exports them.
 */

import type { FileChange, JsonObject, PermissionScope, ToolRequest } from "../events/events.js";
import type { AnyTool, McpToolOrigin, ToolKind } from "../tools/define-tool.js";
import type { GitUser } from "../tools/sandbox/configured-places.js";
import type { ServerConfigView } from "../tools/sandbox/server-programs.js";
import type { HiddenPlaces } from "./hidden-places.js";
import type { CommandConfinement } from "./permission-mode.js";
import type { PermissionRule } from "./permission-rules.js";
import type { UncoveredPart } from "./uncovered-parts.js";

/** A question to the user about one tool call. Answered by a {@link PermissionReply}. */
export interface PermissionRequest {
  requestId: string;
  toolCallId: string;
  toolName: string;
  kind: ToolKind;
  title: string;
  /** The call's arguments as the model sent them. */
  rawInput: JsonObject;
  /** Absolute paths the call touches (ACP `locations`). */
  paths: string[];
  command?: string;
  /** The rule an "always" answer records, e.g. `bash(git status)`, `edit(src/a.ts)`, `mcp(github__create_issue)`. */
  alwaysRule: string;
  /**
   * For a command: the wider "always" choice, this command's prefix (command-prefix.ts), e.g.
   * `bash(npx tape *)`, with the parts of the command it does not cover (`tail -5`), which still
   * ask. Absent when no prefix may be offered.
   */
  prefix?: { rule: string; notCovered: string[] };
  /**
   * For a command the allow rules cover in part: the parts they leave, each with why and the rule
   * that would cover it, if any (`rm a01` of `git status && rm a01`, `> out` of `echo x > out`;
   * uncovered-parts.ts).
   */
  notAllowed?: UncoveredPart[];
  /** Set for a tool of an MCP server. */
  mcp?: McpToolOrigin;
  /** Where the call's command would run; set for commands (see {@link CommandConfinement}). */
  sandbox?: CommandConfinement;
  /**
   * The whole-file change an `edit` or `create` would make, read when the question is asked
   * (tools/define-tool.ts `Tool.check`); absent for other tools and for a file too large.
   */
  change?: FileChange;
}

/** A {@link PermissionRequest} before it is given its id (the gate names each question it asks). */
export type PermissionQuestion = Omit<PermissionRequest, "requestId">;

/**
 * The user's answer. `scope: "session"` ("always") records {@link PermissionRequest.alwaysRule}
 * for the rest of the session, resume included; an allow may name `rule` instead, which the gate
 * records only when it is the request's {@link PermissionRequest.prefix} rule. ACP v1 `session/request_permission` options
 * map as allow_once / allow_always / reject_once / reject_always.
 */
export type PermissionReply =
  | {
      decision: "allow" | "deny";
      scope: PermissionScope;
      /** With `scope: "session"`: the offered rule the answer chose (see above). */
      rule?: string;
      reason?: string;
      /** A deny by the user (not "nobody could be asked"): the tool result's code is `rejected`. */
      rejected?: boolean;
      /** The tool result the model gets for a deny, when the face has its own wording. */
      content?: string;
    }
  | { decision: "cancelled" };

/** Asks the face's user. Must settle when `signal` aborts (case 04). */
export type AskPermission = (
  request: PermissionRequest,
  signal: AbortSignal,
) => Promise<PermissionReply>;

/** The session's standing rules: from flags, and "always" answers folded from the log. */
export interface PermissionPolicy {
  /** `--allow-all-tools`: everything runs without asking (deny rules still apply). */
  allowAllTools: boolean;
  /**
   * Permission mode `auto` with a working sandbox: commands run without asking (they are
   * confined), and so do edits of files inside the cwd and the folders. Default `false`.
   */
  auto?: boolean;
  /** Where commands run, shown in questions about them; absent: not said. */
  confinement?: CommandConfinement;
  /**
   * `--allow-tool` and config files' rules, then session grants; each path pattern absolute, read
   * against the folder of where it was written (session/agent-settings.ts `anchoredRules`).
   */
  allow: readonly PermissionRule[];
  /** `--deny-tool` rules, then session denials. Deny wins over allow. */
  deny: readonly PermissionRule[];
  /** Folders besides the cwd whose files may be read without asking. */
  folders: readonly string[];
  /**
   * The places the file tools keep out of whatever the mode (hidden-places.ts): the sandbox's
   * hidden places; absent: none.
   */
  hiddenPlaces?: HiddenPlaces;
  /**
   * The run's `TURNLOOP_HOME` (the session host's), whose `mcp.json` and `config.json` name MCP
   * servers too: `auto` asks before an edit of a file one of them runs (later-runs.ts
   * `laterRunReasonOf`); absent: the user's config files are not looked at.
   */
  turnloopHome?: string;
  /**
   * The session's view of the MCP config files (tools/sandbox/server-programs.ts
   * `ServerConfigView`): each read again only when it changed; absent: read at each decision.
   */
  serverConfigs?: ServerConfigView;
  /**
   * Where git finds the user's own config, whose `core.hooksPath` and includes `auto` asks before
   * an edit of (later-runs.ts), as the sandbox reads it (session/sandbox-setup.ts `gitUser`);
   * absent: this process's home folder.
   */
  gitUser?: GitUser;
}

/**
 * What the rules say about one call: it runs, it is refused (`reason` names the deny rule), or
 * the user must be asked `question`; `unclear` then says why a command is asked about even under
 * `--allow-all-tools` (it cannot be fully read while deny rules for its tool apply) and
 * `laterRun` why `auto` asks about an edit. A call that may run (at once or once the user
 * agrees) carries the files it must not show, `hidden`.
 */
export type PermissionDecision =
  | { kind: "allow"; hidden?: HiddenPaths }
  | { kind: "deny"; reason: string }
  | {
      kind: "ask";
      question: PermissionQuestion;
      unclear?: string;
      hidden?: HiddenPaths;
      /**
       * Why `auto` asks about this edit: it changes what configures later runs
       * (later-runs.ts `laterRunReasonOf`); absent: that is not why.
       */
      laterRun?: string;
    };

/**
 * Which files an allowed call that searches or lists a folder must leave out of its result:
 * those the path deny rules for reading cover (permission-rules.ts `hiddenPaths`) and the hidden
 * places (hidden-places.ts). Takes an absolute path.
 */
export type HiddenPaths = (path: string) => boolean;

/** One tool call as the rules see it: the tool, its validated input and the model's request. */
export interface PermissionSubject {
  tool: AnyTool;
  input: unknown;
  toolCall: ToolRequest;
}
