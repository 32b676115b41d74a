/**
 * Round 3 session 45: the name a session was given (`session.name.set` / `setAuto`, a fork's name,
 * recorded as `session.title_changed`) is what `session.name.get` answers, yet listings showed
 * only the first prompt. Each listing now shows the name where it shows one title: `turnloop
 * sessions`' line, ACP `session/list`'s `title`; the SDK's entries carry it as `name` beside the
 * first prompt as `summary` (Copilot's `LocalSessionMetadataValue`).
 */

import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, test, vi } from "vitest";
import { listPage } from "../../src/acp/session-setup.js";
import { runSessionsCommand } from "../../src/cli/sessions-command.js";
import type { EventInput } from "../../src/events/events.js";
import { sessionListEntry } from "../../src/server/state-methods.js";
import { SessionHost } from "../../src/session/host.js";
import { resolveRunConfig } from "../../src/session/run-config.js";
import { CollectedText } from "../support/collected-text.js";
import { defaultFaceOptions } from "../support/face-options.js";
import { logBytes, makeTemporaryDirectory, sessionStart, userMessage } from "./support.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

const NAMED = "00000000-0000-4000-8000-00000000000a";
const UNNAMED = "00000000-0000-4000-8000-00000000000b";

/** A prompt answered in one turn that recorded its stop. */
function answered(prompt: string): EventInput[] {
  return [
    userMessage(prompt),
    { type: "assistant.turn_start", data: { turnId: "t1" } },
    {
      type: "assistant.turn_end",
      data: { turnId: "t1", status: "completed", stopReason: "end_turn" },
    },
  ];
}

test("turnloop sessions, ACP session/list and the SDK's entries show the name a session was given", async () => {
  const home = await makeTemporaryDirectory();
  const logs: Array<[string, EventInput[], Date]> = [
    [
      NAMED,
      [
        sessionStart(NAMED, home, "2026-03-01T10:00:00.000Z"),
        ...answered("fix the flaky build"),
        { type: "session.title_changed", data: { title: "build" } },
        { type: "session.title_changed", data: { title: "release notes" } },
      ],
      new Date("2026-03-01T10:00:00.000Z"),
    ],
    [
      UNNAMED,
      [sessionStart(UNNAMED, home, "2026-03-02T10:00:00.000Z"), ...answered("say hello")],
      new Date("2026-03-02T10:00:00.000Z"),
    ],
  ];
  for (const [sessionId, inputs, start] of logs) {
    await mkdir(join(home, "session-state", sessionId), { recursive: true });
    await writeFile(
      join(home, "session-state", sessionId, "events.jsonl"),
      logBytes(inputs, start),
    );
  }

  vi.stubEnv("TURNLOOP_HOME", home);
  const stdout = new CollectedText();
  const command = { kind: "sessions-list" as const, json: false };
  expect(await runSessionsCommand(command, { stdout, stderr: new CollectedText() })).toBe(0);
  expect(stdout.text).toBe(
    [
      `${UNNAMED}  2026-03-02  1 turn  ${home}`,
      "    say hello",
      `${NAMED}  2026-03-01  1 turn  ${home}`,
      "    release notes",
      "",
    ].join("\n"),
  );

  const host = new SessionHost({
    home,
    env: {},
    config: resolveRunConfig(defaultFaceOptions(home), {}),
  });
  const acp = (await listPage(host, {})).sessions.map(({ sessionId, title }) => ({
    sessionId,
    title,
  }));
  expect(acp).toEqual([
    { sessionId: UNNAMED, title: "say hello" },
    { sessionId: NAMED, title: "release notes" },
  ]);
  const sdk = (await host.list()).map(sessionListEntry);
  expect(sdk.map(({ sessionId, summary, name }) => ({ sessionId, summary, name }))).toEqual([
    { sessionId: UNNAMED, summary: "say hello", name: undefined },
    { sessionId: NAMED, summary: "fix the flaky build", name: "release notes" },
  ]);
});
