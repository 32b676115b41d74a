import { existsSync } from "node:fs";
import { CopilotClient, RuntimeConnection } from "@github/copilot-sdk";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import type { SessionEvent } from "../../src/events/events.js";
import { TurnloopClient, type TurnloopClientOptions } from "../../src/sdk/index.js";
import { CLI_PATH, MCP_STARTUP_WAIT } from "../support/cli.js";
import type { FakeModelServer, RecordedRequest } from "../support/fake-model-types.js";
import { LateModelPlace } from "../support/model-place.js";

/** A fake model server, a temp home and cwd, and clients of the built server against them. */
export interface Fixture {
  model: FakeModelServer;
  home: string;
  cwd: string;
  env: Record<string, string>;
  /** A client spawning `dist/cli/main.js --headless --stdio`; stopped by `close`. */
  client(options?: TurnloopClientOptions): TurnloopClient;
  /** {@link client}, started. */
  startedClient(options?: TurnloopClientOptions): Promise<TurnloopClient>;
  /** Runs `cleanup` at `close`, with the clients' stops, before the model server stops. */
  onClose(cleanup: () => Promise<unknown>): void;
  /** Stops the clients, runs the `onClose` cleanups, stops the model server, removes the folders. */
  close(): Promise<void>;
}

/** Model id the fixture's server uses by default. */
export const MODEL = "openai-compatible:fake-model";

/** An open fixture; the caller closes it. */
export async function startFixture(): Promise<Fixture> {
  const fixture = new SdkFixture();
  await fixture.open();
  return fixture;
}

/**
 * One fixture for all the tests of the calling file (or `describe`): opened before the first
 * (`beforeAll`) and closed after the last (`afterAll`), both registered here.
 */
export function fixtureForFile(): Fixture {
  const fixture = new SdkFixture();
  beforeAll(() => fixture.open());
  afterAll(() => fixture.close());
  return fixture;
}

/** As {@link fixtureForFile}, but a fresh fixture for each test (`beforeEach`/`afterEach`). */
export function fixtureForEachTest(): Fixture {
  const fixture = new SdkFixture();
  beforeEach(() => fixture.open());
  afterEach(() => fixture.close());
  return fixture;
}

class SdkFixture extends LateModelPlace implements Fixture {
  private environment: Record<string, string> | undefined;
  private cleanups: Array<() => Promise<unknown>> = [];

  constructor() {
    super("sdk");
  }

  override async open(): Promise<void> {
    if (!existsSync(CLI_PATH)) {
      throw new Error(`${CLI_PATH} is missing: run npm run build first`);
    }
    await super.open();
    this.environment = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? this.home,
      TURNLOOP_HOME: this.home,
      TURNLOOP_MODEL: MODEL,
      TURNLOOP_BASE_URL: `${this.server.url}/v1`,
      TURNLOOP_MAX_RETRIES: "0",
      ...MCP_STARTUP_WAIT,
    };
  }

  get model(): FakeModelServer {
    return this.server;
  }
  /** The CLI's environment; a suite may add to it before starting clients. */
  get env(): Record<string, string> {
    if (this.environment === undefined) {
      throw new Error("the sdk fixture is used while it is not open (outside its tests)");
    }
    return this.environment;
  }

  client(options: TurnloopClientOptions = {}): TurnloopClient {
    const client = new TurnloopClient({
      cliPath: CLI_PATH,
      cwd: this.cwd,
      env: this.env,
      ...options,
    });
    this.onClose(() => client.stop());
    return client;
  }

  async startedClient(options: TurnloopClientOptions = {}): Promise<TurnloopClient> {
    const client = this.client(options);
    await client.start();
    return client;
  }

  onClose(cleanup: () => Promise<unknown>): void {
    this.cleanups.push(cleanup);
  }

  override async close(): Promise<void> {
    const cleanups = this.cleanups.splice(0);
    await Promise.all(cleanups.map((cleanup) => cleanup()));
    this.environment = undefined;
    await super.close();
  }
}

/**
 * The messages of the `TurnloopSdkWarning` process warnings turnloop/sdk emits while the calling
 * file's tests run, in order; emptied after each test. Node emits a warning on a tick of its own:
 * wait one (`setImmediate`) before reading. The listener is removed after the file (the worker
 * runs other files after it: vitest.config.ts, `isolate: false`).
 */
export function sdkWarnings(): string[] {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => {
    if (warning.name === "TurnloopSdkWarning") {
      warnings.push(warning.message);
    }
  };
  process.on("warning", onWarning);
  afterEach(() => {
    warnings.length = 0;
  });
  afterAll(() => {
    process.off("warning", onWarning);
  });
  return warnings;
}

const NAMED_IDS: Record<string, string> = {
  turnId: "turn",
  messageId: "message",
  // Copilot's reasoning block: the SDK face names it by its reply's messageId (wire-events.ts).
  reasoningId: "message",
  requestId: "request",
  hookInvocationId: "hook",
  promptId: "prompt",
};

