// Usage: node list-cost.mjs write <dist> <home> | node list-cost.mjs list <dist> <home>
// "list": removes every metadata.json, then reports the CPU time (user+system, ms) of one
// store.list() (every log scanned whole) and of a second one (metadata current).
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

const [mode, dist, home] = process.argv.slice(2);
const { FileSessionStore } = await import(join(dist, "session/file-store.js"));
const { createEnvelope } = await import(join(dist, "session/envelope.js"));
const store = new FileSessionStore(home);
if (mode === "write") {
  for (let index = 0; index < 300; index++) {
    const sessionId = `bench-${String(index).padStart(5, "0")}`;
    const appender = await store.create(sessionId);
    let parent = null;
    const inputs = [
      {
        type: "session.start",
        data: {
          sessionId,
          version: 1,
          producer: "turnloop",
          producerVersion: "0.1.0",
          startTime: new Date().toISOString(),
          cwd: "/tmp",
          model: "openai:gpt-x",
        },
      },
      {
        type: "user.message",
        data: {
          content: index === 0 ? `huge ${"x".repeat(5 * 1024 * 1024)}` : `prompt ${index}`,
          source: "user",
        },
      },
    ];
    for (let turn = 0; turn < 10; turn++) {
      inputs.push(
        { type: "assistant.turn_start", data: { turnId: String(turn) } },
        {
          type: "assistant.message",
          data: { messageId: `m${turn}`, content: "reply ".repeat(40), toolRequests: [] },
        },
        { type: "assistant.turn_end", data: { turnId: String(turn), status: "completed" } },
      );
    }
    for (const input of inputs) {
      const event = createEnvelope(input, parent);
      appender.append(event);
      parent = event.id;
    }
    await appender.close();
  }
} else {
  const root = join(home, "session-state");
  for (const id of readdirSync(root)) {
    rmSync(join(root, id, "metadata.json"), { force: true });
  }
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  let start = cpu();
  const listed = await store.list();
  const whole = cpu() - start;
  start = cpu();
  await store.list();
  const current = cpu() - start;
  process.stdout.write(
    `${whole.toFixed(1)} ${current.toFixed(1)} ${listed.length} ${listed.reduce((n, s) => n + s.turns, 0)}\n`,
  );
}
