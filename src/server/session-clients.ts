/**
 * The apps attached to one served session: the connection that created it and every connection
 * that resumed it since, each with what it registered. As with the Copilot CLI (the SDK's
 * multi-client broadcast pattern, `_handleBroadcastEvent` in `@github/copilot-sdk`'s session.js):
 * - every attached app receives every event, so `permission.requested` reaches the apps with a
 *   permission handler; the first answer counts, later ones get `success: false` and hang nothing;
 * - the custom tools offered are the union of the apps' tools (the first registration of a name
 *   kept); an app that detaches or disconnects takes its tools with it;
 * - a call of an app's tool runs once: its `external_tool.requested` reaches every app but those
 *   that registered the same name after the app that runs it ({@link runnerOf}: the first attached
 *   that registered it), as the SDK runs every handler it has for the name (`_handleBroadcastEvent`);
 *   when that app goes, the call's request is sent to the next app that registered the name;
 * - the session asks for permission when any app registered a handler (or a follower on another
 *   worker did, issue 22, while its registration lasts); hooks and user-input
 *   requests go to the latest attached app that registered them;
 * - the session-wide settings (system message, tool filters, allow-all) are the latest attach's;
 * - events go out as Copilot's wire has them (wire-events.ts): not turnloop's progress marks
 *   (`assistant.tool_call_start`, `tool.execution_running`), and with Copilot's `assistant.idle`
 *   each time the agent loop stops.
 */

import type { HookType, JsonObject, JsonValue, SessionEvent } from "../events/events.js";
import { ServerToClient } from "../protocol/copilot.js";
import type { HooksInvokeParams, HooksInvokeResult } from "../protocol/hooks.js";
import { type ClientLink, promptModeAfter, sendIdle } from "./client-link.js";
import { notificationFrame } from "./notification-text.js";
import type { ToolDeclarationParams } from "./params.js";
import { OpenRequests } from "./pending-work.js";
import type { SessionConfig } from "./session-settings.js";
import { copilotEventsBefore, onCopilotWire } from "./wire-events.js";

export class SessionClients {
  /** Attached apps in attach order (a re-attach keeps its place, with its new registrations). */
  private readonly attached = new Map<ClientLink, SessionConfig>();
  /** The app attached last, whose session-wide settings apply. */
  private latest: ClientLink | undefined;
  /** What waits for an app, as sent: a resume with `continuePendingWork` gets it again. */
  readonly openRequests = new OpenRequests();

  /**
   * Followers on other workers with a permission handler (issue 22; remote-sessions.ts): when
   * each registration expires unless renewed, and its timer.
   */
  private readonly followers = new Map<string, NodeJS.Timeout>();
  /** The `agentMode` of the last prompt's `user.message`: `session.idle`'s `mode` (client-link.ts). */
  private promptMode: string | undefined;

  /** @param followersChanged called when a follower's registration starts, ends or expires. */
  constructor(private readonly followersChanged: () => void = () => undefined) {}

  /**
   * Registers (or renews) a follower with a permission handler on another worker for
   * `expiresInMs` milliseconds: while registered, the session asks for permission.
   */
  attachFollower(followerId: string, expiresInMs: number): void {
    const known = this.followers.get(followerId);
    clearTimeout(known);
    const expiry = setTimeout(() => this.removeFollower(followerId), expiresInMs);
    expiry.unref();
    this.followers.set(followerId, expiry);
    if (known === undefined) {
      this.followersChanged();
    }
  }

  /** Ends a follower's registration (it left, or did not renew in time). */
  removeFollower(followerId: string): void {
    const expiry = this.followers.get(followerId);
    if (expiry !== undefined) {
      clearTimeout(expiry);
      this.followers.delete(followerId);
      this.followersChanged();
    }
  }

  /** Attaches `link` with what it registered, or replaces its registrations. */
  attach(link: ClientLink, config: SessionConfig): void {
    this.attached.set(link, config);
    this.latest = link;
  }

  /**
   * Detaches `link` and its registrations.
   * @returns whether any app is still attached.
   */
  remove(link: ClientLink, sessionId: string): boolean {
    const handedOver = [...this.openRequests.toolCalls()].filter(
      (call) => this.runnerOf(call.toolName) === link,
    );
    this.attached.delete(link);
    if (this.latest === link) {
      this.latest = [...this.attached.keys()].at(-1);
    }
    for (const call of handedOver) {
      this.runnerOf(call.toolName)?.notifyFrame(frameOf(sessionId, call.wire));
    }
    return this.attached.size > 0;
  }

  /**
   * The app that runs calls of the tool `toolName`: the first attached (attach order) that
   * registered it, whose declaration the model sees ({@link config}); undefined when none did.
   */
  runnerOf(toolName: string): ClientLink | undefined {
    for (const link of this.attached.keys()) {
      if (this.registers(link, toolName)) {
        return link;
      }
    }
    return undefined;
  }

  /**
   * Whether `link` is to be sent the request of a call of `toolName`: unless it registered the
   * tool and another app runs it ({@link runnerOf}), as its SDK would run the call too.
   */
  mayBeAsked(link: ClientLink, toolName: string): boolean {
    return !this.registers(link, toolName) || this.runnerOf(toolName) === link;
  }

  /** Whether the attached `link` registered a tool named `toolName`. */
  private registers(link: ClientLink, toolName: string): boolean {
    return this.attached.get(link)?.tools?.some((tool) => tool.name === toolName) === true;
  }

