import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PromptOutcome } from "../../src/agent/loop.js";
import { buildSystemPrompt } from "../../src/agent/system-prompt.js";
import type { Authorize } from "../../src/agent/tool-calls.js";
import type { SessionEvent } from "../../src/events/events.js";
import { createProvider, type ProviderTuning, resolveModel } from "../../src/llm/models.js";
import { openSessionStore } from "../../src/session/open-store.js";
import { Session, type SessionAgentSettings } from "../../src/session/session.js";
import type { SessionStore } from "../../src/session/session-store.js";
import type { AnyTool } from "../../src/tools/define-tool.js";
import { localCommands, localSecrets } from "./commands.js";
import { startFakeModelServer } from "./fake-model-server.js";
import type { FakeModelServer, FakeModelServerOptions, Wire } from "./fake-model-types.js";
import { removeTree } from "./remove-tree.js";

/** Model ids the harness uses for each wire of the fake server. */
export const MODEL_FOR_WIRE: Record<Wire, string> = {
  "openai-chat": "openai-compatible:fake-model",
  "openai-responses": "openai:gpt-5",
  anthropic: "anthropic:claude-fake",
};

export interface HarnessOptions {
  wire?: Wire;
  /** Model id; overrides the wire's default (e.g. `openai-chat:gpt-4.1`). */
  model?: string;
  tools?: AnyTool[];
  autopilot?: boolean;
  maxTurns?: number;
  maxAutopilotContinues?: number;
  authorize?: Authorize;
  server?: FakeModelServerOptions;
  tuning?: ProviderTuning;
  /** The model's base URL after the fake server's origin; default `/v1`. */
  baseUrlPath?: string;
  /** The system prompt; default the one turnloop builds for the harness's cwd. */
  systemPrompt?: string;
  /** Where the session is kept; default the file store in the harness's temporary home. */
  store?: (home: string) => SessionStore;
}

/** A session wired to a fresh fake model server, in a temp home and cwd. */
export interface Harness {
  server: FakeModelServer;
  session: Session;
  home: string;
  cwd: string;
  /** Every event the session emitted, ephemeral ones included. */
  events: SessionEvent[];
  settings: SessionAgentSettings;
  prompt(text: string, signal?: AbortSignal): Promise<PromptOutcome>;
  /** The events on disk, read back. */
  persisted(): Promise<SessionEvent[]>;
  /** Closes the session, reopens it from disk (as after a restart) and returns the new one. */
  reopen(): Promise<Session>;
  close(): Promise<void>;
}

export const allowEverything: Authorize = async ({ input, toolCall }) => ({
  allowed: true,
  input,
  arguments: toolCall.arguments,
});

/** Fast retries so retry tests take milliseconds, not seconds. */
export const FAST_RETRIES: ProviderTuning = { retry: { initialDelayMs: 5, maxDelayMs: 20 } };

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const server = await startFakeModelServer(options.server);
  const home = await mkdtemp(join(tmpdir(), "turnloop-home-"));
  const cwd = await mkdtemp(join(tmpdir(), "turnloop-cwd-"));
  const wire = options.wire ?? "openai-chat";
  const resolved = resolveModel(
    {
      model: options.model ?? MODEL_FOR_WIRE[wire],
      baseUrl: `${server.url}${options.baseUrlPath ?? "/v1"}`,
    },
    { OPENAI_API_KEY: "test-key", ANTHROPIC_API_KEY: "test-key" },
  );
  if (!resolved.ok) {
    throw new Error(resolved.message);
  }
  const settings: SessionAgentSettings = {
    provider: createProvider(resolved.configuration, { ...FAST_RETRIES, ...options.tuning }),
    tools: options.tools ?? [],
    systemPrompt:
      options.systemPrompt ??
      buildSystemPrompt({ cwd, platform: "linux", date: new Date(0), autopilot: false }),
    maxTurns: options.maxTurns ?? 100,
    autopilot: options.autopilot ?? false,
    maxAutopilotContinues: options.maxAutopilotContinues ?? 5,
    authorize: options.authorize ?? allowEverything,
    commands: localCommands(),
    secrets: localSecrets(),
  };
  const events: SessionEvent[] = [];
  const store = options.store?.(home) ?? openSessionStore(home);
  let session = await Session.create(store, cwd, resolved.configuration.id);
  let unsubscribe = session.subscribe((event) => events.push(event));
  const harness: Harness = {
    server,
    get session() {
      return session;
    },
    home,
    cwd,
    events,
    settings,
    prompt: (text, signal) =>
      session.prompt(settings, text, signal === undefined ? {} : { signal }),
    persisted: async () => (await store.read(session.id)).events,
    reopen: async () => {
      unsubscribe();
      await session.close();
      session = await Session.resume(store, session.id);
      unsubscribe = session.subscribe((event) => events.push(event));
      return session;
    },
    close: async () => {
      unsubscribe();
      await session.close().catch(() => undefined);
      await server.close();
      await removeTree(home);
      await removeTree(cwd);
    },
  };
  return harness;
}

/**
 * Events reduced to what a test should compare: `{type, data}` with generated ids (turn, message)
 * replaced by stable names in order of appearance, so whole arrays can be asserted.
 */
export function shape(events: readonly SessionEvent[]): Array<{ type: string; data: unknown }> {
  const names = new Map<string, string>();
  const name = (kind: string, id: string) => {
    let stable = names.get(id);
    if (stable === undefined) {
      stable = `${kind}-${[...names.values()].filter((value) => value.startsWith(kind)).length + 1}`;
      names.set(id, stable);
    }
    return stable;
  };
  return events.map((event) => {
    const data: Record<string, unknown> = { ...(event.data as Record<string, unknown>) };
    if (typeof data.turnId === "string") {
      data.turnId = name("turn", data.turnId);
    }
    if (typeof data.messageId === "string") {
      data.messageId = name("message", data.messageId);
    }
    return { type: event.type, data };
  });
}

/** The events of one type, in order, typed as that type's events. */
export function ofType<T extends SessionEvent["type"]>(events: readonly SessionEvent[], type: T) {
  return events.filter((event): event is Extract<SessionEvent, { type: T }> => event.type === type);
}

export { types } from "./event-sequences.js";
// In fake-model-server.ts and event-sequences.ts, which a child-process suite imports without the
// in-process session this module loads (about 1.5 s of CPU a file).
export { chatMessages, ROLES_AFTER_ONE_TOOL_TURN } from "./fake-model-server.js";
