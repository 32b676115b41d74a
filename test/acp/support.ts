import { readFile } from "node:fs/promises";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { onTestFinished } from "vitest";
import { TurnloopAcpAgent } from "../../src/acp/agent.js";
import { acpByteStream } from "../../src/acp/framing.js";
import type { SessionEvent } from "../../src/events/events.js";
import type { FaceOptions } from "../../src/session/face-options.js";
import { SessionHost } from "../../src/session/host.js";
import { type RunConfig, resolveRunConfig } from "../../src/session/run-config.js";
import type { AnyTool } from "../../src/tools/define-tool.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { closeModelPlace, type ModelPlace, openModelPlace } from "../support/model-place.js";
import { allowOnce, type ClientBehaviour, testClientApp } from "./client-handlers.js";
import { filesConfig, harnessEnvironment, harnessFlags } from "./harness-config.js";

/** One JSON-RPC message as it crossed the wire, in order. */
export interface WireMessage {
  direction: "to-agent" | "to-client";
  message: Record<string, unknown>;
}

export interface AcpHarnessOptions {
  /** What the client offers in `initialize` (default: nothing, so tools use the disk). */
  offer?: acp.ClientCapabilities;
  face?: Partial<FaceOptions>;
  env?: NodeJS.ProcessEnv;
  maxMessageBytes?: number;
  extraTools?: AnyTool[];
  /**
   * Resolve the run config as `turnloop acp` does (face-config.ts `configuredFace`: the config
   * files of the home and the cwd, with `TURNLOOP_HOME` the harness's home) rather than from the
   * flags and environment alone.
   */
  readConfigFiles?: boolean;
}

/** Where sessions and the fake model live; shared across reconnects (an agent restart). */
interface Place extends ModelPlace {
  /** The agent and client of the latest (re)start: the one closed when the test finishes. */
  current?: AcpHarness;
}

/**
 * The turnloop ACP agent and the official SDK's client over in-memory byte pipes (the same
 * NDJSON framing as stdio), with every message recorded in wire order.
 */
export class AcpHarness {
  readonly wire: WireMessage[] = [];
  readonly stderr: string[] = [];
  readonly behaviour: ClientBehaviour = {
    calls: [],
    answerPermission: allowOnce(),
    buffers: new Map(),
  };
  readonly agent: TurnloopAcpAgent;
  readonly connection: acp.ClientConnection;
  /** The fake model, home and cwd, the same after a {@link restart}. */
  readonly server: FakeModelServer;
  readonly home: string;
  readonly cwd: string;
  private readonly place: Place;
  private readonly options: AcpHarnessOptions;
  private readonly toAgent: ReadableStreamDefaultController<Uint8Array>;

  private constructor(place: Place, options: AcpHarnessOptions, config?: RunConfig) {
    this.place = place;
    ({ server: this.server, home: this.home, cwd: this.cwd } = place);
    place.current = this;
    this.options = options;
    const env = harnessEnvironment(place, options);
    const host = new SessionHost({
      home: place.home,
      env,
      config: config ?? resolveRunConfig(harnessFlags(place, options), env),
    });
    this.agent = new TurnloopAcpAgent({
      settings: host,
      openHost: () => host,
      log: (line) => this.stderr.push(line),
      ...(options.extraTools === undefined ? {} : { extraTools: options.extraTools }),
    });
    let toAgent: ReadableStreamDefaultController<Uint8Array> | undefined;
    let toClient: ReadableStreamDefaultController<Uint8Array> | undefined;
    const agentInput = new ReadableStream<Uint8Array>({
      start: (controller) => {
        toAgent = controller;
      },
    });
    const clientInput = new ReadableStream<Uint8Array>({
      start: (controller) => {
        toClient = controller;
      },
    });
    if (toAgent === undefined || toClient === undefined) {
      throw new Error("stream controllers are set synchronously");
    }
    this.toAgent = toAgent;
    const agentOutput = recordingPipe(toClient, "to-client", this.wire);
    const clientOutput = recordingPipe(toAgent, "to-agent", this.wire);
    const agentStream = acpByteStream(agentOutput, agentInput, {
      log: (line) => this.stderr.push(line),
      onIdlessError: (error) => this.agent.clientRejectedNotification(error),
      ...(options.maxMessageBytes === undefined
        ? {}
        : { maxMessageBytes: options.maxMessageBytes }),
    });
    this.agent.app.connect(agentStream);
    this.connection = testClientApp(this.behaviour).connect(
      acp.ndJsonStream(clientOutput, clientInput),
    );
  }

