/**
 * An SDK app's custom tools, run by the app (Copilot protocol v3, broadcast-event pattern): a call
 * records `external_tool.requested {requestId}` and waits for
 * `session.tools.handlePendingToolCall {requestId, result | error}`; the answer (or the prompt's
 * cancellation) records `external_tool.completed`, then the loop records the call's one
 * `tool.execution_complete`.
 */

import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { z } from "zod";
import type { EventInput, JsonObject } from "../events/events.js";
import { randomUUID } from "../events/random-id.js";
import type { ExternalToolResult, ToolResultType } from "../protocol/copilot.js";
import { type AnyTool, defineTool, type ToolResult } from "../tools/define-tool.js";
import type { ToolDeclarationParams } from "./params.js";
import { noteAnsweredType } from "./tool-result-type.js";

/** What the app's tools need from their session. */
export interface ExternalToolHost {
  sessionId: string;
  cwd: string;
  emit(event: EventInput): void;
}

interface PendingCall {
  toolCallId: string;
  toolName: string;
  input: JsonObject;
  /**
   * Kept for a resume: its app went away with nobody else attached (pending work, see
   * pending-work.ts), so it waits for an answer by request id whoever registers the tool.
   */
  held: boolean;
  settle(result: ToolResult): void;
}

/** Said to the model when the app that registered the tool went away before answering. */
const APP_GONE =
  "Failed: the app that runs this tool disconnected before answering; it is no longer available.";

/** Said to the model when the prompt was cancelled before the app answered. */
const NO_ANSWER =
  "Interrupted: the prompt was cancelled before the app that runs this tool answered.";

/** Calls of one session's custom tools waiting for the app. */
export class PendingToolCalls {
  private readonly pending = new Map<string, PendingCall>();

  constructor(private readonly host: ExternalToolHost) {}

  /**
   * Tools for the loop, one per declaration. Arguments are validated against the declared JSON
   * Schema (see {@link inputSchema}); the model sees the declared schema.
   */
  toolsFor(declarations: readonly ToolDeclarationParams[]): AnyTool[] {
    return declarations.map((declaration) =>
      defineTool({
        name: declaration.name,
        description: declaration.description ?? declaration.name,
        input: inputSchema(declaration.parameters),
        kind: declaration.readOnly === true ? "read" : "other",
        mutates: declaration.readOnly !== true,
        concurrent: true,
        execute: (input, context) =>
          this.request(declaration.name, input as JsonObject, context.toolCallId, context.signal),
      }),
    );
  }

  /**
   * Applies the app's answer: `result` (text or Copilot's result object) or `error`.
   * @returns false when no such call is waiting (answered, cancelled, unknown id).
   */
  answer(requestId: string, answer: { result?: ExternalToolResult; error?: string }): boolean {
    const call = this.pending.get(requestId);
    if (call === undefined) {
      return false;
    }
    this.pending.delete(requestId);
    const result = toolResult(call, answer);
    this.host.emit({
      type: "external_tool.completed",
      data: {
        requestId,
        toolCallId: call.toolCallId,
        status: result.isError ? "failed" : "completed",
      },
    });
    call.settle(result);
    return true;
  }

  /**
   * Keeps every waiting call for a resume (pending work): {@link abandonUnregistered} leaves them.
   * @returns how many calls wait.
   */
  holdAll(): number {
    for (const call of this.pending.values()) {
      call.held = true;
    }
    return this.pending.size;
  }

  /**
   * Fails the waiting calls of tools no attached app registers any more (their app detached or
   * disconnected), so the turn goes on: `external_tool.completed` with `failed`, an error result.
   * Calls held for a resume ({@link holdAll}) keep waiting.
   */
  abandonUnregistered(registered: ReadonlySet<string>): void {
    for (const [requestId, call] of [...this.pending]) {
      if (!call.held && !registered.has(call.toolName)) {
        this.pending.delete(requestId);
        this.host.emit({
          type: "external_tool.completed",
          data: { requestId, toolCallId: call.toolCallId, status: "failed" },
        });
        call.settle({ content: APP_GONE, isError: true });
      }
    }
  }

