import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import type { ErrorReply, RecordedRequest, Reply, Wire } from "./fake-model-types.js";
import { arrayField, isJsonObject, type JsonValue, objectField, stringField } from "./json.js";
import {
  type ChatMessage,
  type ChatToolCall,
  mergeAssistants,
  normaliseMessages,
} from "./normalise-request.js";

/** Values for the recordings' `${name}` placeholders; `shell` defaults to turnloop's `bash`. */
export interface TranscriptSubstitutions {
  workdir: string;
  [placeholder: string]: string;
}

/** A scripted failure of the recording: answered once, to the request whose history equals `messages`. */
export interface TranscriptError {
  status: number;
  code?: string;
  message: string;
  retryAfterSeconds?: number;
  messages: ChatMessage[];
}

export interface Transcript {
  path: string;
  models: string[];
  /** each recorded model request with the reply that followed it, system messages included */
  conversations: ChatMessage[][];
  errors: TranscriptError[];
}

/** `../shared/transcripts/copilot-sdk` next to the repository, or undefined when it is absent. */
export function transcriptsDirectory(): string | undefined {
  const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
  const directory = resolve(repositoryRoot, "..", "shared", "transcripts", "copilot-sdk");
  return existsSync(directory) ? directory : undefined;
}

/**
 * Sets a recorded scenario up in `workdir`: writes `files` there (paths relative to it, folders
 * made as needed) and loads the recording `file` (relative to {@link transcriptsDirectory}) with
 * `workdir` for its placeholder.
 * @throws when the transcripts directory is absent (the suites skip first) or the file is no transcript.
 */
export async function setUpRecording(
  file: string,
  files: Record<string, string>,
  workdir: string,
): Promise<Transcript> {
  const directory = transcriptsDirectory();
  if (directory === undefined) {
    throw new Error("the recorded transcripts (../shared/transcripts/copilot-sdk) are absent");
  }
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(workdir, path)), { recursive: true });
    await writeFile(join(workdir, path), content);
  }
  return loadTranscript(join(directory, file), { workdir });
}

export function loadTranscript(
  yamlPath: string,
  substitutions: TranscriptSubstitutions,
): Transcript {
  const document: unknown = parse(readFileSync(yamlPath, "utf8"));
  if (!isJsonObject(document)) {
    throw new Error(`${yamlPath}: not a transcript (expected a mapping at the top level)`);
  }
  const values: Record<string, string> = { shell: "bash", ...substitutions };
  const messagesOf = (value: JsonValue): ChatMessage[] =>
    isJsonObject(value)
      ? arrayField(value, "messages").map((message) => recordedMessage(message, values))
      : [];
  return {
    path: yamlPath,
    models: arrayField(document, "models").filter(
      (model): model is string => typeof model === "string",
    ),
    conversations: arrayField(document, "conversations").map(messagesOf),
    errors: arrayField(document, "errors")
      .filter(isJsonObject)
      .map((error) => ({
        status: typeof error.status === "number" ? error.status : 500,
        code: stringField(error, "code"),
        message: stringField(error, "message") ?? "recorded error",
        retryAfterSeconds:
          typeof error.retryAfterSeconds === "number" ? error.retryAfterSeconds : undefined,
        messages: messagesOf(error),
      })),
  };
}

function substitute(text: string, values: Record<string, string>, escapeForJson: boolean): string {
  return text.replace(/\$\{([a-z_]+)\}/g, (placeholder, name: string) => {
    const value = values[name];
    if (value === undefined) {
      return placeholder;
    }
    return escapeForJson ? JSON.stringify(value).slice(1, -1) : value;
  });
}

function recordedMessage(value: JsonValue, values: Record<string, string>): ChatMessage {
  const message = isJsonObject(value) ? value : {};
  const content = message.content;
  const text =
    content === undefined || content === null ? "" : substitute(String(content), values, false);
  const role = stringField(message, "role");
  if (role === "tool") {
    return { role, content: text, toolCallId: stringField(message, "tool_call_id") ?? "" };
  }
  if (role === "assistant") {
    const toolCalls = arrayField(message, "tool_calls").map((call): ChatToolCall => {
      const callObject = isJsonObject(call) ? call : {};
      const callFunction = objectField(callObject, "function") ?? {};
      return {
        id: stringField(callObject, "id") ?? "",
        name: substitute(stringField(callFunction, "name") ?? "", values, false),
        arguments: substitute(stringField(callFunction, "arguments") ?? "{}", values, true),
      };
    });
    return { role, content: text, toolCalls };
  }
  return { role: role === "system" ? "system" : "user", content: text };
}

/**
 * Answers each request with the recorded assistant reply that follows the conversation the
 * request's history matches. Matching is loose on purpose: user messages must be equal, but
 * assistant and tool messages only line up by position, because tool outputs (paths, dates,
 * error wording) differ between the recording agent and turnloop.
 */
