/**
 * Validation of request params. Every method's params go through one of these schemas, so a
 * handler only ever sees well-typed params and a client gets `-32602` naming each wrong field,
 * what it must be and what was given ("session.send: prompt must be a string, not 3",
 * src/protocol/plain-problems.ts). The session settings of `session.create` / `session.resume`
 * are described once, in src/protocol/session-settings.ts, which the SDK checks with too.
 *
 * Objects are loose: Copilot SDK apps send many fields turnloop does not read, and those must not
 * be errors.
 */

import { ResponseError } from "vscode-jsonrpc";
import { z } from "zod";
import { imageDataProblem } from "../llm/image-data.js";
import { ErrorCode } from "../protocol/copilot.js";
import { checkValue } from "../protocol/plain-problems.js";
import { modeSchema, sessionIdSchema } from "../protocol/session-settings.js";

export {
  type CreateParams,
  createParams,
  modeSchema,
  type ProviderParams,
  resumeParams,
  type SystemMessageParams,
  sessionIdSchema,
  type ToolDeclarationParams,
} from "../protocol/session-settings.js";

const position = z.looseObject({ line: z.number().int().min(0) });

const attachmentSchema = z.discriminatedUnion(
  "type",
  [
    z.looseObject({
      type: z.enum(["file", "directory"]),
      path: z.string(),
      displayName: z.string().optional(),
      /** The lines the app points at (1-based, inclusive), as the Copilot SDK forwards them. */
      lineRange: z
        .looseObject({ start: z.number().int().min(1), end: z.number().int().min(1) })
        .optional(),
    }),
    z.looseObject({
      type: z.literal("selection"),
      filePath: z.string(),
      text: z.string(),
      displayName: z.string().optional(),
      /** 0-based lines, as Copilot sends them. */
      selection: z.looseObject({ start: position, end: position }).optional(),
    }),
    z.looseObject({
      type: z.literal("blob"),
      /**
       * Base64 (RFC 4648 section 4), checked here: an image the provider cannot decode would fail
       * every later request of the session, which keeps it (llm/image-data.ts).
       */
      data: z.string().refine((data) => imageDataProblem(data) === undefined, {
        error:
          'base64 (the letters A-Z a-z 0-9 + / in groups of four, "=" padding at the end only)',
      }),
      mimeType: z.string().min(1),
      displayName: z.string().optional(),
    }),
  ],
  {
    // Said of `type` when the attachment is an object, else of the attachment.
    error: (issue) =>
      typeof issue.input === "object" && issue.input !== null
        ? 'one of "file", "directory", "selection", "blob"'
        : "an attachment (an object of type file, directory, selection or blob)",
  },
);

export const sendParams = z.looseObject({
  sessionId: sessionIdSchema,
  prompt: z.string(),
  attachments: z.array(attachmentSchema).optional(),
  /** `enqueue` / `immediate`; a session mode here (`plan` …) is taken as `agentMode`. */
  mode: z.enum(["enqueue", "immediate", "interactive", "plan", "autopilot", "shell"]).optional(),
  agentMode: modeSchema.optional(),
  /** HTTP headers added to this prompt's model requests. */
  requestHeaders: z.record(z.string(), z.string()).optional(),
});
export type SendParams = z.infer<typeof sendParams>;

export const sessionOnlyParams = z.looseObject({ sessionId: sessionIdSchema });

export const listParams = z
  .looseObject({
    filter: z.looseObject({ cwd: z.string().optional() }).optional(),
  })
  .optional();

export const modeSetParams = z.looseObject({ sessionId: sessionIdSchema, mode: modeSchema });

export const modelSwitchParams = z.looseObject({
  sessionId: sessionIdSchema,
  modelId: z.string().min(1),
  reasoningEffort: z.string().min(1).optional(),
});

/** `session.history.compact`: optional instructions for the summary (Copilot: `customInstructions`). */
export const historyCompactParams = z.looseObject({
  sessionId: sessionIdSchema,
  customInstructions: z.string().optional(),
  instructions: z.string().optional(),
});

export const toolAnswerParams = z.looseObject({
  sessionId: sessionIdSchema,
  requestId: z.string().min(1),
  result: z
    .union([
      z.string(),
      z.looseObject({
        textResultForLlm: z.string(),
        resultType: z.string().optional(),
        error: z.string().optional(),
      }),
    ])
    .optional(),
  error: z.string().optional(),
});

export const permissionAnswerParams = z.looseObject({
  sessionId: sessionIdSchema,
  requestId: z.string().min(1),
  result: z.looseObject({ kind: z.string().min(1), feedback: z.string().optional() }),
});

export type PermissionAnswerParams = z.infer<typeof permissionAnswerParams>;

export const connectParams = z.looseObject({ token: z.string().optional() }).optional();

export const pingParams = z.looseObject({ message: z.string().optional() }).optional();

/**
 * Parses `params` with `schema`.
 * @throws ResponseError `-32602`: `<method>: <field> must be <what>, not <given>`, each problem
 * of the params so, joined with "; " (plain-problems.ts).
 */
export function parseParams<Schema extends z.ZodType>(
  method: string,
  schema: Schema,
  params: unknown,
): z.infer<Schema> {
  const checked = checkValue(schema, params ?? undefined, "the params");
  if (!checked.ok) {
    throw new ResponseError(ErrorCode.invalidParams, `${method}: ${checked.problems.join("; ")}`);
  }
  return checked.value;
}

/** `-32602` with `message`, for params that parse but do not make sense (unknown session …). */
export function invalidParams(message: string): ResponseError<void> {
  return new ResponseError(ErrorCode.invalidParams, message);
}

/**
 * `-32602` for a method naming `sessionId` after an app deleted it (`session.delete`): Copilot's
 * "Session not found", and why, for the app that did not delete it (its own or a follower's send).
 */
export function sessionDeleted(sessionId: string): ResponseError<void> {
  return invalidParams(deletedWords(sessionId));
}

/** What every method naming a session an app deleted says ({@link sessionDeleted}). */
export function deletedWords(sessionId: string): string {
  return `Session not found: ${sessionId} (it was deleted: session.delete)`;
}
