import { describe, expect } from "vitest";
import { chatMessages } from "../support/fake-model-server.js";
import { test } from "../support/fixtures.js";

// A fresh user's trial (round 3, session 19, #9): `turnloop -p "- fix the bug"` said `unknown
// option -  ` (exit 64), and so did a prompt from `-p "$(cat task.md)"` starting with front
// matter `---`, and `-p "-1 is negative?"`: parseArgs takes a value starting with "-" for a flag.
// A word after -p that starts with "-" but is not shaped like a flag is the prompt
// (src/cli/argument-flags.ts `withDashPrompts`); one shaped like a flag stays a flag.

describe("a prompt that starts with a dash", () => {
  test("is the prompt the model gets, after -p or --prompt", async ({ cli, model }) => {
    const prompts = ["- fix the bug", "---\ntitle: x\n---\nDo it.", "-1 is negative?"];
    const sent: unknown[] = [];
    for (const [index, prompt] of prompts.entries()) {
      model.enqueue({ text: `answer ${index}` });
      const flag = index === 1 ? "--prompt" : "-p";
      const result = await cli([flag, prompt, "-q"]);
      expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
        code: 0,
        stdout: `answer ${index}\n`,
        stderr: "",
      });
      sent.push(chatMessages(model, -1).at(-1)?.content);
    }
    expect(sent).toEqual(prompts);
  });

  test("a word shaped like a flag after -p is still a flag", async ({ cli, model }) => {
    const misspelt = await cli(["-p", "--verbos"]);
    expect(misspelt.code).toBe(64);
    expect(misspelt.stderr).toMatch(/^turnloop: unknown option --verbos/);
    expect(model.requests).toHaveLength(0);
  });
});
