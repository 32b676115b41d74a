import { createInterface } from "node:readline";
import type { AskPermission, PermissionReply } from "../agent/permission-gate.js";

/**
 * Asks on the terminal: the question on `output` (stderr), the answer from `input` (a TTY). `y`
 * allows once, `a` allows this exact call for the rest of the session, `n` (or anything else)
 * denies; end of input denies. Cancelling the prompt closes the question and answers `cancelled`
 * (case 04).
 */
export function terminalPermission(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): AskPermission {
  return (request, signal) =>
    new Promise<PermissionReply>((resolve) => {
      const lines = createInterface({ input, output, terminal: false });
      let settled = false;
      const finish = (reply: PermissionReply) => {
        // Closing the interface emits `close` at once, which must not overwrite the answer.
        if (settled) {
          return;
        }
        settled = true;
        signal.removeEventListener("abort", onAbort);
        lines.close();
        resolve(reply);
      };
      const onAbort = () => finish({ decision: "cancelled" });
      signal.addEventListener("abort", onAbort, { once: true });
      const detail = request.command ?? request.paths.join(", ");
      const action = request.title.charAt(0).toLowerCase() + request.title.slice(1);
      const shown = detail === "" || request.title.includes(detail) ? "" : ` (${detail})`;
      output.write(
        `\nturnloop wants to ${action}${shown}\n` +
          `  [y] yes, once   [a] yes, always for ${request.alwaysRule} in this session   [n] no\n> `,
      );
      lines.once("line", (line) => {
        const answer = line.trim().toLowerCase();
        if (answer === "y" || answer === "yes") {
          finish({ decision: "allow", scope: "once" });
        } else if (answer === "a" || answer === "always") {
          finish({ decision: "allow", scope: "session" });
        } else {
          finish({ decision: "deny", scope: "once", reason: "the user said no" });
        }
      });
      lines.once("close", () => finish({ decision: "deny", scope: "once", reason: "no answer" }));
    });
}
