/**
 * A session's grants: the rules of its "always" answers (`permission.completed` with scope
 * `session`), folded from its log so that they survive resume (`/permissions` lists them, an SDK
 * app's `session.permissions.resetSessionApprovals` and `modifyRules` replace them).
 */

import type { SessionEvent } from "../events/events.js";
import type { RuleSource } from "../permissions/permission-mode.js";
import { type PermissionRule, parseRule } from "../permissions/permission-rules.js";

/** A grant recorded by an "always" answer. */
const ANSWERED: RuleSource = { kind: "session", how: "by an earlier answer" };
/** Grants set by an app (SDK `modifyRules`) or kept by an import (`session.grants_changed`). */
const SET: RuleSource = { kind: "session", how: "by the app (or kept by an import)" };

export class SessionGrants {
  readonly allow: PermissionRule[] = [];
  readonly deny: PermissionRule[] = [];

  /**
   * Records the rule of `event` when it is a session-scoped allow or deny with a rule; takes the
   * rules of a `session.grants_changed` in place of the ones before.
   */
  record(event: SessionEvent): void {
    if (event.type === "session.grants_changed") {
      this.clear();
      this.allow.push(...parsedRules(event.data.allow, SET));
      this.deny.push(...parsedRules(event.data.deny, SET));
      return;
    }
    if (event.type !== "permission.completed" || event.data.scope !== "session") {
      return;
    }
    const { rule, decision } = event.data;
    if (rule === undefined || decision === "cancelled") {
      return;
    }
    try {
      (decision === "allowed" ? this.allow : this.deny).push({
        ...parseRule(rule),
        source: ANSWERED,
      });
    } catch {
      // A damaged rule in the log grants nothing.
    }
  }

  /** Drops every grant. */
  clear(): void {
    this.allow.length = 0;
    this.deny.length = 0;
  }
}

/** The rules of `texts` that parse; a damaged rule in the log grants nothing. */
function parsedRules(texts: readonly string[], source: RuleSource): PermissionRule[] {
  return texts.flatMap((text) => {
    try {
      return [{ ...parseRule(text), source }];
    } catch {
      return [];
    }
  });
}