export function transcriptResponder(
  transcript: Transcript,
  options: { splitChoices?: boolean } = {},
): (request: RecordedRequest) => Reply {
  const servedErrors = new Set<TranscriptError>();
  return (request) => {
    const received = withoutSystem(normaliseMessages(request.wire, request.body));
    const error = transcript.errors.find((candidate) => {
      const recorded = withoutSystem(candidate.messages);
      return (
        !servedErrors.has(candidate) &&
        recorded.length === received.length &&
        matchLength(received, recorded) === received.length
      );
    });
    if (error !== undefined) {
      servedErrors.add(error);
      return errorReply(request.wire, error);
    }
    for (const conversation of transcript.conversations) {
      const recorded = withoutSystem(conversation);
      const next = recorded[received.length];
      if (next?.role === "assistant" && matchLength(received, recorded) === received.length) {
        const text = next.content === "" ? {} : { text: next.content };
        const toolCalls = next.toolCalls ?? [];
        // A reply recorded as several assistant messages came as several choices (Copilot API).
        const split =
          options.splitChoices === true && recordedParts(conversation, received.length) > 1;
        return {
          ...text,
          ...(toolCalls.length > 0 ? { toolCalls } : {}),
          ...(split ? { splitChoices: true } : {}),
        };
      }
    }
    return mismatchReply(transcript, received);
  };
}

/** How many recorded assistant messages make up the merged message at `index`. */
function recordedParts(conversation: ChatMessage[], index: number): number {
  const raw = conversation.filter((message) => message.role !== "system");
  let merged = -1;
  let parts = 0;
  for (const [position, message] of raw.entries()) {
    const joins = message.role === "assistant" && raw[position - 1]?.role === "assistant";
    if (!joins) {
      merged += 1;
      parts = 0;
    }
    if (merged === index) {
      parts += 1;
    } else if (merged > index) {
      break;
    }
  }
  return parts;
}

function withoutSystem(messages: ChatMessage[]): ChatMessage[] {
  return mergeAssistants(messages.filter((message) => message.role !== "system"));
}

/** How many leading messages of `received` loosely match the recording. */
function matchLength(received: ChatMessage[], recorded: ChatMessage[]): number {
  let length = 0;
  while (length < received.length && length < recorded.length) {
    const actual = received[length] as ChatMessage;
    const expected = recorded[length] as ChatMessage;
    const matches =
      actual.role === expected.role &&
      (actual.role !== "user" || actual.content.trim() === expected.content.trim()) &&
      (actual.role !== "assistant" || actual.toolCalls?.length === expected.toolCalls?.length);
    if (!matches) {
      break;
    }
    length += 1;
  }
  return length;
}

function errorReply(wire: Wire, error: TranscriptError): ErrorReply {
  const headers =
    error.retryAfterSeconds === undefined
      ? undefined
      : { "retry-after": String(error.retryAfterSeconds) };
  const body =
    wire === "anthropic"
      ? { type: "error", error: { type: error.code ?? "api_error", message: error.message } }
      : { error: { message: error.message, type: "api_error", code: error.code ?? null } };
  return { status: error.status, ...(headers === undefined ? {} : { headers }), body };
}

function describe(message: ChatMessage | undefined): string {
  if (message === undefined) {
    return "(nothing)";
  }
  const calls = (message.toolCalls ?? []).map((call) => call.name);
  const text = message.content.length > 60 ? `${message.content.slice(0, 60)}…` : message.content;
  const detail =
    message.role === "tool"
      ? ` ${message.toolCallId}`
      : calls.length > 0
        ? ` [${calls.join(", ")}]`
        : "";
  return `${message.role}${detail} ${JSON.stringify(text)}`;
}

function mismatchReply(transcript: Transcript, received: ChatMessage[]): ErrorReply {
  let best = { conversation: -1, length: -1 };
  transcript.conversations.forEach((conversation, index) => {
    const length = matchLength(received, withoutSystem(conversation));
    if (length > best.length) {
      best = { conversation: index, length };
    }
  });
  const closest = withoutSystem(transcript.conversations[best.conversation] ?? []);
  const lines = [
    `transcript replay (${relative(process.cwd(), transcript.path)}): no recorded conversation continues this request.`,
    `received ${received.length} non-system messages: ${received.map(describe).join(" | ")}`,
    `closest: conversation #${best.conversation + 1} matches ${best.length} messages; at message ${best.length + 1} it expects ${describe(closest[best.length])}, received ${describe(received[best.length])}`,
  ];
  return {
    status: 500,
    body: { error: { message: lines.join("\n"), type: "transcript_mismatch" } },
  };
}
