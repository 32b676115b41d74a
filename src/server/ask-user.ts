/**
 * Copilot's `ask_user` tool on the SDK face: offered when the app registered a user-input handler
 * (`requestUserInput: true` in `session.create` / `session.resume`); a call asks the app with
 * `userInput.request {sessionId, question, choices?, allowFreeform?}` and the model reads its
 * `{answer, wasFreeform}` (Copilot protocol v3: the `@github/copilot-sdk` 1.0.14 client's
 * `userInput.request` handler, `UserInputResponse` in its `dist/types.d.ts`).
 */

import { z } from "zod";
import { errorMessage } from "../events/errors.js";
import { checkValue, shownValue } from "../protocol/plain-problems.js";
import type { AnyTool } from "../tools/define-tool.js";
import { defineTool } from "../tools/define-tool.js";
import type { ClientLink } from "./client-link.js";

const askUserInput = z.object({
  question: z.string().min(1),
  choices: z.array(z.string()).optional(),
  allow_freeform: z.boolean().optional(),
});

const answerSchema = z.looseObject({ answer: z.string(), wasFreeform: z.boolean().optional() });

/**
 * The text the model reads for the app's answer `value`: its `answer`, or one line naming the
 * shape expected (the Copilot SDK's `UserInputResponse`) and what is wrong with it.
 */
function answerText(value: unknown): { content: string; isError: boolean } {
  const checked = checkValue(answerSchema, value, "the answer");
  return checked.ok
    ? { content: checked.value.answer, isError: false }
    : {
        content: `The user did not answer: the app answered ${shownValue(value)}, not {answer: string, wasFreeform: boolean} (${checked.problems.join("; ")})`,
        isError: true,
      };
}

/** The `ask_user` tool of one session, asking through `link` (none: the tool is not offered). */
export function askUserTools(
  requestUserInput: boolean | undefined,
  link: ClientLink | undefined,
  sessionId: string,
): AnyTool[] {
  if (requestUserInput !== true || link === undefined) {
    return [];
  }
  const tool = defineTool<z.infer<typeof askUserInput>>({
    name: "ask_user",
    description:
      "Ask the user a question and wait for the answer. Use it when you need a decision or " +
      "information only the user has; offer choices when there are a few clear options.",
    input: askUserInput,
    kind: "think",
    mutates: false,
    scope: (input) => ({ title: `Ask: ${input.question}`, paths: [] }),
    execute: async (input, context) => {
      const params = {
        sessionId,
        question: input.question,
        ...(input.choices === undefined ? {} : { choices: input.choices }),
        ...(input.allow_freeform === undefined ? {} : { allowFreeform: input.allow_freeform }),
      };
      try {
        return answerText(await link.request("userInput.request", params, context.signal));
      } catch (error) {
        return { content: `The user did not answer: ${errorMessage(error)}`, isError: true };
      }
    },
  });
  return [tool as AnyTool];
}
