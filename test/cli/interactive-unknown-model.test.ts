import { describe, expect } from "vitest";
import { tmuxMissing } from "../support/interactive-terminal.js";
import { exitWithCtrlD, INPUT_BOX, interactiveTest, shownRows } from "./interactive-support.js";

// A model the server does not have (a 404 the model API itself answered; trial r3s46 F5: after
// `/model anthropic:nosuch` a prompt said the 404 and no cure): the terminal names its own cure,
// /model, under the prompt.

describe.skipIf(tmuxMissing())("turnloop (interactive): a model the server does not have", () => {
  interactiveTest("the error says to switch with /model", async ({ fixture }) => {
    fixture.server.enqueue({
      status: 404,
      body: { error: { message: "The model `fake-model` does not exist", type: "not_found" } },
    });
    const terminal = await fixture.openReady([], { columns: 200 });
    terminal.type("fix the build");
    const failed = await terminal.waitFor(/switch with \/model[\s\S]*─{20,}[\s\S]*─{20,}/);
    expect(shownRows(failed, fixture).slice(0, 4)).toEqual([
      "turnloop in <repository>",
      "model openai-compatible:fake-model · session <id> · /help lists the commands",
      "› fix the build",
      `error: HTTP 404 from ${fixture.server.url}/v1/chat/completions (model "fake-model"): The model \`fake-model\` does not exist; the server has no model "fake-model": switch with /model`,
    ]);
    await terminal.waitFor(INPUT_BOX);
    await exitWithCtrlD(terminal);
  });
});
