import { expect, test } from "vitest";
import type { WireEvent } from "../../src/sdk/index.js";
import { fixtureForFile } from "./support.js";

// A new user's check (round 3, session 21): a reply of twelve bash calls, each asking the app's
// permission at once, made the server print Node's "MaxListenersExceededWarning: Possible
// EventTarget memory leak detected. 11 abort listeners added to [AbortSignal]" on its stderr:
// every open question listened to the prompt's signal on its own. The app sees twelve
// questions and twelve results, and the server's stderr holds nothing of Node's.

const fixture = fixtureForFile();

test("twelve permission questions open at once: all answered, no Node warning", async () => {
  let stderr = "";
  const client = await fixture.startedClient({
    onStderr: (text) => {
      stderr += text;
    },
  });
  const count = 12;
  fixture.model.enqueue(
    {
      toolCalls: Array.from({ length: count }, (_, index) => ({
        id: `call_${index}`,
        name: "bash",
        arguments: JSON.stringify({ command: `echo n${index}` }),
      })),
    },
    { text: "ran" },
  );
  const asked: string[] = [];
  const session = await client.createSession({
    onPermissionRequest: (request) => {
      asked.push(request.requestId);
      return { kind: "approve-once" };
    },
  });
  const events: WireEvent[] = [];
  session.on((event) => events.push(event));
  const answer = await session.sendAndWait({ prompt: "run them" });
  expect(answer?.data.content).toBe("ran");
  expect(new Set(asked).size).toBe(count);
  const outputs = events.flatMap((event) =>
    event.type === "tool.execution_complete" ? [event.data.result?.content.trim()] : [],
  );
  expect(outputs.sort()).toEqual(
    Array.from({ length: count }, (_, index) => `n${index}\n<exited with exit code 0>`).sort(),
  );
  expect(stderr).not.toMatch(/Warning|\(node:\d+\)/);
});
