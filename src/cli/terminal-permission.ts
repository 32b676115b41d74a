import { createInterface } from "node:readline";
import type { AskPermission, PermissionReply } from "../permissions/permission-decision.js";
import { answerFor, prefixChoice, SAID_NO, toldReply } from "./permission-answers.js";
import { permissionHeadline, permissionPreview } from "./permission-preview.js";

/**
 * Asks on the terminal: the question and a preview of the call ({@link permissionPreview}) on
 * `output` (stderr), the answer from `input` (a TTY), read by {@link answerFor}: `y` allows once,
 * `a` allows this exact call for the rest of the session, `p` (when offered) every call with the
 * command's prefix, `t` denies and asks for a reason that goes into the tool result for the
 * model, `n` (or anything else) denies. End of input (Ctrl-D) is no answer, not a no: it calls
 * `cancelPrompt` and answers `cancelled`, as cancelling the prompt closes the question and
 * answers `cancelled` (case 04); after `t` it is a no without a reason.
 */
export function terminalPermission(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  cancelPrompt: () => void,
  color = false,
): AskPermission {
  return (request, signal) =>
    new Promise<PermissionReply>((resolve) => {
      const lines = createInterface({ input, output, terminal: false });
      let settled = false;
      let told = false;
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
      const prefix = prefixChoice(request, "yes, always for");
      output.write(
        `\n${permissionHeadline(request)}\n` +
          preview.map((line) => `${line}\n`).join("") +
          `  [y] yes, once   [a] yes, always for ${request.alwaysRule} in this session   ` +
          (prefix === undefined ? "" : `${prefix}   `) +
          "[n] no   [t] no, and tell the model why\n> ",
      );
      lines.once("line", (line) => {
        const answer = answerFor(request, line) ?? SAID_NO;
        if (answer !== "tell") {
          finish(answer);
          return;
        }
        told = true;
        output.write("  what should the model know? > ");
        lines.once("line", (reason) => finish(toldReply(reason)));
      });
      lines.once("close", () => {
        if (settled) {
          return;
        }
        output.write("\n");
        if (told) {
          // `t` was a no: it stays one, without a reason.
          finish(toldReply(""));
          return;
        }
        cancelPrompt();
        finish({ decision: "cancelled" });
      });
    });
}
