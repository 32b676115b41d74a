/**
 * A session another worker holds, loaded over ACP (issue 22; a store shared by workers, i.e.
 * PostgreSQL). `session/load` replays its stored events and then follows it: every event the owner
 * stores from then on arrives as `session/update`s, read through the store's subscription (once
 * each, in order). Streaming deltas stay on the owner: a follower sends each answer whole, when
 * the owner stores it. A `session/prompt` goes to the owner through the store's inbox (the owner
 * runs it as if its own client had sent it) and is answered when its stored events end
 * (session/prompt-end.ts); `session/cancel` sends an abort the same way. When no live worker
 * holds the session any more, the prompt is not sent: the caller claims the session here. While a
 * prompt waits on the owner, the owner's lease is checked (session/owner-watch.ts): when it lapsed
 * (the owner died), what it stored is delivered, the prompt ends with a `-32603` error saying so
 * (after a notice with the same text, notices.ts), and the next prompt claims the session; while
 * none waits, an owner that dies running a prompt is told as a notice (followed-holder.ts). The
 * follower registers with the owner as a permission handler, and asks its client the owner's
 * questions (remote-permissions.ts). When another worker or app deletes the session (the store's
 * live events, live-events.ts `onDeleted`), a prompt waiting on it ends with `-32002` saying so,
 * and the following stops (acp/deleted-sessions.ts answers the later requests).
 */

import * as acp from "@agentclientprotocol/sdk";
import type { SessionEvent } from "../events/events.js";
import { droppedPromptsMessage, interruptedPromptMessage } from "../session/dropped-prompts.js";
import { registerHandler } from "../session/follower-handler.js";
import { type OwnerWatch, watchOwner } from "../session/owner-watch.js";
import { SentPrompts } from "../session/prompt-end.js";
import type { SessionSubscription } from "../session/session-follower.js";
import { InboxRefusedError } from "../session/session-locked-error.js";
import type { RefusedPrompt, StoredLog } from "../session/session-store.js";
import { builtinTools } from "../tools/index.js";
import { followedAnswer, invalidParams, invalidRequest } from "./errors.js";
import { FollowedHolder } from "./followed-holder.js";
import { type FollowAnswer, followAnswer } from "./modes.js";
import { noticeUpdate, offersNotices } from "./notices.js";
import { promptContent } from "./prompt-content.js";
import { RemotePermissions } from "./remote-permissions.js";
import { type FollowedEnd, type RemotePrompt, withoutEndNotice } from "./remote-prompt.js";
import { replayWith } from "./replay.js";
import type { AcpSessionContext } from "./session-context.js";
import { boundedUpdates } from "./update-outbox.js";
import { UpdateMapper } from "./updates.js";

/** What a followed session needs from its connection. */
export type RemoteSessionContext = Pick<
  AcpSessionContext,
  "host" | "client" | "offered" | "sendsUsage" | "extraTools"
>;

export type { FollowAnswer } from "./modes.js";

/** A session followed by one ACP connection, with what claiming it there needs. */
export interface FollowedSession {
  remote: AcpRemoteSession;
  client: acp.AgentContext;
  /** The `mcpServers` of its load or resume, started should this process claim it. */
  mcpServers: readonly acp.McpServer[];
}

export class AcpRemoteSession {
  readonly id: string;
  /** The session's working directory (its `session.start`). */
  readonly cwd: string;
  readonly #context: RemoteSessionContext;
  readonly #model: string;
  readonly #mapper: UpdateMapper;
  #subscription: SessionSubscription | undefined;
  #ownerWatch: OwnerWatch | undefined;
  #permissions: RemotePermissions | undefined;
  #unregister: () => Promise<void> = async () => undefined;
  #stopLive: () => void = () => undefined;
  #stopHolderWatch: () => void = () => undefined;
  readonly #holder: FollowedHolder;
  #deleted = false;
  #prompt: RemotePrompt | undefined;
  readonly #sent = new SentPrompts();
  #lastSent: Promise<void> = Promise.resolve();

