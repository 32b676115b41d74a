/**
 * ACP's `/model X` slash command switches the model the way `session/set_config_option`,
 * `session/set_model`, the terminal's `/model` and the SDK's `setModel` do: recorded as
 * `session.model_change`, so the next face that opens the session runs `X` (trial r3s35 H6: the
 * slash command switched it for the editor only, and `-p -r` ran the old model).
 */

import { readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { eventsPath } from "../../src/session/paths.js";
import { runCli } from "../support/cli.js";
import { fakeModelEnvironment } from "../support/fixtures.js";
import { AcpHarness } from "./support.js";
import { agentTexts } from "./update-texts.js";

describe("ACP /model", () => {
  test("is recorded as session.model_change, and the next -p -r runs that model", async () => {
    const harness = await AcpHarness.start();
    const sessionId = await harness.newSession();
    await harness.prompt(sessionId, "/model openai-compatible:other-model");
    expect(agentTexts(harness.updates(sessionId)).join("")).toContain(
      "openai-compatible:other-model",
    );
    const log = await readFile(eventsPath(harness.home, sessionId), "utf8");
    const changes = log
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
      .filter((event) => event.type === "session.model_change")
      .map((event) => event.data);
    expect(changes).toEqual([
      { previousModel: "openai-compatible:fake-model", newModel: "openai-compatible:other-model" },
    ]);
    await harness.disconnect();

    harness.server.enqueue({ text: "on the other model" });
    const env = fakeModelEnvironment(harness.home, harness.server);
    const resumed = await runCli(["-p", "-r", sessionId, "hello"], { cwd: harness.cwd, env });
    expect([resumed.code, resumed.stdout]).toEqual([0, "on the other model\n"]);
    expect(
      harness.server.requests.map((request) => (request.body as { model: string }).model),
    ).toEqual(["other-model"]);
  });
});
