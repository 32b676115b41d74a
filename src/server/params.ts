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
import { ErrorCode } from "../protocol/copilot.js";
import { SESSION_ID_PATTERN } from "../session/paths.js";
import { SANDBOX_POLICIES } from "../tools/sandbox/policy.js";
import { infiniteSessionsSchema } from "./infinite-sessions.js";

const jsonObject = z.record(z.string(), z.json());

export const sessionIdSchema = z
  .string()
  .regex(SESSION_ID_PATTERN, "expected letters, digits, '-' or '_' (at most 128), e.g. a UUID");

const modeSchema = z.enum(["interactive", "plan", "autopilot", "shell"], {
  error: "the modes are interactive, plan, autopilot and shell",
});

const systemMessageSchema = z.looseObject({
  mode: z.enum(["append", "replace", "customize"]).optional(),
  content: z.string().optional(),
  /** `customize`: Copilot's section ids → `{action, content?}`; `transform` asks the app. */
  sections: z
    .record(
      z.string(),
      z.looseObject({
        action: z.enum(["replace", "remove", "append", "prepend", "preserve", "transform"]),
        content: z.string().optional(),
      }),
    )
    .optional(),
});
export type SystemMessageParams = z.infer<typeof systemMessageSchema>;

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

/** A custom tool declaration as validated (see {@link ToolDeclaration} in `src/protocol/copilot.ts`). */
export type ToolDeclarationParams = z.infer<typeof toolDeclarationSchema>;

const providerSchema = z.looseObject({
  type: z.enum(["openai", "azure", "anthropic"]).optional(),
  wireApi: z.enum(["completions", "responses"]).optional(),
  baseUrl: z.string().min(1),
  apiKey: z.string().optional(),
  bearerToken: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  /** Copilot's catalogue id of the model, used as its name when `model` is absent. */
  modelId: z.string().min(1).optional(),
  /** The model name sent on the wire (wins over `model` and `modelId`). */
  wireModel: z.string().min(1).optional(),
});

export type ProviderParams = z.infer<typeof providerSchema>;

const sessionConfigShape = {
  model: z.string().min(1).optional(),
  provider: providerSchema.optional(),
  tools: z.array(toolDeclarationSchema).optional(),
  systemMessage: systemMessageSchema.optional(),
  /**
   * Only tools matching these filters (names, or `builtin:`/`custom:`/`mcp:` qualified, see
   * tool-filter.ts) are offered; `[]`: none. Absent: all.
   */
  availableTools: z.array(z.string()).optional(),
  /** Tools matching these filters are not offered, even when `availableTools` matches them. */
  excludedTools: z.array(z.string()).optional(),
  /** Copilot's default agent: its `excludedTools` are excluded (turnloop has no sub-agents). */
  defaultAgent: z.looseObject({ excludedTools: z.array(z.string()).optional() }).optional(),
  /** The app's name, sent in the model requests' user agent. */
  clientName: z.string().optional(),
  reasoningEffort: z.string().min(1).optional(),
  requestPermission: z.boolean().optional(),
  /** The app answers `userInput.request`: the `ask_user` tool is offered (ask-user.ts). */
  requestUserInput: z.boolean().optional(),
  hooks: z.boolean().optional(),
  streaming: z.boolean().optional(),
  workingDirectory: z.string().min(1).optional(),
  allowAllTools: z.boolean().optional(),
  mode: modeSchema.optional(),
  /**
   * turnloop's extension (the Copilot SDK's `SessionConfig` has no such field): the sandbox
   * policy of the session's commands (README, "Sandbox"); absent: the server's `--sandbox`.
   */
  sandbox: z
    .enum(SANDBOX_POLICIES, { error: `the sandbox policies are ${SANDBOX_POLICIES.join(", ")}` })
    .optional(),
  /** Copilot SDK `SessionConfig.mcpServers`: servers by name, checked one by one when started. */
  mcpServers: z.record(z.string(), z.unknown()).optional(),
  /** Copilot SDK `SessionConfig.infiniteSessions`: the compaction threshold (infinite-sessions.ts). */
  infiniteSessions: infiniteSessionsSchema.optional(),
};

export const createParams = z.looseObject({
  ...sessionConfigShape,
  sessionId: sessionIdSchema.optional(),
});
export type CreateParams = z.infer<typeof createParams>;

export const resumeParams = z.looseObject({
  ...sessionConfigShape,
  sessionId: sessionIdSchema,
  /** Whether work left waiting for an app goes on (see `ServerSession.meetResume`). */
  continuePendingWork: z.boolean().optional(),
});

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
      /** Base64. */
      data: z.string(),
      mimeType: z.string().min(1),
      displayName: z.string().optional(),
    }),
  ],
  { error: "turnloop reads the attachment types file, directory, selection and blob" },
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
