import type {
  AskPermission,
  PermissionReply,
  PermissionRequest,
} from "../permissions/permission-decision.js";
import { lineQuestions } from "./mcp-trust-question.js";
import {
  answerFor,
  notAnAnswer,
  permissionChoices,
  SAID_NO,
  TELL_QUESTION,
  toldReply,
} from "./permission-answers.js";
import { permissionHeadline, permissionPreview } from "./permission-preview.js";

/**
 * Asks on the terminal: the question and a preview of the call ({@link permissionPreview}) on
 * `output` (stderr), the choices wrapped between them at its width (text-wrap.ts), the answer
 * from `input` (a TTY), read by {@link answerFor}: `y` allows once,
 * `a` (when offered) allows this exact call for the rest of the session, `p` (when offered) every call with the
 * command's prefix, `t` denies and asks for a reason that goes into the tool result for the
 * model, `n` (or Esc, on a terminal) denies, and anything else is asked again ({@link notAnAnswer}). End of input (Ctrl-D) is no answer, not a no: it calls
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

/**
 * The answer read from `input` to `question`, written on `output` (see {@link terminalPermission}),
 * by the line reader of every line question (mcp-trust-question.ts `lineQuestions`): Esc is a
 * no, as at the trust questions.
 */
async function answerOf(
  request: Parameters<AskPermission>[0],
  question: string,
  face: QuestionFace,
): Promise<PermissionReply> {
  const { input, output, signal, cancelPrompt } = face;
  const questions = lineQuestions({ input, output }, signal);
  try {
    let answer = await questions.ask(question);
    for (;;) {
      if (!("line" in answer)) {
        return unanswered(answer.ended, cancelPrompt, output);
      }
      const reply = answerFor(request, answer.line);
      if (reply === "tell") {
        const reason = await questions.ask(`  ${TELL_QUESTION} > `);
        if ("line" in reason) {
          return toldReply(reason.line);
        }
        // Esc or end of input after `t`: it stays a no, without a reason.
        return reason.ended === "aborted" ? { decision: "cancelled" } : toldReply("");
      }
      if (reply !== undefined) {
        return reply;
      }
      // Not one of the answers: asked again, as the plain-line face does (a fresh user's trial).
      answer = await questions.ask(notAnAnswer(request, answer.line));
    }
  } finally {
    questions.close();
  }
}
/**
 * A question that ended unanswered: Esc is a no; end of input (Ctrl-D) is no answer, not a no —
 * it cancels the prompt (case 04); a cancelled prompt (the signal) answers `cancelled`.
 */
function unanswered(
  ended: "escape" | "end" | "aborted",
  cancelPrompt: () => void,
  output: NodeJS.WritableStream,
): PermissionReply {
  switch (ended) {
    case "escape":
      return SAID_NO;
    case "end":
      output.write("\n");
      cancelPrompt();
      return { decision: "cancelled" };
    case "aborted":
      return { decision: "cancelled" };
  }
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