/**
 * Events as `{type, data}` with generated ids replaced by stable names in order of appearance
 * (`turn-1`, `request-2` …), the session id by `<session>`, the fixture's folders by `<cwd>` and
 * `<home>`, and hook timestamps by `<timestamp>`, so whole arrays can be compared.
 */
export function normalise(
  events: ReadonlyArray<{ type: string; data: unknown }>,
  fixture: Pick<Fixture, "cwd" | "home">,
): Array<{ type: string; data: unknown }> {
  const names = new Map<string, string>();
  const counts = new Map<string, number>();
  const nameFor = (kind: string, id: string) => {
    let name = names.get(id);
    if (name === undefined) {
      const count = (counts.get(kind) ?? 0) + 1;
      counts.set(kind, count);
      name = `${kind}-${count}`;
      names.set(id, name);
    }
    return name;
  };
  const walk = (value: unknown, key?: string): unknown => {
    if (typeof value === "string") {
      if (key !== undefined && key in NAMED_IDS) {
        return nameFor(NAMED_IDS[key] ?? key, value);
      }
      if (key === "sessionId") {
        return "<session>";
      }
      return value.replaceAll(fixture.cwd, "<cwd>").replaceAll(fixture.home, "<home>");
    }
    if (key === "timestamp" && typeof value === "number") {
      return "<timestamp>";
    }
    if (Array.isArray(value)) {
      return value.map((item) => walk(item));
    }
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(
        Object.entries(value).map(([entryKey, entry]) => [entryKey, walk(entry, entryKey)]),
      );
    }
    return value;
  };
  return events.map((event) => ({ type: event.type, data: walk(event.data) }));
}

/** Every event `session` emits from now on, in order: the array grows as they come. */
export function recordEvents<Event = SessionEvent>(session: {
  on(handler: (event: Event) => void): unknown;
}): Event[] {
  const events: Event[] = [];
  session.on((event) => events.push(event));
  return events;
}

/** Resolves with the first event `matches` accepts (from now on). */
export function nextEvent<Event extends { type: string } = SessionEvent>(
  session: { on(handler: (event: Event) => void): () => void },
  matches: (event: Event) => boolean,
): Promise<Event> {
  return new Promise((resolve) => {
    const unsubscribe = session.on((event) => {
      if (matches(event)) {
        unsubscribe();
        resolve(event);
      }
    });
  });
}

/** A model request's body as the Copilot SDK tests read it (OpenAI Chat Completions). */
export type ChatBody = {
  model?: string;
  stream?: boolean;
  messages: Array<{ role: string; content?: unknown; tool_call_id?: string }>;
  tools?: Array<{ function: { name: string } }>;
};

export function chatBody(request: RecordedRequest | undefined): ChatBody {
  return request?.body as unknown as ChatBody;
}

/**
 * One prompt of `session` (either SDK's), "Pick a colour with me.": the model asks "Which colour?"
 * of red and blue with `ask_user`, then answers "Blue it is.". @returns the reply's content, the
 * tool names the model's first request offered, and the tool results its second carried, as
 * `[tool_call_id, content]`.
 */
export async function askColour(
  fixture: Pick<Fixture, "model">,
  session: {
    sendAndWait(options: { prompt: string }): Promise<{ data: { content: string } } | undefined>;
  },
): Promise<{ reply: string | undefined; offered: string[]; results: unknown[][] }> {
  const from = fixture.model.requests.length;
  fixture.model.enqueue(
    {
      toolCalls: [
        {
          id: "call_ask",
          name: "ask_user",
          arguments: JSON.stringify({ question: "Which colour?", choices: ["red", "blue"] }),
        },
      ],
    },
    { text: "Blue it is." },
  );
  const reply = await session.sendAndWait({ prompt: "Pick a colour with me." });
  const offered = (chatBody(fixture.model.requests[from]).tools ?? []).map(
    (tool) => tool.function.name,
  );
  const results = chatBody(fixture.model.requests[from + 1])
    .messages.filter((message) => message.role === "tool")
    .map((message) => [message.tool_call_id, message.content]);
  return { reply: reply?.data.content, offered, results };
}

/**
 * The official `@github/copilot-sdk` client over the built CLI (with `args`, default `--yolo`),
 * started; stopped by the fixture's `close`.
 */
export async function startCopilotClient(
  fixture: Fixture,
  args: readonly string[] = ["--yolo"],
): Promise<CopilotClient> {
  const client = new CopilotClient({
    connection: RuntimeConnection.forStdio({ path: CLI_PATH, env: fixture.env, args: [...args] }),
    workingDirectory: fixture.cwd,
  });
  fixture.onClose(() => client.stop());
  await client.start();
  return client;
}

export { inLogOrder } from "../../src/server/usage-order.js";
export { requestMessages } from "../support/normalise-request.js";