  private request(
    toolName: string,
    input: JsonObject,
    toolCallId: string,
    signal: AbortSignal,
  ): Promise<ToolResult> {
    const requestId = randomUUID();
    return new Promise<ToolResult>((settle) => {
      const onAbort = () => {
        if (this.pending.delete(requestId)) {
          this.host.emit({
            type: "external_tool.completed",
            data: { requestId, toolCallId, status: "cancelled" },
          });
          settle({ content: NO_ANSWER, isError: true });
        }
      };
      this.pending.set(requestId, {
        toolCallId,
        toolName,
        input,
        held: false,
        settle: (result) => {
          signal.removeEventListener("abort", onAbort);
          settle(result);
        },
      });
      signal.addEventListener("abort", onAbort, { once: true });
      this.host.emit({
        type: "external_tool.requested",
        data: {
          requestId,
          sessionId: this.host.sessionId,
          toolCallId,
          toolName,
          arguments: input,
          workingDirectory: this.host.cwd,
        },
      });
      if (signal.aborted) {
        onAbort();
      }
    });
  }
}

/** One validator instance: compiled schemas are cached by it. */
let validators: Ajv2020 | undefined;

/**
 * The model sees `parameters` as declared (zod copies `meta` into the JSON Schema it emits).
 * Arguments are checked against it with a JSON Schema validator (ajv, draft 2020-12, unknown
 * keywords allowed, as apps' schemas carry their own); a schema ajv cannot compile is the app's
 * to enforce, and any object is accepted then.
 */
function inputSchema(parameters: JsonObject | undefined): z.ZodType<Record<string, unknown>> {
  const base = z.looseObject({});
  if (parameters === undefined) {
    return base;
  }
  const { $schema: _schema, ...declared } = parameters;
  validators ??= new Ajv2020({ strict: false, allErrors: true });
  let validate: ValidateFunction | undefined;
  try {
    validate = validators.compile(declared);
  } catch {
    validate = undefined;
  }
  const checked =
    validate === undefined
      ? base
      : base.superRefine((value, context) => {
          if (validate(value)) {
            return;
          }
          for (const error of validate.errors ?? []) {
            context.addIssue({
              code: "custom",
              message: error.message ?? "does not match the schema",
              path: pathOf(error.instancePath),
            });
          }
        });
  return checked.meta(declared);
}

/** `/a/0/b` (a JSON Pointer, RFC 6901) as `["a", "0", "b"]`. */
function pathOf(pointer: string): string[] {
  return pointer === ""
    ? []
    : pointer
        .slice(1)
        .split("/")
        .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/**
 * Copilot's result conventions: text as is; an `error` (the app's handler threw) in Copilot's
 * wording for the model, without the exception's text ("Failed to execute `<tool>` tool with
 * arguments: {…} due to error: Error: Tool execution failed"), the app's message kept for the
 * app (`error.message` of `tool.execution_complete`); `resultType` other than success is an error, `denied` and
 * `rejected` reported as such (a rejection ends the prompt, see the loop's `endAfterRejection`),
 * and the type noted for the app's post-tool hooks (tool-result-type.ts).
 */
function toolResult(
  call: Pick<PendingCall, "toolName" | "input">,
  answer: { result?: ExternalToolResult; error?: string },
): ToolResult {
  if (answer.error !== undefined) {
    const content = `Failed to execute \`${call.toolName}\` tool with arguments: ${JSON.stringify(call.input)} due to error: Error: Tool execution failed`;
    return { content, isError: true, errorMessage: answer.error };
  }
  const { result } = answer;
  if (result === undefined) {
    return { content: "", isError: false };
  }
  if (typeof result === "string") {
    return { content: result, isError: false };
  }
  const type = resultTypeNamed(result.resultType);
  const failed = type !== "success";
  const content =
    failed && result.error !== undefined && result.textResultForLlm === ""
      ? `Tool '${call.toolName}' failed: ${result.error}`
      : result.textResultForLlm;
  const errorCode = type === "denied" || type === "rejected" ? type : undefined;
  const outcome = { content, isError: failed, ...(errorCode === undefined ? {} : { errorCode }) };
  noteAnsweredType(outcome, type);
  return outcome;
}

const RESULT_TYPES: readonly ToolResultType[] = [
  "success",
  "failure",
  "rejected",
  "denied",
  "timeout",
];

/** `name` as a {@link ToolResultType}: absent is `success`, a name Copilot lacks a `failure`. */
function resultTypeNamed(name: string | undefined): ToolResultType {
  return name === undefined ? "success" : (RESULT_TYPES.find((type) => type === name) ?? "failure");
}
