import { approveAll } from "@github/copilot-sdk";
import { expect, test } from "vitest";
import { fixtureForEachTest, startCopilotClient } from "./support.js";

// A Copilot SDK app's BYOK provider whose base URL carries a query (Azure OpenAI's
// `?api-version=…`): the request went to `/v1?api-version=…/chat/completions`. Each wire now asks
// at its path with the query after it (llm/base-url.ts `endpointOptions`), a trailing slash before the query
// dropped as it is without one (server/server-model.ts).

const fixture = fixtureForEachTest();
const QUERY = "api-version=2024-10-01";

test("a provider's baseUrl with a query string: each wire asks at its path, the query after it", async () => {
  const client = await startCopilotClient(fixture);
  const providers = [
    { type: "openai" as const, baseUrl: `${fixture.model.url}/v1/?${QUERY}`, apiKey: "dummy" },
    {
      type: "openai" as const,
      wireApi: "responses" as const,
      baseUrl: `${fixture.model.url}/v1?${QUERY}`,
      apiKey: "dummy",
    },
    { type: "anthropic" as const, baseUrl: `${fixture.model.url}/v1?${QUERY}`, apiKey: "dummy" },
  ];
  const replies: unknown[] = [];
  for (const [index, provider] of providers.entries()) {
    const session = await client.createSession({
      model: "gpt-4.1",
      provider,
      onPermissionRequest: approveAll,
    });
    fixture.model.enqueue({ text: `answer ${index}` });
    replies.push((await session.sendAndWait({ prompt: "hello" }))?.data.content);
    await session.disconnect();
  }
  expect(replies).toEqual(["answer 0", "answer 1", "answer 2"]);
  expect(fixture.model.requests.map((request) => request.target)).toEqual([
    `/v1/chat/completions?${QUERY}`,
    `/v1/responses?${QUERY}`,
    `/v1/messages?${QUERY}`,
  ]);
});
