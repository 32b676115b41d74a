import type * as acp from "@agentclientprotocol/sdk";
import type { SessionHost } from "../session/host.js";
import { describeAutoMode, type HostSandbox, permissionModeOf } from "../session/sandbox-setup.js";
import type { Session } from "../session/session.js";
import type { SandboxPolicy } from "../tools/sandbox/policy.js";
import type { ModeId } from "./modes.js";

/**
 * What an ACP session tells its client when its commands should run in the sandbox and
 * bubblewrap cannot run here (README, "Sandbox": permission mode `auto` says so once and falls
 * back to asking; never silently unconfined, as `-p`'s warning says it). The `sandbox` config
 * option then reads `unavailable` with the reason (modes.ts `configOptions`), and the warning is
 * said once per session: a `notice` (severity `warning`) to a client that offered
 * `session.notices` in `initialize`, an agent message to any other (ACP v1 schema, `Notice`:
 * agents MUST only send notices to such clients), as an untrusted project's warnings are
 * (opening-updates.ts).
 */
export class SandboxNotice {
  private warned = false;

  constructor(
    private readonly sandbox: () => HostSandbox,
    private readonly offered: acp.ClientCapabilities | undefined,
    private readonly send: (update: acp.SessionUpdate) => void,
  ) {}

  /** Probes bubblewrap (once per host) when `policy` confines; never rejects. */
  async probe(policy: SandboxPolicy): Promise<void> {
    if (policy !== "danger-full-access") {
      await this.sandbox().availability();
    }
  }

  /** Why `policy` cannot confine here, once the probe said so; `undefined` else. */
  unavailable(policy: SandboxPolicy): string | undefined {
    return policy === "danger-full-access" ? undefined : this.sandbox().unavailableReason();
  }

  /** Sends the warning the first time {@link unavailable} has a reason for `policy`. */
  warnOnce(policy: SandboxPolicy): void {
    const reason = this.unavailable(policy);
    if (reason === undefined || this.warned) {
      return;
    }
    this.warned = true;
    const message = `No sandbox can run here, so commands and edits ask first and run unconfined once allowed: ${reason}`;
    const notices = this.offered?.session?.notices != null;
    this.send(
      notices
        ? {
            sessionUpdate: "notice",
            severity: "warning",
            title: "Sandbox unavailable",
            description: message,
          }
        : {
            sessionUpdate: "agent_message_chunk",
            content: { type: "text", text: `⚠ ${message}\n` },
          },
    );
  }

  /**
   * The policy of `session`'s commands in `mode` (`chosen`: its `sandbox` option), what mode
   * `auto` lets run without asking, and why no sandbox can run here, once probed.
   */
  view(host: SessionHost, session: Session, mode: ModeId, chosen: SandboxPolicy | undefined) {
    const config = host.configOf(session);
    const policyIn = (which: ModeId) =>
      host.sandboxOf(session).policyFor(permissionModeOf(which, config), chosen);
    const policy = policyIn(mode);
    const available = this.unavailable(policyIn("auto")) === undefined;
    const auto = describeAutoMode(config, chosen, available);
    return { policy, auto, unavailable: this.unavailable(policy) };
  }
}
