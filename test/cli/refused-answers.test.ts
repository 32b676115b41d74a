/**
 * A trial's finding: with the log's file system full, `turnloop -p` threw away an answer it had
 * already received: the user saw the storage error and no answer, though the model had answered.
 * Nothing received is lost now (session/session-journal.ts): the reply the store refused still
 * reaches every face, the error says what could not be written, and the log stays readable.
 *
 * The free space is exact (`FullDisk.leave`): 8 blocks of 4 KiB hold the session's small files
 * (lock, log, metadata, input history) and a short reply, never `ANSWER` (60 KB) in one
 * line, so the store refuses exactly the reply. The code cache is off: its writes would take
 * blocks first. The interactive terminal's cases: refused-answers-interactive.test.ts.
 */

import { execFileSync } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { describe, expect } from "vitest";
import { AcpChild } from "../acp/child-process.js";
import { test } from "../support/fixtures.js";
import { CAN_MOUNT, needingMount, useFullDisk } from "../support/full-disk.js";
import {
  ANSWER,
  FREE_BLOCKS,
  firstSession,
  LOUD_CALL,
  lockDuringReply,
  loggedTypes,
  refusedLog,
  serverSession,
  UNRECORDED_WORDS,
  withoutTime,
} from "../support/storage-refusals.js";

/** An ACP update about a tool call. */
type CallUpdate = Extract<acp.SessionUpdate, { sessionUpdate: "tool_call" | "tool_call_update" }>;

/** `text` with {@link ANSWER} as `<ANSWER>`, so that a failure's diff stays readable. */
function abbreviated(text: string): string {
  return text.split(ANSWER).join("<ANSWER>");
}

/** `result` with its stdout {@link abbreviated}. */
function shown<T extends { stdout: string }>(result: T): T {
  return { ...result, stdout: abbreviated(result.stdout) };
}