  has(link: ClientLink): boolean {
    return this.attached.has(link);
  }

  /** How many apps are attached. */
  get count(): number {
    return this.attached.size;
  }

  /** Forgets every app (the session is closing). */
  clear(): void {
    for (const expiry of this.followers.values()) {
      clearTimeout(expiry);
    }
    this.followers.clear();
    this.attached.clear();
    this.latest = undefined;
  }

  /** The app session-wide requests go to (`systemMessage` transforms): the latest attached. */
  get primary(): ClientLink | undefined {
    return this.latest;
  }

  /**
   * The session's registrations as one app's: the latest attach's settings, the union of the
   * custom tools, `requestPermission` / `requestSandboxBypass` / `requestUserInput` / `hooks`
   * when any app asked.
   */
  config(): SessionConfig {
    const latest = this.latest === undefined ? undefined : this.attached.get(this.latest);
    const tools = new Map<string, ToolDeclarationParams>();
    for (const config of this.attached.values()) {
      for (const tool of config.tools ?? []) {
        if (!tools.has(tool.name)) {
          tools.set(tool.name, tool);
        }
      }
    }
    type Flag = "requestPermission" | "requestSandboxBypass" | "requestUserInput" | "hooks";
    const any = (flag: Flag) => [...this.attached.values()].some((config) => config[flag] === true);
    return {
      ...latest,
      tools: [...tools.values()],
      requestPermission: any("requestPermission") || this.followers.size > 0,
      requestSandboxBypass: any("requestSandboxBypass"),
      requestUserInput: any("requestUserInput"),
      hooks: any("hooks"),
    };
  }

  /** The latest attached app that registered `flag` (hooks, a user-input handler). */
  registeredFor(flag: "hooks" | "requestUserInput"): ClientLink | undefined {
    const links = [...this.attached.entries()].filter(([, config]) => config[flag] === true);
    const latest = links.find(([link]) => link === this.latest);
    return (latest ?? links.at(-1))?.[0];
  }

  /**
   * Sends `wire` (an event as the wire shows it) to every attached app; deltas only to the apps
   * that asked for streaming (`streaming` not false); not the events Copilot's wire does not
   * have, and first Copilot's `assistant.idle` where the loop stopped and its `assistant.reasoning`
   * before a reply with reasoning (wire-events.ts `copilotEventsBefore`).
   */
  notify(sessionId: string, event: SessionEvent, wire: object): void {
    this.promptMode = promptModeAfter(event, this.promptMode);
    this.openRequests.see(event, wire);
    if (!onCopilotWire(event)) {
      return;
    }
    if (this.attached.size === 0) {
      return;
    }
    const before = copilotEventsBefore(event);
    const delta =
      event.type === "assistant.message_delta" || event.type === "assistant.reasoning_delta";
    // Each event encoded once however many apps are attached, when the first one needs it: every
    // app gets the same bytes. Per streamed delta: the keys and an indexed loop, not `[link,
    // config]` entries and an iterator of `before` (which is empty for most events): 97 → 0 bytes
    // a delta with one app attached whose `notify` keeps nothing (bench/notes/turn37.md).
    const beforeFrames =
      before.length === 0 ? NO_FRAMES : before.map((one) => frameOf(sessionId, one));
    const toolName = event.type === "external_tool.requested" ? event.data.toolName : undefined;
    let frame: string | undefined;
    for (const link of this.attached.keys()) {
      for (let index = 0; index < beforeFrames.length; index++) {
        link.notifyFrame(beforeFrames[index] ?? "");
      }
      if (toolName !== undefined && !this.mayBeAsked(link, toolName)) {
        continue;
      }
      if (!delta || this.attached.get(link)?.streaming !== false) {
        frame ??= frameOf(sessionId, wire);
        link.notifyFrame(frame);
      }
    }
  }

  /** Tells every attached app that the session is idle (see {@link sendIdle}). */
  sendIdle(sessionId: string, startTime: string, idle: SessionEvent): void {
    if (this.attached.size > 0) {
      sendIdle(this.attached.keys(), sessionId, startTime, idle, this.promptMode);
    }
  }

  /**
   * `hooks.invoke` to the latest attached app that registered hooks, waiting `timeoutMs` for the
   * answer (protocol/hooks.ts `hookTimeoutMs`).
   * @returns its `output`. @throws when no such app is attached, or it fails or times out.
   */
  async invokeHook(
    sessionId: string,
    hookType: HookType,
    input: JsonObject,
    signal: AbortSignal | undefined,
    timeoutMs: number,
  ): Promise<JsonValue | undefined> {
    const link = this.registeredFor("hooks");
    if (link === undefined) {
      throw new Error("no app with hooks is connected");
    }
    const params: HooksInvokeParams = { sessionId, hookType, input };
    const result = await link.request(ServerToClient.hooksInvoke, params, signal, timeoutMs);
    return (result as HooksInvokeResult | null)?.output;
  }
}

/** The frames of no events (most events have no Copilot event before them). */
const NO_FRAMES: readonly string[] = [];

/** The framed `session.event` notification of `event` (as it goes on the wire) in `sessionId`. */
function frameOf(sessionId: string, event: object): string {
  return notificationFrame(ServerToClient.sessionEvent, { sessionId, event });
}
