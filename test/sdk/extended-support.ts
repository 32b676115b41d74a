import type { CopilotClient, CopilotSession, SessionEvent } from "@github/copilot-sdk";
import { afterAll, beforeAll } from "vitest";
import { type Fixture, startCopilotClient, startFixture } from "./support.js";

/** The fixture and the official SDK's client of one test file, started before its tests. */
export interface CopilotSetup {
  readonly fixture: Fixture;
  readonly client: CopilotClient;
}

/**
 * Starts a fixture and an official `@github/copilot-sdk` client (with `--yolo`) before the file's
 * tests, with `env` added to the CLI's environment, and stops both after them.
 */
export function useCopilotClient(env: Record<string, string> = {}): CopilotSetup {
  let started: { fixture: Fixture; client: CopilotClient } | undefined;
  beforeAll(async () => {
    const fixture = await startFixture();
    Object.assign(fixture.env, env);
    started = { fixture, client: await startCopilotClient(fixture) };
  });
  afterAll(async () => {
    await started?.client.stop();
    await started?.fixture.close();
  });
  const get = () => {
    if (started === undefined) {
      throw new Error("the fixture starts in beforeAll");
    }
    return started;
  };
  return {
    get fixture() {
      return get().fixture;
    },
    get client() {
      return get().client;
    },
  };
}

/** Every event the app sees on `session` from now on, in order. */
export function recordEvents(session: CopilotSession): SessionEvent[] {
  const events: SessionEvent[] = [];
  session.on((event: SessionEvent) => events.push(event));
  return events;
}