describe.runIf(CAN_MOUNT)(needingMount("a disk too full for the model's answer"), () => {
  const disk = useFullDisk(512, false, { TURNLOOP_NO_CODE_CACHE: "1" });

  test("-p prints the answer, says the log could not take it, exits 1; the log resumes", async ({
    cli,
    model,
  }) => {
    const { home, env } = disk;
    await disk.leave(FREE_BLOCKS);
    model.enqueue({ text: ANSWER });
    const result = await cli(["-p", "hi"], { env });
    const [sessionId = ""] = await readdir(join(home, "session-state"));
    expect({ ...shown(result), stderr: withoutTime(result.stderr) }).toEqual({
      code: 1,
      signal: null,
      stdout: "<ANSWER>\n",
      stderr: expect.stringMatching(
        new RegExp(
          `^turnloop: ${refusedLog(home)}\\n` +
            `1 turn · 10 in / 5 out tokens · <time> · session ${sessionId}\\n$`,
        ),
      ),
    });
    // No half line: the refused write was cut; the error fitted in the log's last block.
    expect(await loggedTypes(home, sessionId)).toEqual([
      "session.start",
      "user.message",
      "assistant.turn_start",
      "session.error",
    ]);

    await disk.free();
    model.enqueue({ text: "Again." });
    const resumed = await cli(["-p", "again", "--resume", sessionId], { env });
    expect({ ...resumed, stderr: withoutTime(resumed.stderr) }).toEqual({
      code: 0,
      signal: null,
      stdout: "Again.\n",
      stderr:
        "turnloop: repaired the session log: closed 1 turn left open when its process ended, " +
        "as interrupted\n" +
        `1 turn · 10 in / 5 out tokens · <time> · session ${sessionId}\n`,
    });
  });

  test("-p --output-format json: the answer in result, with the storage error", async ({
    cli,
    model,
  }) => {
    const { home, env } = disk;
    await disk.leave(FREE_BLOCKS);
    model.enqueue({ text: ANSWER });
    const result = await cli(["-p", "hi", "--output-format", "json"], { env });
    const [sessionId = ""] = await readdir(join(home, "session-state"));
    const printed = JSON.parse(result.stdout) as { result: string; error: { message: string } };
    // stderr says what --quiet's does: the error, once (README, "JSON output").
    expect([result.code, result.stderr]).toEqual([1, `turnloop: ${printed.error.message}\n`]);
    expect({ ...printed, duration_ms: 0, result: abbreviated(printed.result) }).toEqual({
      type: "result",
      subtype: "error_during_execution",
      is_error: true,
      result: "<ANSWER>",
      stop_reason: null,
      session_id: sessionId,
      num_turns: 1,
      duration_ms: 0,
      usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0 },
      permission_denials: [],
      left_running_pids: [],
      error: {
        type: "storage",
        message: expect.stringMatching(new RegExp(`^${refusedLog(home)}$`)),
      },
    });
  });

  test("-p: a command's result the log refused still has its line; the prompt stops there", async ({
    cli,
    model,
  }) => {
    const { home, env } = disk;
    await disk.leave(FREE_BLOCKS);
    model.enqueue(LOUD_CALL, { text: "Never asked for." });
    const result = await cli(["-p", "go", "--allow-all-tools"], { env });
    const [sessionId = ""] = await readdir(join(home, "session-state"));
    expect(model.requests).toHaveLength(1);
    expect({
      ...result,
      stderr: withoutTime(result.stderr).replace(/ \([\d.]+ (?:ms|s|min)\) —/, " (<ms>) —"),
    }).toEqual({
      code: 1,
      signal: null,
      stdout: "",
      stderr: expect.stringMatching(
        new RegExp(
          // The line says the result is not in the log (trial 39 F3: it said ✓ alone).
          `^✓ bash seq 1 8000 \\(<ms>\\) — its result is not in the session log: the log could not be written\\n` +
            `turnloop: ${refusedLog(home)}\\n` +
            `1 turn · 10 in / 5 out tokens · <time> · session ${sessionId}\\n$`,
        ),
      ),
    });
  });

  test("acp: a command's result the log refused still ends its tool call", async ({
    environment,
    repository,
    model,
  }) => {
    const agent = new AcpChild(environment(disk.env), repository);
    try {
      await agent.initialize();
      const sessionId = await agent.newSession();
      await disk.leave(FREE_BLOCKS);
      model.enqueue(LOUD_CALL, { text: "Never asked for." });
      // Which file the store meets full first is its own affair (the log, or its metadata).
      await expect(agent.prompt(sessionId, "go")).rejects.toMatchObject({
        code: -32603,
        message: expect.stringMatching(
          /^The session could not be stored: \/\S+ could not be written \(ENOSPC: no space left on device, write\): the prompt was stopped; every event written before is kept$/,
        ),
      });
      const calls = agent
        .updates(sessionId)
        .filter(
          (update: acp.SessionUpdate): update is CallUpdate =>
            update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update",
        );
      const statuses = calls.flatMap((update) => update.status ?? []);
      expect(statuses).toEqual(["pending", "in_progress", "failed"]);
      // The result reached the editor, not the log (a resume records the call interrupted): the
      // update says so, where it said `completed` alone (ACP v1 has no other status to say it).
      expect(calls.at(-1)).toEqual({
        sessionUpdate: "tool_call_update",
        toolCallId: "call_1",
        status: "failed",
        content: [
          {
            type: "content",
            content: { type: "text", text: expect.stringMatching(/^1\n2\n3\n[\s\S]+\n8000$/) },
          },
          {
            type: "content",
            content: { type: "text", text: `Its ${UNRECORDED_WORDS}.` },
          },
        ],
        rawOutput: { outcome: "completed", resultNotPersisted: true },
      });
    } finally {
      await agent.kill();
    }
  });

  test("acp: the whole reply streamed, the prompt's storage error, and the agent serves on", async ({
    environment,
    repository,
    model,
  }) => {
    const agent = new AcpChild(environment(disk.env), repository);
    try {
      await agent.initialize();
      const sessionId = await agent.newSession();
      await disk.leave(FREE_BLOCKS);
      model.enqueue({ text: ANSWER });
      await expect(agent.prompt(sessionId, "hi")).rejects.toMatchObject({
        code: -32603,
        data: { errorType: "storage" },
        message: expect.stringMatching(
          new RegExp(`^The session could not be stored: ${refusedLog(disk.home)}$`),
        ),
      });
      const streamed = agent
        .updates(sessionId)
        .flatMap((update: acp.SessionUpdate) =>
          update.sessionUpdate === "agent_message_chunk" && update.content.type === "text"
            ? [update.content.text]
            : [],
        );
      expect(abbreviated(streamed.join(""))).toBe("<ANSWER>");
      await disk.free();
      model.enqueue({ text: "Again." });
      await expect(agent.prompt(sessionId, "again")).resolves.toMatchObject({
        stopReason: "end_turn",
      });
    } finally {
      await agent.kill();
    }
  });

  test("--headless: assistant.message with the answer, then session.error, then session.idle", async ({
    environment,
    repository,
    model,
  }) => {
    const { child, peer, stderr, exit, prompt } = await serverSession(
      environment(disk.env),
      repository,
    );
    try {
      await disk.leave(FREE_BLOCKS);
      model.enqueue({ text: ANSWER });
      const lasting = await prompt("hi");
      expect(lasting.map((event) => event.type)).toEqual([
        "session.start",
        "user.message",
        "assistant.turn_start",
        // The request's usage before its reply, in Copilot's order (src/server/usage-order.ts).
        "session.usage_info",
        "assistant.usage",
        "assistant.message",
        "session.error",
        "assistant.idle",
        "session.idle",
      ]);
      const data = (type: string) => lasting.find((event) => event.type === type)?.data;
      expect(abbreviated(String(data("assistant.message")?.content))).toBe("<ANSWER>");
      expect(data("session.error")).toEqual({
        errorType: "storage",
        message: expect.stringMatching(new RegExp(`^${refusedLog(disk.home)}$`)),
      });
      expect([peer.garbage, stderr()]).toEqual(["", ""]);
      expect((await peer.request("ping", { message: "after" })).result).toMatchObject({
        message: "pong: after",
      });
    } finally {
      child.stdin.end();
      await exit;
    }
  });

  test("--headless: the result the log refused comes marked ephemeral, then session.error", async ({
    environment,
    repository,
    model,
  }) => {
    const { child, peer, stderr, exit, prompt } = await serverSession(
      environment(disk.env),
      repository,
      { allowAllTools: true },
    );
    try {
      await disk.leave(FREE_BLOCKS);
      model.enqueue(LOUD_CALL, { text: "Never asked for." });
      const lasting = await prompt("go");
      const complete = lasting.find((event) => event.type === "tool.execution_complete");
      // Copilot's envelope field for an event not persisted to the session log: an app learns
      // the result it was told is not kept (a resume records the call interrupted).
      expect(complete).toMatchObject({
        data: { toolCallId: "call_1", success: true },
        ephemeral: true,
      });
      expect(lasting.map((event) => event.type).slice(-4)).toEqual([
        "tool.execution_complete",
        "session.error",
        "assistant.idle",
        "session.idle",
      ]);
      expect([peer.garbage, stderr()]).toEqual(["", ""]);
    } finally {
      child.stdin.end();
      await exit;
    }
  });
});