  /**
   * A fresh fake model server, home and cwd, and a connected, initialized pair; called in a test,
   * whose end closes them (the latest {@link restart}'s pair, the server, the folders).
   */
  static async start(options: AcpHarnessOptions = {}): Promise<AcpHarness> {
    const place: Place = await openModelPlace("acp");
    onTestFinished(async () => {
      await place.current?.close();
    });
    const harness = new AcpHarness(place, options, await filesConfig(place, options));
    await harness.initialize();
    return harness;
  }

  get client(): acp.ClientContext {
    return this.connection.agent;
  }

  async initialize(): Promise<acp.InitializeResponse> {
    return this.client.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: this.options.offer ?? {},
      clientInfo: { name: "turnloop-test-client", version: "1.0.0" },
    });
  }

  async newSession(): Promise<string> {
    const response = await this.client.request(acp.methods.agent.session.new, {
      cwd: this.cwd,
      mcpServers: [],
    });
    return response.sessionId;
  }

  prompt(
    sessionId: string,
    prompt: string | acp.ContentBlock[],
    options: acp.SendRequestOptions = {},
  ): Promise<acp.PromptResponse> {
    return this.client.request(
      acp.methods.agent.session.prompt,
      { sessionId, prompt: promptBlocks(prompt) },
      options,
    );
  }

  /** `session/load` in the harness's cwd with no MCP servers. */
  loadSession(sessionId: string): Promise<acp.LoadSessionResponse> {
    return this.client.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: this.cwd,
      mcpServers: [],
    });
  }

  /** `session/set_config_option`: the answer lists every option with its current value. */
  setConfigOption(
    sessionId: string,
    configId: string,
    value: string,
  ): Promise<acp.SetSessionConfigOptionResponse> {
    return this.client.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId,
      value,
    });
  }

  cancel(sessionId: string): Promise<void> {
    return this.client.notify(acp.methods.agent.session.cancel, { sessionId });
  }

  /** Writes raw bytes to the agent's input, as a broken client would. */
  sendRaw(text: string): void {
    this.toAgent.enqueue(new TextEncoder().encode(text));
  }

  /** `session/update`s on the wire, in order (of one session when given). */
  updates(sessionId?: string): acp.SessionUpdate[] {
    return this.wire
      .filter(
        (entry) => entry.direction === "to-client" && entry.message.method === "session/update",
      )
      .map((entry) => entry.message.params as acp.SessionNotification)
      .filter((params) => sessionId === undefined || params.sessionId === sessionId)
      .map((params) => params.update);
  }

  /** Index in {@link wire} of the agent's answer to the client's `index`-th request of `method`. */
  answerIndex(method: string, occurrence = 0): number {
    const requests = this.wire.filter(
      (entry) => entry.direction === "to-agent" && entry.message.method === method,
    );
    const id = requests[occurrence]?.message.id;
    return this.wire.findIndex(
      (entry) =>
        entry.direction === "to-client" &&
        entry.message.id === id &&
        entry.message.method === undefined,
    );
  }

  /** The `session/update`s sent before the agent answered the first request of `method`, in order. */
  updatesBefore(method: string): acp.SessionUpdate[] {
    return this.wire
      .slice(0, this.answerIndex(method))
      .filter((entry) => entry.message.method === "session/update")
      .map((entry) => (entry.message.params as acp.SessionNotification).update);
  }

  /** Resolves once `predicate` holds for a wire message (polling), or fails after `timeoutMs`. */
  async waitForWire(
    predicate: (entry: WireMessage) => boolean,
    timeoutMs = 5_000,
  ): Promise<WireMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.wire.find(predicate);
      if (found !== undefined) {
        return found;
      }
      if (Date.now() > deadline) {
        throw new Error("timed out waiting for a wire message");
      }
      await sleep(10);
    }
  }

  /** Waits for the `count`-th update matching `predicate`. */
  async waitForUpdate(predicate: (update: acp.SessionUpdate) => boolean, count = 1): Promise<void> {
    // A bound on a wait that a loaded machine still meets, not a measure of speed.
    const deadline = Date.now() + 15_000;
    while (this.updates().filter(predicate).length < count) {
      if (Date.now() > deadline) {
        throw new Error("timed out waiting for an update");
      }
      await sleep(10);
    }
  }

  /** The persisted events of a session. */
  async persisted(sessionId: string): Promise<SessionEvent[]> {
    const text = await readFile(
      join(this.home, "session-state", sessionId, "events.jsonl"),
      "utf8",
    );
    return text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as SessionEvent);
  }

  /** A new agent and client on the same home, server and cwd: what a restart looks like. */
  async restart(options: AcpHarnessOptions = this.options): Promise<AcpHarness> {
    await this.disconnect();
    const harness = new AcpHarness(this.place, options, await filesConfig(this.place, options));
    await harness.initialize();
    return harness;
  }

  /** Closes the connection (stdin ends) and lets the agent close its sessions. */
  async disconnect(): Promise<void> {
    this.connection.close();
    try {
      this.toAgent.close();
    } catch {
      // Already closed.
    }
    await this.agent.shutdown();
  }

  async close(): Promise<void> {
    await this.disconnect();
    await closeModelPlace(this.place);
  }
}

