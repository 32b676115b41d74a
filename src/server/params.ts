/**
 * Validation of request params. Every method's params go through one of these schemas, so a
 * handler only ever sees well-typed params and a client gets `-32602` with a readable message
 * ("Invalid params for session.send: ✖ Invalid input: expected string → at prompt").
 *
 * Objects are loose: Copilot SDK apps send many fields turnloop does not read, and those must not
 * be errors.
 */

import { ResponseError } from "vscode-jsonrpc";
import { z } from "zod";
import { SESSION_ID_PATTERN } from "../session/paths.js";
import { ErrorCode } from "./protocol.js";

const jsonObject = z.record(z.string(), z.json());

export const sessionIdSchema = z
  .string()
  .regex(SESSION_ID_PATTERN, "expected letters, digits, '-' or '_' (at most 128), e.g. a UUID");

const modeSchema = z.enum(["interactive", "autopilot"], {
  error: "turnloop supports the modes interactive and autopilot",
});

const toolDeclarationSchema = z.looseObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "tool names are 1-64 letters, digits, '_' or '-'"),
  description: z.string().optional(),
  parameters: jsonObject.optional(),
  skipPermission: z.boolean().optional(),
  overridesBuiltInTool: z.boolean().optional(),
  /** turnloop: the tool changes nothing, so calls may run in parallel without asking. */
  readOnly: z.boolean().optional(),
});

/** A custom tool declaration as validated (see {@link ToolDeclaration} in protocol.ts). */
export type ToolDeclarationParams = z.infer<typeof toolDeclarationSchema>;

const providerSchema = z.looseObject({
  type: z.enum(["openai", "azure", "anthropic"]).optional(),
  wireApi: z.enum(["completions", "responses"]).optional(),
  baseUrl: z.string().min(1),
  apiKey: z.string().optional(),
  bearerToken: z.string().optional(),
});

export type ProviderParams = z.infer<typeof providerSchema>;

const sessionConfigShape = {
  model: z.string().min(1).optional(),
  provider: providerSchema.optional(),
  tools: z.array(toolDeclarationSchema).optional(),
  systemMessage: z
    .looseObject({
      mode: z.enum(["append", "replace", "customize"]).optional(),
      content: z.string().optional(),
    })
    .optional(),
  requestPermission: z.boolean().optional(),
  hooks: z.boolean().optional(),
  streaming: z.boolean().optional(),
  workingDirectory: z.string().min(1).optional(),
  allowAllTools: z.boolean().optional(),
  mode: modeSchema.optional(),
};

export const createParams = z.looseObject({
  ...sessionConfigShape,
  sessionId: sessionIdSchema.optional(),
});
export type CreateParams = z.infer<typeof createParams>;

export const resumeParams = z.looseObject({ ...sessionConfigShape, sessionId: sessionIdSchema });

const attachmentSchema = z.union([
  z.looseObject({
    type: z.enum(["file", "directory"]),
    path: z.string(),
    displayName: z.string().optional(),
  }),
  z.looseObject({
    type: z.literal("selection"),
    filePath: z.string(),
    text: z.string(),
    displayName: z.string().optional(),
  }),
]);

export const sendParams = z.looseObject({
  sessionId: sessionIdSchema,
  prompt: z.string(),
  attachments: z.array(attachmentSchema).optional(),
  mode: z.enum(["enqueue", "immediate"]).optional(),
  agentMode: modeSchema.optional(),
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

export const connectParams = z.looseObject({ token: z.string().optional() }).optional();

export const pingParams = z.looseObject({ message: z.string().optional() }).optional();

/**
 * Parses `params` with `schema`.
 * @throws ResponseError `-32602` naming the method and what is wrong, for the client to show.
 */
export function parseParams<Schema extends z.ZodType>(
  method: string,
  schema: Schema,
  params: unknown,
): z.infer<Schema> {
  const result = schema.safeParse(params ?? undefined);
  if (!result.success) {
    const detail = z.prettifyError(result.error).replace(/\s*\n\s*/g, " ");
    throw new ResponseError(ErrorCode.invalidParams, `Invalid params for ${method}: ${detail}`);
  }
  return result.data;
}

/** `-32602` with `message`, for params that parse but do not make sense (unknown session …). */
export function invalidParams(message: string): ResponseError<void> {
  return new ResponseError(ErrorCode.invalidParams, message);
}
