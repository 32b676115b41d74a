import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";

// A reply asking for more than ten tool calls at once: each running call listens to the
// prompt's abort signal, and Node warns past ten listeners on one signal
// ("MaxListenersExceededWarning: Possible EventTarget memory leak detected"), on the user's
// stderr, for calls that are not a leak. The user sees the calls' lines and the answer, nothing
// of Node's.

describe("-p with a reply of many parallel tool calls", () => {
  test("twelve views at once: every result comes back, no Node warning", async ({
    cli,
    model,
    repository,
  }) => {
    const count = 12;
    for (let index = 0; index < count; index++) {
      await writeFile(join(repository, `file-${index}.txt`), `contents ${index}\n`);
    }
    model.enqueue(
      {
        toolCalls: Array.from({ length: count }, (_, index) => ({
          id: `call_${index}`,
          name: "view",
          arguments: JSON.stringify({ path: `file-${index}.txt` }),
        })),
      },
      { text: "Read them all." },
    );
    const result = await cli(["-p", "read the files"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Read them all.\n");
    expect(result.stderr).not.toMatch(/Warning|\(node:\d+\)/);
    const body = model.requests.at(-1)?.body as
      | { messages: { role: string; content: unknown }[] }
      | undefined;
    const toolMessages = (body?.messages ?? []).filter((message) => message.role === "tool");
    expect(toolMessages).toHaveLength(count);
    toolMessages.forEach((message, index) => {
      expect(String(message.content)).toContain(`contents ${index}`);
    });
  });
});
