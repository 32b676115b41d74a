import type { CopilotClient } from "@github/copilot-sdk";
import { beforeAll } from "vitest";
import { type Fixture, fixtureForFile, startCopilotClient } from "./support.js";

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
  const fixture = fixtureForFile();
  let client: CopilotClient | undefined;
  beforeAll(async () => {
    Object.assign(fixture.env, env);
    client = await startCopilotClient(fixture);
  });
  return {
    fixture,
    get client() {
      if (client === undefined) {
        throw new Error("the client starts in beforeAll");
      }
      return client;
    },
  };
}

export { recordEvents } from "./support.js";
