import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, beforeEach } from "vitest";
import type { SessionEvent } from "../../src/events/events.js";
import { CLI_PATH, cleanEnvironment } from "../support/cli.js";
import { LateModelPlace } from "../support/model-place.js";
import { allowOnce, type ClientBehaviour, testClientApp } from "./client-handlers.js";
import { promptBlocks, sleep } from "./support.js";

/**
 * `node dist/cli/main.js acp` as a real child process, driven by the SDK's client over its stdio;
 * every stdout line is kept raw, to check that nothing but protocol messages is written there.
 */
export class AcpChild {
  readonly stdoutLines: string[] = [];
  stderr = "";
  readonly behaviour: ClientBehaviour = {
    calls: [],
    answerPermission: allowOnce(),
    buffers: new Map(),
  };
  readonly process: ChildProcessWithoutNullStreams;
  readonly connection: acp.ClientConnection;
  readonly exited: Promise<number | null>;
  /** The agent's working directory, also the cwd of the sessions it creates and loads here. */
  readonly cwd: string;

  /**
   * @param clientLimit the most bytes of one message the client reads (the SDK's
   * `maxMessageBytes`; its default, 32 MiB, when undefined): a longer one ends its connection.
   */
  constructor(env: NodeJS.ProcessEnv, cwd: string, clientLimit?: number) {
    this.cwd = cwd;
    if (!existsSync(CLI_PATH)) {
      throw new Error(`${CLI_PATH} is missing: run npm run build first`);
    }
    this.process = spawn(process.execPath, [CLI_PATH, "acp"], { cwd, env });
    this.exited = new Promise((resolve) => this.process.on("close", (code) => resolve(code)));
    this.process.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      this.stderr += chunk;
    });
    const decoder = new TextDecoder();
    let buffered = "";
    const lines = this.stdoutLines;
    const tap = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        buffered += decoder.decode(chunk, { stream: true });
        let newline = buffered.indexOf("\n");
        while (newline !== -1) {
          lines.push(buffered.slice(0, newline));
          buffered = buffered.slice(newline + 1);
          newline = buffered.indexOf("\n");
        }
        controller.enqueue(chunk);
      },
    });
    const output = Readable.toWeb(this.process.stdout) as ReadableStream<Uint8Array>;
    const stream = acp.ndJsonStream(
      Writable.toWeb(this.process.stdin) as WritableStream<Uint8Array>,
      output.pipeThrough(tap),
      clientLimit === undefined ? undefined : { maxMessageBytes: clientLimit },
    );
    this.connection = testClientApp(this.behaviour).connect(stream);
  }

  get client(): acp.ClientContext {
    return this.connection.agent;
  }

  async initialize(offer: acp.ClientCapabilities = {}): Promise<void> {
    await this.client.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: offer,
      clientInfo: { name: "turnloop-child-test-client", version: "1.0.0" },
    });
  }

  /** `session/new` in {@link cwd} with no MCP servers; the new session's id. */
  async newSession(): Promise<string> {
    const { sessionId } = await this.client.request(acp.methods.agent.session.new, {
      cwd: this.cwd,
      mcpServers: [],
    });
    return sessionId;
  }

  /**
   * `initialize`, then `session/new` in {@link cwd}: the protocol version `initialize` answered,
   * and `session/new`'s JSON-RPC error (`code`, `message`), or `"answered"` when it succeeded.
   * For an agent that answers `initialize` but cannot start sessions (a run-config error).
   */
  async sessionStartRefusal(): Promise<{
    protocolVersion: number;
    newSession: "answered" | { code?: number; message?: string };
  }> {
    const { protocolVersion } = await this.client.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientInfo: { name: "turnloop-child-test-client", version: "1.0.0" },
    });
    const newSession = await this.client
      .request(acp.methods.agent.session.new, { cwd: this.cwd, mcpServers: [] })
      .then(
        () => "answered" as const,
        (error: { code?: number; message?: string }) => ({
          code: error.code,
          message: error.message,
        }),
      );
    return { protocolVersion, newSession };
  }

  /** `session/load` in {@link cwd} with no MCP servers (the history arrives as updates first). */
  loadSession(sessionId: string): Promise<acp.LoadSessionResponse> {
    return this.client.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: this.cwd,
      mcpServers: [],
    });
  }

  /** `session/prompt` with `prompt` (a string is one text block). */
  prompt(sessionId: string, prompt: string | acp.ContentBlock[]): Promise<acp.PromptResponse> {
    return this.client.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: promptBlocks(prompt),
    });
  }

  /** Writes raw text to the agent's stdin, between the SDK's whole messages. */
  writeRaw(text: string): void {
    this.process.stdin.write(text);
  }

  /** Parsed stdout messages. */
  messages(): Array<Record<string, unknown>> {
    return this.stdoutLines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  updates(sessionId: string): acp.SessionUpdate[] {
    return this.messages()
      .filter((message) => message.method === "session/update")
      .map((message) => message.params as acp.SessionNotification)
      .filter((params) => params.sessionId === sessionId)
      .map((params) => params.update);
  }

  /** The text of the session's user and agent message chunks so far, each as `[kind, text]`. */
  messageTexts(sessionId: string): Array<[string, string]> {
    return this.updates(sessionId).flatMap(
      (update): Array<[string, string]> =>
        (update.sessionUpdate === "user_message_chunk" ||
          update.sessionUpdate === "agent_message_chunk") &&
        update.content.type === "text"
          ? [[update.sessionUpdate, update.content.text]]
          : [],
    );
  }

  async waitForUpdate(sessionId: string, predicate: (update: acp.SessionUpdate) => boolean) {
    await this.waitUntil(() => this.updates(sessionId).some(predicate), "an update");
  }

  /**
   * Resolves once `condition` holds: the gate for what the agent does on its own time (its
   * stdout, the requests it sends the client, files its commands write). Polls every 20 ms; the
   * 10 s bound is one a loaded machine still meets, not a measure of speed.
   * @throws naming `what`, with the agent's stderr, when `condition` does not hold within it.
   */
  async waitUntil(condition: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!condition()) {
      if (Date.now() > deadline) {
        throw new Error(`timed out waiting for ${what}; stderr: ${this.stderr}`);
      }
      await sleep(20);
    }
  }

  /** Closes stdin (the client went away) and waits for the exit code. */
  async end(): Promise<number | null> {
    this.process.stdin.end();
    return this.exited;
  }

  /** `kill -9`, and the same for the process groups of commands it started (they would linger). */
  async kill(): Promise<void> {
    const groups = childPids(this.process.pid);
    this.process.kill("SIGKILL");
    await this.exited;
    for (const pid of groups) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // Gone already.
      }
    }
  }
}

