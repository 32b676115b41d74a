import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import {
  approveAll,
  type ResumeSessionConfig,
  type SessionConfig,
  type TurnloopClient,
  type UserInputRequest,
} from "../../src/sdk/index.js";
import { askColour, chatBody, fixtureForFile } from "./support.js";

/**
 * Round 3 session 46, lane fixsdk (trial finding F1): `turnloop/sdk` takes the Copilot SDK's
 * session settings by the Copilot SDK's names (its `SessionConfig` / `ResumeSessionConfig`), not
 * by the wire's: `onUserInputRequest` answers the model's `ask_user`, and a setting turnloop does
 * not implement is sent as the Copilot SDK sends it and said ignored by the server.
 */
const fixture = fixtureForFile();
let client: TurnloopClient;
beforeAll(async () => {
  client = await fixture.startedClient();
});

/** The members of `interface <name> … {` in the Copilot SDK's `dist/types.d.ts`. */
function members(source: string, name: string): string[] {
  const start = source.indexOf(`export interface ${name} `);
  const body = source.slice(start, source.indexOf("\n}\n", start));
  return [...body.matchAll(/^ {4}([A-Za-z]+)\??:/gm)].flatMap((match) =>
    match[1] === undefined ? [] : [match[1]],
  );
}

/** Every setting name of the Copilot SDK's `SessionConfig` and `ResumeSessionConfig`. */
async function copilotSettingNames(): Promise<string[]> {
  // The CommonJS entry is dist/cjs/index.js; the types are beside the ESM one, dist/index.js.
  const entry = createRequire(import.meta.url).resolve("@github/copilot-sdk");
  const source = await readFile(join(dirname(entry), "..", "types.d.ts"), "utf8");
  const names = ["SessionConfigBase", "SessionConfig", "ResumeSessionConfig"].flatMap((name) =>
    members(source, name),
  );
  return [...new Set(names)];
}

/** turnloop/sdk's own settings, each checked and sent by its own rule (tested elsewhere). */
const OWN_SETTINGS: ReadonlyArray<keyof ResumeSessionConfig> = [
  "model",
  "provider",
  "tools",
  "onPermissionRequest",
  "onUserInputRequest",
  "hooks",
  "onEvent",
  "streaming",
  "systemMessage",
  "workingDirectory",
  "availableTools",
  "excludedTools",
  "clientName",
  "reasoningEffort",
  "infiniteSessions",
  "sessionId",
  "mcpServers",
  "continuePendingWork",
];

/**
 * Those settings as the app wrote them, in the order the server names them ignored, the order of
 * their wire names: the Copilot SDK's handlers go as their capability flags
 * (`onElicitationRequest` → `requestElicitation`), renamed ones under the wire's name
 * (`configDirectory` → `configDir`, `suppressResumeEvent` → `disableResume`), the ones it keeps in
 * the app by their own; turnloop/sdk names each in the warning as the app wrote it (round 3,
 * session 47). Absent: `defaultAgent` (turnloop reads it) and `includeSubAgentStreamingEvents`
 * (true is what turnloop does). Written out, not derived from src/protocol/session-settings.ts's
 * `COPILOT_ONLY_SETTINGS`: this list states what the Copilot SDK's session settings are, and
 * turnloop's list is what is tested against it (with a name missing there, `createSession`
 * refuses it as unknown and this test fails); derived, it would be compared with itself.
 * turnloop's list is the wider one: it also has what the Copilot SDK adds to the wire on its own
 * (`traceparent`, `gitHubTokenProviderRegistrationId` …).
 */