/** A byte sink that records each complete JSON line and forwards the bytes to `target`. */
function recordingPipe(
  target: ReadableStreamDefaultController<Uint8Array>,
  direction: WireMessage["direction"],
  wire: WireMessage[],
): WritableStream<Uint8Array> {
  const decoder = new TextDecoder();
  let buffered = "";
  return new WritableStream({
    write(chunk) {
      buffered += decoder.decode(chunk, { stream: true });
      let newline = buffered.indexOf("\n");
      while (newline !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        try {
          wire.push({ direction, message: JSON.parse(line) as Record<string, unknown> });
        } catch {
          // The agent never writes anything but JSON; the test asserting that reads `wire`.
          wire.push({ direction, message: { unparsable: line } });
        }
        newline = buffered.indexOf("\n");
      }
      try {
        target.enqueue(chunk);
      } catch {
        // The reading side has closed.
      }
    },
    close() {
      try {
        target.close();
      } catch {
        // Already closed.
      }
    },
  });
}

/** A prompt as ACP content blocks: a string is one text block. */
export function promptBlocks(prompt: string | acp.ContentBlock[]): acp.ContentBlock[] {
  return typeof prompt === "string" ? [{ type: "text", text: prompt }] : prompt;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Updates reduced to what a test compares: message ids renamed `message-1`, … in order of
 * appearance, timestamps replaced by `<time>`, the cwd by `<cwd>`.
 */
export function normalise(updates: readonly acp.SessionUpdate[], cwd: string): unknown[] {
  const names = new Map<string, string>();
  const text = JSON.stringify(updates).split(cwd).join("<cwd>");
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) {
      return value.map(walk);
    }
    if (typeof value !== "object" || value === null) {
      return value;
    }
    const result: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value)) {
      if (key === "messageId" && typeof entry === "string") {
        let name = names.get(entry);
        if (name === undefined) {
          name = `message-${names.size + 1}`;
          names.set(entry, name);
        }
        result[key] = name;
      } else if (key === "updatedAt" && typeof entry === "string") {
        result[key] = "<time>";
      } else {
        result[key] = walk(entry);
      }
    }
    return result;
  };
  return walk(JSON.parse(text)) as unknown[];
}

export { requestMessages } from "../support/normalise-request.js";
