import type { CopilotSession, SessionConfig, SessionEvent } from "@github/copilot-sdk";
import type { RecordedRequest } from "../support/fake-model-types.js";
import { type Fixture, recordEvents } from "./support.js";

/**
 * What the tests of the official SDK's classes (copilot-classes.test.ts,
 * copilot-classes-outcomes.test.ts) share over their file's fixture.
 */
export function copilotHelpers(fixture: Fixture) {
  return {
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