function childPids(pid: number | undefined): number[] {
  if (pid === undefined) {
    return [];
  }
  try {
    return execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
      .split("\n")
      .map((line) => Number(line.trim()))
      .filter((child) => Number.isInteger(child) && child > 0);
  } catch {
    return [];
  }
}

/** A fake model server, a home and a cwd for child agents, and the agents started there. */
export class ChildFixture extends LateModelPlace {
  readonly children: AcpChild[] = [];

  private constructor() {
    super("acp-child");
  }

  /** An open fixture; the caller closes it. */
  static async start(): Promise<ChildFixture> {
    const fixture = new ChildFixture();
    await fixture.open();
    return fixture;
  }

  /**
   * One fixture for every test of the calling file (or `describe`): opened afresh before each
   * test and closed after it (`beforeEach`/`afterEach`, registered here).
   */
  static forEachTest(): ChildFixture {
    const fixture = new ChildFixture();
    beforeEach(() => fixture.open());
    afterEach(() => fixture.close());
    return fixture;
  }

  /** The environment `turnloop` runs in: this home, the fake model, nothing of the parent's. */
  environment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    return cleanEnvironment({
      TURNLOOP_HOME: this.home,
      TURNLOOP_MODEL: "openai-compatible:fake-model",
      TURNLOOP_BASE_URL: `${this.server.url}/v1`,
      ...extra,
    });
  }

  /**
   * Starts `turnloop acp` in {@link environment} with `extra` on top, driven by a client that reads
   * messages of at most `clientLimit` bytes (the SDK's default when undefined).
   */
  startAgent(extra: NodeJS.ProcessEnv = {}, clientLimit?: number): AcpChild {
    const child = new AcpChild(this.environment(extra), this.cwd, clientLimit);
    this.children.push(child);
    return child;
  }

  /**
   * A new agent (as {@link startAgent}) that has loaded `sessionId`: initialized with no client
   * capabilities, `session/load` answered, the replayed history among its `updates`.
   */
  async agentWithSession(sessionId: string, extra: NodeJS.ProcessEnv = {}): Promise<AcpChild> {
    const agent = this.startAgent(extra);
    await agent.initialize();
    await agent.loadSession(sessionId);
    return agent;
  }

  async persisted(sessionId: string): Promise<SessionEvent[]> {
    const path = join(this.home, "session-state", sessionId, "events.jsonl");
    return (await readFile(path, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as SessionEvent);
  }

  /** Kills the agents still running, then closes the place. */
  override async close(): Promise<void> {
    for (const child of this.children.splice(0)) {
      if (child.process.exitCode === null && child.process.signalCode === null) {
        await child.kill();
      }
    }
    await super.close();
  }
}