describe.runIf(CAN_MOUNT)(needingMount("a session folder made unwritable mid-turn"), () => {
  const disk = useFullDisk(512, false, { TURNLOOP_NO_CODE_CACHE: "1" });

  // `chattr +i` on the folder (root ignores a mode): no file can be made or removed in it, and
  // the log, open already, still takes lines. The answer is logged; its metadata is refused, and
  // the lock stays (closing printed a raw EPERM stack for it).
  test("-p prints the answer, names the refused file, no stack; the lock it left is taken over", async ({
    cli,
    model,
  }) => {
    const { home, env } = disk;
    const { sessionId, folder } = await firstSession(cli, model, home, env);
    lockDuringReply(model, folder);
    const result = await cli(["-p", "again", "--resume", sessionId], { env });
    execFileSync("chattr", ["-i", folder]);
    expect({ ...result, stderr: withoutTime(result.stderr) }).toEqual({
      code: 1,
      signal: null,
      stdout: "The answer.\n",
      stderr: expect.stringMatching(
        new RegExp(
          `^turnloop: ${folder}/metadata\\.json could not be written \\(EPERM: operation not ` +
            `permitted, open '${folder}/metadata\\.json\\.\\w+\\.tmp'\\): the prompt was stopped; ` +
            "every event written before is kept\\n" +
            `1 turn · 10 in / 5 out tokens · <time> · session ${sessionId}\\n$`,
        ),
      ),
    });
    // The lock could not be removed: it names the process, now ended, so the next run takes it.
    expect(await readdir(folder)).toContain("lock");
    model.setResponder(undefined);
    model.enqueue({ text: "Third." });
    const resumed = await cli(["-p", "third", "--resume", sessionId], { env });
    expect([resumed.code, resumed.stdout]).toEqual([0, "Third.\n"]);
  });
});
