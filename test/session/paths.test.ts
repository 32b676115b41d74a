import { randomUUID } from "node:crypto";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  eventsPath,
  InvalidSessionIdError,
  newSessionId,
  sessionDirectory,
  turnloopHome,
  validateSessionId,
} from "../../src/session/paths.js";

describe("paths", () => {
  it("uses $TURNLOOP_HOME, resolved, and falls back to ~/.turnloop", () => {
    expect(turnloopHome({ TURNLOOP_HOME: "/srv/turnloop" })).toBe("/srv/turnloop");
    expect(turnloopHome({ TURNLOOP_HOME: "relative/home" })).toBe(resolve("relative/home"));
    expect(turnloopHome({ TURNLOOP_HOME: "" })).toBe(join(homedir(), ".turnloop"));
    expect(turnloopHome({})).toBe(join(homedir(), ".turnloop"));
  });

  it("places a session under session-state", () => {
    const id = newSessionId();
    expect(sessionDirectory("/home/me/.turnloop", id)).toBe(
      `/home/me/.turnloop/session-state/${id}`,
    );
    expect(eventsPath("/home/me/.turnloop", id)).toBe(
      `/home/me/.turnloop/session-state/${id}/events.jsonl`,
    );
  });

  it.each([randomUUID(), "my-session_2", "A".repeat(128)])("accepts %s", (id) => {
    expect(validateSessionId(id)).toBe(id);
  });

  it.each([
    "../../etc",
    "..",
    ".hidden",
    "",
    "a/b",
    "a\\b",
    "a\0b",
    "a.b",
    " a",
    "-rf",
    "A".repeat(129),
  ])("rejects %j", (id) => {
    expect(() => validateSessionId(id)).toThrow(InvalidSessionIdError);
    expect(() => eventsPath("/home", id)).toThrow(/Invalid session id/);
  });
});