  private constructor(context: RemoteSessionContext, sessionId: string, log: StoredLog) {
    this.id = sessionId;
    this.#context = context;
    const start = log.events.find((event) => event.type === "session.start");
    this.cwd = start?.type === "session.start" ? start.data.cwd : "";
    this.#model = start?.type === "session.start" ? start.data.model : "";
    this.#holder = new FollowedHolder(sessionId, log.events);
    const extraTools = context.extraTools;
    this.#mapper = new UpdateMapper({
      mode: "replay",
      cwd: this.cwd,
      toolNamed: (name) => [...builtinTools(), ...extraTools].find((tool) => tool.name === name),
      contextWindow: (modelId) => context.host.contextWindowOf(modelId),
      titled: false,
      notices: offersNotices(context.offered),
    });
  }

  /**
   * Follows `sessionId` from the end of `log` (just read); with `replay`, first sends the updates
   * that replay `log` (ACP `session/load`) and resolves once they are written. `onDeleted`: called
   * once, when another worker or app deleted the session (its prompt then answered so).
   * @throws Error when the log has no `session.start`; the store's read errors.
   */
  static async follow(
    context: RemoteSessionContext,
    sessionId: string,
    log: StoredLog,
    { replay, onDeleted }: { replay: boolean; onDeleted: () => void },
  ): Promise<AcpRemoteSession> {
    if (!log.events.some((event) => event.type === "session.start")) {
      throw new Error(`session ${sessionId} has no session.start event`);
    }
    const remote = new AcpRemoteSession(context, sessionId, log);
    const updates = replayWith(remote.#mapper, log.events);
    if (replay) {
      for (const update of updates) {
        remote.#send(update);
      }
      await remote.#lastSent;
    }
    remote.#subscription = await context.host.store.subscribe(sessionId, log.nextSeq, (event) =>
      remote.#stored(event),
    );
    const stopLive = context.host.store.live?.listen(
      sessionId,
      () => undefined,
      () => remote.#wasDeleted(onDeleted),
    );
    remote.#stopLive = stopLive ?? remote.#stopLive;
    const { inbox } = context.host.store;
    if (inbox !== undefined) {
      // Before any prompt: the owner reads the registration first (follower-handler.ts).
      remote.#permissions = new RemotePermissions(context.client, sessionId, inbox);
      remote.#unregister = await registerHandler(inbox, sessionId, context.host.env);
      remote.#stopHolderWatch = remote.#holder.watch(inbox, {
        onlyFollowing: () => !remote.#sent.waiting && !remote.#sent.ownerClosed && !remote.#deleted,
        readNow: async () => remote.#subscription?.readNow(),
        told: () => remote.#sent.ownerGone(),
        say: (notice) => remote.#send(noticeUpdate(notice, offersNotices(context.offered))),
      });
    }
    remote.#ownerWatch = watchOwner(
      context.host.store,
      sessionId,
      () => remote.#sent.waiting,
      () => remote.#ownerGone(),
      {
        unended: () => remote.#sent.unended(),
        onRefused: (refused) => remote.#refused(refused),
      },
    );
    return remote;
  }

  /** Whether a prompt of this client is sent and not answered yet. */
  get running(): boolean {
    return this.#prompt !== undefined;
  }

  /**
   * The load or resume answer: the modes and config options a session opened here would start
   * with (the run config's default mode; the owner keeps its own choices).
   */
  answer(): FollowAnswer {
    return followAnswer(this.#context.host, this.#model);
  }

  /**
   * ACP v1 prompt-turn, run by the owner: sends the prompt through the inbox and answers once its
   * stored events end; every update of it is written before the answer.
   * @returns `"claim"` when no live worker holds the session, or its owner closed it as far as
   * read here (nothing was sent).
   * @throws `-32600` while a prompt of this client runs, or when the owner runs only its own
   * prompts (`-p`, the interactive face, another `turnloop acp`: session-store.ts
   * `takesInbox`); `-32602` for images (the inbox carries text); `-32603` when the owner was gone
   * before it ended (why: session/dropped-prompts.ts); the prompt's failure as a local prompt's
   * (`promptFailure`), also when the owner refused it unstored (the inbox's `refusals`, checked
   * with the owner's lease): `-32602` naming both sizes beyond the window, else `-32603`.
   */
  async prompt(
    blocks: readonly acp.ContentBlock[],
    signal: AbortSignal,
  ): Promise<acp.PromptResponse | "claim"> {
    if (this.#prompt !== undefined) {
      throw invalidRequest(
        `Session ${this.id} is already running a prompt; wait for its answer or send session/cancel first.`,
      );
    }
    const { text, images, contentBlocks, notSent } = promptContent(blocks);
    if (images.length > 0) {
      throw invalidParams(
        ["prompt"],
        `expected text only: session ${this.id} runs on another worker, which takes text prompts only: send the images to that worker`,
      );
    }
    if (this.#sent.ownerClosed) {
      // The owner closed the session: it would drop the prompt.
      return "claim";
    }
    let settle: (end: FollowedEnd) => void = () => undefined;
    const ended = new Promise<FollowedEnd>((resolve) => {
      settle = resolve;
    });
    const id = this.#sent.add();
    const prompt: RemotePrompt = { id, cancelled: false, posted: Promise.resolve(), settle };
    this.#prompt = prompt;
    try {
      // The blocks as given go with the text, so the owner records the prompt as a local one,
      // and what the model gets only a note of, which the owner warns of as of a local one's.
      const given = {
        ...(contentBlocks === undefined ? {} : { contentBlocks }),
        ...(notSent === undefined ? {} : { notSent }),
      };
      const payload = { sessionId: this.id, prompt: text, promptId: id, ...given };
      const posting = this.#context.host.store.inbox?.post(this.id, { kind: "prompt", payload });
      prompt.posted = posting?.then(() => undefined).catch(() => undefined) ?? prompt.posted;
      const epoch = await posting?.catch((error: unknown) => {
        throw error instanceof InboxRefusedError ? invalidRequest(error.message) : error;
      });
      if (epoch === undefined) {
        return "claim";
      }
      this.#sent.addressed(id, epoch);
      const onCancel = () => this.cancel();
      signal.addEventListener("abort", onCancel, { once: true });
      const end = await ended.finally(() => signal.removeEventListener("abort", onCancel));
      await this.#lastSent;
      return followedAnswer(end);
    } finally {
      this.#sent.remove(id);
      this.#prompt = undefined;
    }
  }

  /**
   * ACP v1 `session/cancel`: asks the owner to stop, with an abort sent once the prompt's own
   * message is in the inbox (the owner takes them in order). The prompt is answered where the
   * owner's stored events end it: its `abort`, which names it when it dropped it queued (then
   * `cancelled`), or its end if it ended first. Never sooner: what this follower has read may lag
   * behind what the owner stored, so a prompt not seen started here may run there already, and
   * its stored events are this client's prompt's (bench/notes/flaky44.md).
   */
  cancel(): void {
    const prompt = this.#prompt;
    if (prompt === undefined || prompt.cancelled || this.#deleted) {
      return;
    }
    prompt.cancelled = true;
    const { inbox } = this.#context.host.store;
    void prompt.posted
      .then(() => inbox?.post(this.id, { kind: "abort", payload: null }))
      .catch(() => undefined);
  }

  /**
   * Claims the session here (no live worker holds it): `claim` opens it, storing `session.resume`
   * and the interrupted results of the calls a gone owner left open. The following stops after
   * the claim, not before, so what the claim stored reaches the client as every other event did
   * (every event of the log once, in log order, whoever wrote it), before the claimed session's
   * own updates. @returns what `claim` returns. @throws what `claim` throws (following stopped).
   */
  async claimedBy<Claimed>(claim: () => Promise<Claimed>): Promise<Claimed> {
    this.#ownerWatch?.stop();
    this.#stopHolderWatch();
    try {
      return await claim();
    } finally {
      await this.close();
    }
  }

  /** Delivers what is stored now, then stops following. Closing twice is a no-op. */
  async close(): Promise<void> {
    const subscription = this.#subscription;
    this.#subscription = undefined;
    this.#ownerWatch?.stop();
    this.#stopHolderWatch();
    this.#stopLive();
    this.cancel();
    // A deleted session's log is gone: nothing left to deliver.
    await subscription?.readNow().catch(() => undefined);
    await subscription?.close();
    // Nothing more is read: a prompt of this client the owner did not end as read is cancelled.
    this.#prompt?.settle({ stopReason: "cancelled" });
    this.#permissions?.close();
    const unregister = this.#unregister;
    this.#unregister = async () => undefined;
    await unregister();
    await this.#lastSent;
  }

  /** The session was deleted: this client's prompt ends saying so, and the following stops. */
  #wasDeleted(onDeleted: () => void): void {
    if (this.#deleted) {
      return;
    }
    this.#deleted = true;
    this.#prompt?.settle({ deletedSession: this.id });
    onDeleted();
    this.close().catch(() => undefined);
  }

  /**
   * No live worker holds the session any more while a prompt of this client waits on it: withdraws
   * it from the inbox unless the owner took it, fencing the gone owner's lease (the inbox's
   * `withdraw`), delivers what the owner stored, then ends the prompt with an error, told first as
   * turnloop's notice (notices.ts: never part of the reply): "send it again" only when it never
   * started (it never will), else that it ended unfinished. An owner that came back keeps a prompt
   * it took; one taken by a lease that another worker's claim replaced never runs: it is told
   * "send it again" too (`SentPrompts.settle`). The error says why the owner was gone.
   */
  async #ownerGone(): Promise<void> {
    const settled = await this.#context.host.store.inbox?.withdraw(this.id, this.#sent.unstarted());
    await this.#subscription?.readNow();
    const { dropped: droppedIds, interrupted, cause } = this.#sent.settle(settled);
    const prompt = this.#prompt;
    if (prompt === undefined) {
      return;
    }
    const dropped = droppedIds.includes(prompt.id);
    const message = dropped
      ? droppedPromptsMessage(this.id, cause, "this")
      : interrupted === prompt.id && cause !== "replaced"
        ? interruptedPromptMessage(this.id, "this", cause)
        : undefined;
    if (message === undefined) {
      return;
    }
    const title = dropped ? "Prompt not run" : "Prompt interrupted";
    const notice = { severity: "error", title, text: message } as const;
    this.#send(noticeUpdate(notice, offersNotices(this.#context.offered)));
    prompt.settle({ ownerGone: message });
  }

  /**
   * The owner told on the inbox how prompts ended that the store holds no end of (refused before
   * anything of them was stored, or their events refused by the store): this client's fails so.
   */
  #refused(refused: readonly RefusedPrompt[]): void {
    const prompt = this.#prompt;
    for (const { promptId, ...refusal } of this.#sent.refused(refused)) {
      if (prompt?.id === promptId) {
        prompt.settle({ refused: refusal });
      }
    }
  }

  /**
   * One event the owner stored: its updates, and the end of this client's prompt (matched by its
   * id); a prompt the owner closed the session without running or finishing fails.
   */
  #stored(event: SessionEvent): void {
    const prompt = this.#prompt;
    let updates = this.#mapper.map(event);
    this.#holder.read(event);
    const news = this.#sent.stored(event);
    this.#permissions?.stored(event);
    // A new lease's takeover record: prompts addressed to the old one are settled.
    this.#ownerWatch?.stored(event);
    if (news?.kind === "started" && prompt?.id === news.promptId) {
      // The client shows its own prompt; only the title it gives is news.
      updates = updates.filter((update) => update.sessionUpdate !== "user_message_chunk");
    } else if (news?.kind === "ended" && prompt !== undefined && news.promptId === prompt.id) {
      updates = withoutEndNotice(updates, event, offersNotices(this.#context.offered));
    }
    for (const update of updates) {
      this.#send(update);
    }
    if (prompt === undefined) {
      return;
    }
    if (news?.kind === "dropped" && news.promptIds.includes(prompt.id)) {
      // This client's cancel dropped it unrun: cancelled, as a local queued prompt's.
      const message = droppedPromptsMessage(this.id, news.cause, "this");
      prompt.settle(
        prompt.cancelled && news.cause === "abort"
          ? { stopReason: "cancelled" }
          : { error: { errorType: "server", message } },
      );
    } else if (news?.kind === "ended" && news.promptId === prompt.id) {
      prompt.settle(news.end);
    }
  }

  #send(update: acp.SessionUpdate): void {
    if (update.sessionUpdate === "usage_update" && !this.#context.sendsUsage()) {
      return;
    }
    for (const piece of boundedUpdates(update)) {
      const params = { sessionId: this.id, update: piece };
      // A closed connection rejects every send; there is nobody left to tell.
      this.#lastSent = this.#context.client
        .notify(acp.methods.client.session.update, params)
        .catch(() => undefined);
    }
  }
}
