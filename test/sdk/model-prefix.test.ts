import { beforeAll, describe, expect, test } from "vitest";
import type { TurnloopClient } from "../../src/sdk/index.js";
import { fixtureForFile } from "./support.js";

/**
 * Round 3 session 21's trial, item 2: a model named with a provider turnloop does not have
 * (`nosuch:x`, a misspelt `anthropic:`) is refused by the server as `/model` refuses it, instead
 * of going to the configured provider as a model called "nosuch:x"; a bare name (Copilot's way)
 * still runs on the configured provider.
 */
const fixture = fixtureForFile();
let client: TurnloopClient;
beforeAll(async () => {
  client = await fixture.startedClient();
});

const PROVIDERS = "openai, openai-chat, anthropic, ollama, openai-compatible";

describe("model names with an unknown provider", () => {
  test("createSession with model nonsense:x is refused with /model's message, and no session is made", async () => {
    const before = await client.listSessions();
    await expect(client.createSession({ model: "nonsense:x" })).rejects.toThrow(
      `session.create: unknown model "nonsense:x". Use <provider>:<model> with provider one of ${PROVIDERS}.`,
    );
    expect(await client.listSessions()).toEqual(before);
  });

  test("setModel(nosuch:x) is refused and records nothing; a bare name switches on the configured provider", async () => {
    const session = await client.createSession();
    await expect(session.setModel("nosuch:x")).rejects.toThrow(
      `unknown model "nosuch:x". Use <provider>:<model> with provider one of ${PROVIDERS}.`,
    );
    await session.setModel("other-model");
    fixture.model.enqueue({ text: "done" });
    await session.sendAndWait({ prompt: "hello" });
    const changes = (await session.getMessages()).flatMap((event) =>
      event.type === "session.model_change" ? [event.data.newModel] : [],
    );
    // Named bare on the SDK wire, as Copilot names models.
    expect(changes).toEqual(["other-model"]);
    const last = fixture.model.requests.at(-1)?.body as { model?: string } | undefined;
    expect(last?.model).toBe("other-model");
  });
});
