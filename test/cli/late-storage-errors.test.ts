/**
 * A write the store refuses after the prompt's `session.idle` (its last sync: the listing
 * `metadata.json` of a folder made unwritable with `chattr +i`, the log still open) is said on
 * every face, and the server still ends when its stdin does: it waited forever for the lock it
 * could not give up, which named itself (session/session-lock.ts, `leftBehind`).
 */

import { execFileSync } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { AcpChild } from "../acp/child-process.js";
import { test } from "../support/fixtures.js";
import { CAN_MOUNT, needingMount, useFullDisk } from "../support/full-disk.js";
import {
  FIRST_PROMPT_LOGGED,
  firstSession,
  lockDuringReply,
  loggedTypes,
  REFUSED_AFTER_TURN,
  serverSession,
} from "../support/storage-refusals.js";

describe.runIf(CAN_MOUNT)(needingMount("a session folder made unwritable after the reply"), () => {
  const disk = useFullDisk(512, false, { TURNLOOP_NO_CODE_CACHE: "1" });

  test("the piped interactive face says the late error after the answer and exits 1", async ({
    cli,
    model,
  }) => {
    const { home, env } = disk;
    const { sessionId, folder } = await firstSession(cli, model, home, env);
    lockDuringReply(model, folder);
    try {
      const result = await cli(["--resume", sessionId], { env, stdin: "again\n" });
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(
        new RegExp(
          `The answer\\.\\n(.*\\n)*turnloop: ${folder}/metadata\\.json could not be written ` +
            "\\(EPERM: operation not permitted, open '[^']+'\\): the prompt was stopped; every " +
            "event written before is kept\\n",
        ),
      );
    } finally {
      execFileSync("chattr", ["-i", folder]);
    }
  });

  test("acp: the late error answers the prompt; stdin's end ends the agent, events kept", async ({
    environment,
    repository,
    model,
  }) => {
    const agent = new AcpChild(environment(disk.env), repository);
    let folder = "";
    try {
      await agent.initialize();
      const sessionId = await agent.newSession();
      folder = join(disk.home, "session-state", sessionId);
      lockDuringReply(model, folder);
      await expect(agent.prompt(sessionId, "hi")).rejects.toMatchObject({
        code: -32603,
        data: { errorType: "storage" },
        message: expect.stringMatching(
          new RegExp(`^The session could not be stored: ${folder}/metadata\\.json could not`),
        ),
      });
      execFileSync("chattr", ["-i", folder]);
      expect(await agent.end()).toBe(0);
      expect(await loggedTypes(disk.home, sessionId)).toEqual(FIRST_PROMPT_LOGGED);
    } finally {
      if (folder !== "") {
        execFileSync("chattr", ["-i", folder]);
      }
      await agent.kill();
    }
  });

  test("--headless: session.error after session.idle; stdin's end ends the server, events kept", async ({
    environment,
    repository,
    model,
  }) => {
    const { child, peer, stderr, exit, sessionId, prompt } = await serverSession(
      environment(disk.env),
      repository,
    );
    let folder = "";
    try {
      folder = join(disk.home, "session-state", sessionId);
      lockDuringReply(model, folder);
      const lasting = await prompt("hi");
      expect(lasting.map((event) => event.type)).toEqual(REFUSED_AFTER_TURN);
      expect(lasting.find((event) => event.type === "session.error")?.data).toEqual({
        errorType: "storage",
        message: expect.stringMatching(
          new RegExp(`^${folder}/metadata\\.json could not be written \\(EPERM: `),
        ),
      });
      execFileSync("chattr", ["-i", folder]);
      child.stdin.end();
      expect(await exit).toBe(0);
      expect([peer.garbage, stderr()]).toEqual(["", ""]);
      expect(await loggedTypes(disk.home, sessionId)).toEqual([
        ...FIRST_PROMPT_LOGGED,
        "session.shutdown",
      ]);
      // The lock it could not give up named itself: it took it back to write its end, then let go.
      expect(await readdir(folder)).not.toContain("lock");
    } finally {
      if (folder !== "") {
        execFileSync("chattr", ["-i", folder]);
      }
      child.kill("SIGKILL");
    }
  });
});

describe.runIf(CAN_MOUNT)(needingMount("a disk that fills while a served session is idle"), () => {
  const disk = useFullDisk(512, false, { TURNLOOP_NO_CODE_CACHE: "1" });

  // Idle, the server lets the session's lease go (session/idle-lease.ts); a change made then is
  // written when the lease is taken back, and one a full disk refuses waits for the next write.
  // Still refused when the server stops, it was lost without a word; the stop now names it.
  test("--headless: a change the full disk refuses is answered; the shutdown says it is lost", async ({
    environment,
    repository,
  }) => {
    const { child, peer, stderr, exit, sessionId } = await serverSession(
      environment(disk.env),
      repository,
    );
    try {
      const lock = join(disk.home, "session-state", sessionId, "lock");
      const idle = async () => {
        try {
          return (JSON.parse(await readFile(lock, "utf8")) as { idle?: boolean }).idle === true;
        } catch {
          return false; // being rewritten
        }
      };
      await expect.poll(idle).toBe(true);
      await disk.fill();
      const logged = await peer.request("session.log", { sessionId, message: "a note" });
      expect(logged.error).toBeUndefined();
      child.stdin.end();
      const code = await exit;
      expect({ code, garbage: peer.garbage, stderr: stderr() }).toEqual({
        code: 0,
        garbage: "",
        stderr: expect.stringMatching(
          new RegExp(
            `^turnloop: ${disk.home}/session-state/${sessionId}/events\\.jsonl could not be written at exit \\(ENOSPC: no space left on device, write\\): 2 events held back since then are lost \\(session\\.info, session\\.shutdown\\); a resume goes on after the last stored event\\n$`,
          ),
        ),
      });
    } finally {
      child.kill("SIGKILL");
    }
  });
});
