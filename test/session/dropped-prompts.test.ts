import { describe, expect, it } from "vitest";
import {
  droppedPromptsMessage,
  interruptedPromptMessage,
} from "../../src/session/dropped-prompts.js";

const owner = "the worker running session s-1";

describe("what a follower's client is told of prompts the owner dropped", () => {
  it("names this prompt (ACP answers each) or how many this worker sent (the Copilot protocol)", () => {
    const messages = (
      ["shutdown", "abort", "ended", "lapsed", "released", "replaced"] as const
    ).flatMap((cause) => [
      droppedPromptsMessage("s-1", cause, "this"),
      droppedPromptsMessage("s-1", cause, 2),
      droppedPromptsMessage("s-1", cause, 1),
    ]);
    expect(messages).toEqual([
      `${owner} closed it before this prompt ended; send it again to run it here`,
      `${owner} closed it before 2 prompts sent from this worker ended; send again to run them here`,
      `${owner} closed it before 1 prompt sent from this worker ended; send again to run it here`,
      `${owner} dropped this queued prompt unrun: its own client aborted; send it again to run it`,
      `${owner} dropped 2 queued prompts sent from this worker unrun: its own client aborted; send again to run them`,
      `${owner} dropped 1 queued prompt sent from this worker unrun: its own client aborted; send again to run it`,
      `${owner} stopped (its process is gone) before this prompt started; send it again to run it here`,
      `${owner} stopped (its process is gone) before 2 prompts sent from this worker started; send again to run them here`,
      `${owner} stopped (its process is gone) before 1 prompt sent from this worker started; send again to run it here`,
      `${owner} let its lease lapse (not renewed in time) before this prompt started; send it again to run it here`,
      `${owner} let its lease lapse (not renewed in time) before 2 prompts sent from this worker started; send again to run them here`,
      `${owner} let its lease lapse (not renewed in time) before 1 prompt sent from this worker started; send again to run it here`,
      `${owner} lost its lease (no worker holds the session) before this prompt started; send it again to run it here`,
      `${owner} lost its lease (no worker holds the session) before 2 prompts sent from this worker started; send again to run them here`,
      `${owner} lost its lease (no worker holds the session) before 1 prompt sent from this worker started; send again to run it here`,
      "another worker took session s-1 over before this prompt started; send it again to run it",
      "another worker took session s-1 over before 2 prompts sent from this worker started; send again to run them",
      "another worker took session s-1 over before 1 prompt sent from this worker started; send again to run it",
    ]);
  });

  it("says a prompt the gone owner was running ended unfinished, and why it was gone", () => {
    expect(
      (["ended", "lapsed", "released"] as const).flatMap((cause) => [
        interruptedPromptMessage("s-1", "this", cause),
        interruptedPromptMessage("s-1", "sent from this worker", cause),
        interruptedPromptMessage("s-1", "followed", cause),
      ]),
    ).toEqual([
      `${owner} stopped (its process is gone) while running this prompt: it ended there unfinished`,
      `${owner} stopped (its process is gone) while running a prompt sent from this worker: it ended there unfinished`,
      `${owner} stopped (its process is gone) while running a prompt: it ended there unfinished`,
      `${owner} let its lease lapse (not renewed in time) while running this prompt: it ended there unfinished`,
      `${owner} let its lease lapse (not renewed in time) while running a prompt sent from this worker: it ended there unfinished`,
      `${owner} let its lease lapse (not renewed in time) while running a prompt: it ended there unfinished`,
      `${owner} lost its lease (no worker holds the session) while running this prompt: it ended there unfinished`,
      `${owner} lost its lease (no worker holds the session) while running a prompt sent from this worker: it ended there unfinished`,
      `${owner} lost its lease (no worker holds the session) while running a prompt: it ended there unfinished`,
    ]);
  });
});
