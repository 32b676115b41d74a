import type {
  CopilotClient,
  CopilotSession,
  SessionConfig,
  SessionEvent,
} from "@github/copilot-sdk";
import { beforeAll } from "vitest";
import type { RecordedRequest } from "../support/fake-model-types.js";
import { fixtureForFile, recordEvents, startCopilotClient } from "./support.js";

/**
 * What the tests of the official SDK's classes (copilot-classes.test.ts,
 * copilot-classes-outcomes.test.ts) share: their file's fixture, one `--yolo` client started for
 * the file (`client()`, after `beforeAll`) and helpers over the fixture. Call once at a test
 * file's top level: it registers the file's `beforeAll` and `afterAll` hooks.
 */
export function copilotClassesFile() {
  const fixture = fixtureForFile();
  let started: CopilotClient | undefined;
  beforeAll(async () => {
    started = await startCopilotClient(fixture);
  });
  return {
    fixture,
    /** The file's client; throws before the file's `beforeAll` ran. */
    client(): CopilotClient {
      if (started === undefined) {
        throw new Error("the file's client is started in beforeAll");
      }
      return started;
    },
    /** The fake server's requests from `from` on. */
    requestsSince(from: number): RecordedRequest[] {
      return fixture.model.requests.slice(from);
    },
    /** An `openai` provider at the fake server, with `extra` fields. */
    provider(extra: Record<string, unknown> = {}): SessionConfig["provider"] {
      return { type: "openai", baseUrl: `${fixture.model.url}/v1`, apiKey: "dummy", ...extra };
    },
  };
}

/** Every event `session` emits from now on, as the app sees it. */
export function record(session: CopilotSession): SessionEvent[] {
  return recordEvents(session);
}
