import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, test } from "vitest";
import { runCli } from "../support/cli.js";
import { ChildFixture } from "./child-process.js";
import { requestMessages } from "./support.js";

const fixture = ChildFixture.forEachTest();

describe("sessions are shared with the CLI", () => {
  test("a session started with turnloop -p is listed and loads in an ACP client", async () => {
    fixture.server.enqueue({ text: "Hi from the CLI." }, { text: "Hi from the editor." });
    const cli = await runCli(["-p", "hello from the terminal"], {
      cwd: fixture.cwd,
      env: fixture.environment(),
    });
    expect(cli.code).toBe(0);
    const agent = fixture.startAgent();
    await agent.initialize();
    const { sessions } = await agent.client.request(acp.methods.agent.session.list, {
      cwd: fixture.cwd,
    });
    expect(sessions.map((info) => info.title)).toEqual(["hello from the terminal"]);
    const sessionId = sessions[0]?.sessionId ?? "";
    await agent.loadSession(sessionId);
    expect(agent.messageTexts(sessionId)).toEqual([
      ["user_message_chunk", "hello from the terminal"],
      ["agent_message_chunk", "Hi from the CLI."],
    ]);
    const answer = await agent.prompt(sessionId, "and now?");
    expect(answer).toEqual({ stopReason: "end_turn" });
    expect(requestMessages(fixture.server, 1).map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "user",
    ]);
  });
});

describe("acpx (a headless ACP client) against the built CLI", () => {
  test("exec runs a prompt end to end", async () => {
    const acpx = join(process.cwd(), "node_modules", ".bin", "acpx");
    // acpx is a dev dependency and runs on Node ≥ 20: when it cannot start, that is a failure.
    const probe = spawnSync(acpx, ["--version"], { encoding: "utf8", timeout: 15_000 });
    expect(probe.status, `acpx cannot run: ${probe.error?.message ?? probe.stderr}`).toBe(0);
    fixture.server.enqueue({ text: "Hello from turnloop." });
    const agentCommand = `${process.execPath} ${join(process.cwd(), "dist", "cli", "main.js")} acp`;
    const result = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(
        acpx,
        [
          "--approve-all",
          "--format",
          "json",
          "--timeout",
          "30",
          "--agent",
          agentCommand,
          "exec",
          "hello",
        ],
        {
          cwd: fixture.cwd,
          // acpx keeps its state under HOME: the temp home, removed after the test.
          env: fixture.environment({ HOME: fixture.home }),
        },
      );
      let stdout = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
      });
      child.on("close", (code) => resolve({ code, stdout }));
    });
    expect(result.code).toBe(0);
    const messages = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(messages).toContainEqual(
      expect.objectContaining({ result: { stopReason: "end_turn" } }),
    );
    const chunks = messages.filter(
      (message) =>
        (message.params as acp.SessionNotification | undefined)?.update?.sessionUpdate ===
        "agent_message_chunk",
    );
    expect(chunks).toHaveLength(1);
  });
});
