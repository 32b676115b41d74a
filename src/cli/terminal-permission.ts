import type {
  AskPermission,
  PermissionReply,
  PermissionRequest,
} from "../permissions/permission-decision.js";
import { discardTypedAhead } from "./mcp-trust-question.js";
import {
  answerFor,
  notAnAnswer,
  permissionChoices,
  TELL_QUESTION,
  toldReply,
} from "./permission-answers.js";
import { permissionHeadline, permissionPreview } from "./permission-preview.js";

/**
 * Asks on the terminal: the question and a preview of the call ({@link permissionPreview}) on
 * `output` (stderr), the choices wrapped between them at its width (text-wrap.ts), the answer
 * from `input` (a TTY), read by {@link answerFor}: `y` allows once,
 * `a` allows this exact call for the rest of the session, `p` (when offered) every call with the
 * command's prefix, `t` denies and asks for a reason that goes into the tool result for the
 * model, `n` denies, and anything else is asked again ({@link notAnAnswer}). End of input (Ctrl-D) is no answer, not a no: it calls
 * `cancelPrompt` and answers `cancelled`, as cancelling the prompt closes the question and
 * answers `cancelled` (case 04); after `t` it is a no without a reason.
 */
export function terminalPermission(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  cancelPrompt: () => void,
  color = false,
): AskPermission {
  return async (request, signal) => {
    const question = await questionText(request, color, output);
    if (signal.aborted) {
      return { decision: "cancelled" };
    }
    return answerOf(request, question, { input, output, signal, cancelPrompt });
  };
}

/** Where a question is asked and answered, and what ends it unanswered. */
interface QuestionFace {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  signal: AbortSignal;
  cancelPrompt: () => void;
}

/** The answer read from `input` to `question`, written on `output` (see {@link terminalPermission}). */
function answerOf(
  request: Parameters<AskPermission>[0],
  question: string,
  face: QuestionFace,
): Promise<PermissionReply> {
  const { input, output, signal, cancelPrompt } = face;
  return new Promise<PermissionReply>((resolve) => {
    // Loaded at the first question: a run that asks none (-p with nothing to allow, or no
    // terminal) never loads Node's readline (issue 26, bench/notes/start.md).
    const { createInterface } = process.getBuiltinModule("node:readline");
    // A line typed before the question was shown is not its answer.
    discardTypedAhead(input);
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
    output.write(question);
    const onLine = (line: string) => {
      const answer = answerFor(request, line);
      if (answer === undefined) {
        // Not one of the answers: asked again, as the plain-line face does (a fresh user's trial).
        output.write(notAnAnswer(request, line));
        lines.once("line", onLine);
      } else if (answer !== "tell") {
        finish(answer);
      } else {
        told = true;
        output.write(`  ${TELL_QUESTION} > `);
        lines.once("line", (reason) => finish(toldReply(reason)));
      }
    };
    lines.once("line", onLine);
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

/** A preview's note in brackets (where the command runs, why it is asked to run outside the sandbox). */
const PREVIEW_NOTE = /^ {4}\[/;

/**
 * The question: headline, preview, then the choices, and `> `. The headline, the preview's
 * bracketed note (a sandbox's reason can be long) and the choices are wrapped between words to
 * `output`'s width (text-wrap.ts): the terminal would break them mid-word. The command and a
 * diff are shown as they are.
 */
async function questionText(
  request: PermissionRequest,
  color: boolean,
  output: NodeJS.WritableStream,
): Promise<string> {
  // Loaded when a question is asked, not when -p starts.
  const { wrapChoices, wrapLine } = await import("./text-wrap.js");
  const width = (output as { columns?: number }).columns;
  const prose = (line: string) =>
    width === undefined || !(width > 0) ? [line] : wrapLine(line, width);
  const rows = wrapChoices(permissionChoices(request), width, "  ");
  const preview = permissionPreview(request, color).flatMap((line) =>
    PREVIEW_NOTE.test(line) ? prose(line) : [line],
  );
  const lines = [...prose(permissionHeadline(request)), ...preview, ...rows];
  return `\n${lines.join("\n")}\n> `;
}
