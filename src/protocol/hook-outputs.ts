/**
 * The shapes of the hooks' outputs (src/protocol/hooks.ts `HookOutputs`: the Copilot SDK's
 * `…HookOutput` types in its `dist/types.d.ts`), checked where an app's answer arrives: by the
 * server before it follows an answer (src/server/hooks.ts), and by `turnloop/sdk` to warn the app
 * (src/sdk/hook-answers.ts). An answer of another shape is followed in no part: it has no opinion,
 * `hook.end` records `success: false` with the problem in the server's words (plain-problems.ts).
 * Objects are loose: a field turnloop does not read is kept in the log and changes nothing.
 */

import { z } from "zod";
import type { HookType } from "../events/events.js";
import { preToolUseProblem } from "./hooks.js";
import { checkValue, shownValue } from "./plain-problems.js";

const text = z.string().optional();
const suppressOutput = z.boolean().optional();

/** Each hook's output but `preToolUse`'s, whose problems {@link preToolUseProblem} words. */
const OUTPUTS: Record<Exclude<HookType, "preToolUse">, z.ZodType> = {
  postToolUse: z.looseObject({
    modifiedResult: z
      .union([z.string(), z.looseObject({ textResultForLlm: z.string() })])
      .optional(),
    additionalContext: text,
    suppressOutput,
  }),
  postToolUseFailure: z.looseObject({ additionalContext: text }),
  userPromptSubmitted: z.looseObject({
    modifiedPrompt: text,
    additionalContext: text,
    suppressOutput,
  }),
  userPromptTransformed: z.looseObject({ modifiedTransformedPrompt: text }),
  sessionStart: z.looseObject({ additionalContext: text }),
  sessionEnd: z.looseObject({ suppressOutput }),
  agentStop: z.looseObject({ decision: z.enum(["block", "allow"]).optional(), reason: text }),
  errorOccurred: z.looseObject({
    errorHandling: z.enum(["retry", "skip", "abort"]).optional(),
    retryCount: z.number().optional(),
    userNotification: text,
    suppressOutput,
  }),
};

/**
 * Why `output`, the app's answer to hook `hookType`, is of a shape the runtime does not follow,
 * in one line (`modifiedPrompt must be a string, not 42`); undefined for nothing, `null`, or an
 * answer of the hook's shape.
 */
export function hookOutputProblem(hookType: HookType, output: unknown): string | undefined {
  if (hookType === "preToolUse") {
    return preToolUseProblem(output);
  }
  if (output === undefined || output === null) {
    return undefined;
  }
  if (typeof output !== "object" || Array.isArray(output)) {
    return `its answer must be an object or nothing, not ${shownValue(output)}`;
  }
  const checked = checkValue(OUTPUTS[hookType], output, "its answer");
  return checked.ok ? undefined : checked.problems.join("; ");
}