const IGNORED = [
  "reasoningSummary",
  "enableExperimentalMode",
  "contextTier",
  "modelCapabilities",
  "largeOutput",
  "configDirectory",
  "enableConfigDiscovery",
  "canvases",
  "requestCanvasRenderer",
  "requestExtensions",
  "extensionSdkPath",
  "extensionInfo",
  "canvasProvider",
  "commands",
  "toolSearch",
  "excludedBuiltinAgents",
  "includedBuiltinSkills",
  "capi",
  "providers",
  "models",
  "enableSessionTelemetry",
  "enableCitations",
  "enableFileChangeTracking",
  "sessionLimits",
  "skipCustomInstructions",
  "customAgentsLocalOnly",
  "coauthorEnabled",
  "manageScheduleEnabled",
  "onMcpAuthRequest",
  "askUserVariant",
  "onElicitationRequest",
  "enableMcpApps",
  "githubMcpToolConfig",
  "onExitPlanModeRequest",
  "onAutoModeSwitchRequest",
  "additionalDirectories",
  "mcpOAuthTokenStorage",
  "authClientIdMetadataUrl",
  "customAgents",
  "agent",
  "skillDirectories",
  "pluginDirectories",
  "instructionDirectories",
  "disabledSkills",
  "disabledMcpServers",
  "memory",
  "gitHubToken",
  "gitHubTokenProvider",
  "enableManagedSettings",
  "managedSettings",
  "skipEmbeddingRetrieval",
  "embeddingCacheStorage",
  "organizationCustomInstructions",
  "enableOnDemandInstructionDiscovery",
  "enableFileHooks",
  "enableHostGitOperations",
  "enableSessionStore",
  "enableSkills",
  "remoteSession",
  "createSessionFsProvider",
  "featureFlags",
  "cloud",
  "suppressResumeEvent",
  "openCanvases",
];

/** A value asking for something: a function for a handler, else `true`. */
function askingValue(name: string): unknown {
  if (name.startsWith("on") || name.endsWith("Provider")) {
    return () => undefined;
  }
  return name === "defaultAgent" ? { excludedTools: ["bash"] } : true;
}

describe("the Copilot SDK's settings in turnloop/sdk", () => {
  test("onUserInputRequest answers the model's ask_user, and the model reads the answer", async () => {
    const asked: Array<[UserInputRequest, { sessionId: string }]> = [];
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      onUserInputRequest: (request, invocation) => {
        asked.push([request, invocation]);
        return { answer: "blue", wasFreeform: false };
      },
    });
    const { reply, offered, results } = await askColour(fixture, session);
    expect(reply).toBe("Blue it is.");
    expect(asked).toEqual([
      [{ question: "Which colour?", choices: ["red", "blue"] }, { sessionId: session.sessionId }],
    ]);
    expect(offered).toContain("ask_user");
    expect(results).toEqual([["call_ask", "blue"]]);
    await session.disconnect();
  });

  test("an answer of another shape is named to the model in one line", async () => {
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      onUserInputRequest: () => ({ answr: 42 }) as never,
    });
    const from = fixture.model.requests.length;
    fixture.model.enqueue(
      { toolCalls: [{ id: "call_ask", name: "ask_user", arguments: '{"question":"Colour?"}' }] },
      { text: "No answer." },
    );
    await session.sendAndWait({ prompt: "Ask me." });
    const results = chatBody(fixture.model.requests[from + 1]).messages.filter(
      (message) => message.role === "tool",
    );
    expect(results.map((message) => message.content)).toEqual([
      'The user did not answer: the app answered {"answr":42}, not {answer: string, wasFreeform: boolean} (answer is missing: it must be a string)',
    ]);
    await session.disconnect();
  });

  test("every other Copilot setting is taken, sent as Copilot sends it, and said ignored", async () => {
    const names = (await copilotSettingNames()).filter(
      (name) => !(OWN_SETTINGS as readonly string[]).includes(name),
    );
    expect(names.length).toBeGreaterThan(60);
    const settings = Object.fromEntries(names.map((name) => [name, askingValue(name)]));
    const warnings: unknown[] = [];
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      ...(settings as SessionConfig),
      onEvent: (event) => {
        if (event.type === "session.warning") {
          warnings.push(event.data);
        }
      },
    });
    const ignored = (warnings as Array<{ message: string }>).map(({ message }) => message);
    expect(ignored).toEqual([
      `session.create: turnloop does not implement the Copilot SDK's settings ${IGNORED.slice(0, -1).join(", ")} and ${IGNORED.at(-1)} and ignores them`,
    ]);
    await session.disconnect();
    await expect(
      client.resumeSession(session.sessionId, { onElicitationRequest: "yes" } as never),
    ).rejects.toThrow('resumeSession: onElicitationRequest must be a function, not "yes"');
  });
});
