import { createInterface } from "node:readline";
import type { AskPermission, PermissionReply } from "../permissions/permission-decision.js";
import { permissionHeadline, permissionPreview } from "./permission-preview.js";

/**
 * Asks on the terminal: the question and a preview of the call ({@link permissionPreview}) on
 * `output` (stderr), the answer from `input` (a TTY). `y` allows once, `a` allows this exact call
 * for the rest of the session, `t` denies and asks for a reason that goes into the tool result for
 * the model, `n` (or anything else) denies; end of input denies. Cancelling the prompt closes the
 * question and answers `cancelled` (case 04).
 */
export function terminalPermission(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  color = false,
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
      const preview = permissionPreview(request, color);
      output.write(
        `\n${permissionHeadline(request)}\n` +
          preview.map((line) => `${line}\n`).join("") +
          `  [y] yes, once   [a] yes, always for ${request.alwaysRule} in this session   [n] no   [t] no, and tell the model why\n> `,
      );
      lines.once("line", (line) => {
        const answer = line.trim().toLowerCase();
        if (answer === "y" || answer === "yes") {
          finish({ decision: "allow", scope: "once" });
        } else if (answer === "a" || answer === "always") {
          finish({ decision: "allow", scope: "session" });
        } else if (answer === "t" || answer === "tell") {
          output.write("  what should the model know? > ");
          lines.once("line", (reason) => {
            const said = reason.trim();
            finish({
              decision: "deny",
              scope: "once",
              reason: said === "" ? "the user said no" : `the user said no: ${said}`,
            });
          });
        } else {
          finish({ decision: "deny", scope: "once", reason: "the user said no" });
        }
      });
      lines.once("close", () => finish({ decision: "deny", scope: "once", reason: "no answer" }));
    });
}
