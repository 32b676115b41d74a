// Peak RSS and CPU of the built CLI per face for one huge input (bench/notes/memory29.md).
// Usage: node bench/notes/memory29.mjs <dist/cli/turnloop.cjs> <face> <input> [bytes]
//   face: screen (tmux 100×30) | p-text | p-json | p-stream-json (-p, stdout a pipe) | acp (an
//         ACP client reading stdout) | server (--headless --stdio, a vscode-jsonrpc client) |
//         show | export-markdown | export-html | export-jsonl (`sessions show/export` of the
//         session a p-text run of the same input left in HOME29)
//   input: tiny (a short prompt and answer) | answer (prose of <bytes>, streamed in 100-byte
//          deltas) | tool (bash prints <bytes> of lines, then a short answer) | prompt (a
//          <bytes> prompt: stdin for -p, pasted in tmux for the screen, one message otherwise)
// Prints one line: face, input, bytes, peak RSS (MiB), user+system CPU seconds, whether the
// end was seen. Peak: /usr/bin/time's %M at exit; for the screen VmHWM of /proc once idle.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

const [cliArgument, face, input, bytesText] = process.argv.slice(2);
const cli = resolve(cliArgument);
const bytes = input === "tiny" ? 0 : Number(bytesText ?? 5_000_000);
const END = "The last line of the answer: END.";

function prose(size) {
  const parts = [];
  let length = 0;
  for (let index = 0; length < size; index++) {
    const block =
      index % 7 === 0
        ? `## Section ${index}\n\n`
        : index % 7 === 3
          ? `- item ${index} with **bold** and \`code\`\n- another item ${index}\n\n`
          : index % 7 === 5
            ? `\`\`\`ts\nconst value${index} = ${index};\nconsole.log(value${index});\n\`\`\`\n\n`
            : `Paragraph ${index} says something about the code, with *emphasis* and a [link](https://example.com/${index}). It goes on for a while so that it wraps at the width of a terminal.\n\n`;
    parts.push(block);
    length += block.length;
  }
  return parts.join("");
}

const answer = input === "answer" ? `${prose(bytes)}${END}` : `Short answer. ${END}`;
const promptText =
  input === "prompt"
    ? `${"log line 0123456789 abcdefghij klmnopqrstuvwxyz\n".repeat(Math.ceil(bytes / 48)).slice(0, bytes)} go`
    : "go";
const toolCommand = `yes 'a line of tool output, about seventy characters long, printed again' | head -c ${bytes}; echo; echo TOOL-END`;

const chunk = (delta, finish) =>
  `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish ?? null }], ...(finish ? { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } } : {}) })}\n\n`;

const server = createServer((request, response) => {
  let body = "";
  request.setEncoding("utf8");
  request.on("data", (data) => {
    body =
      body.length > 4096 && !body.includes('"role":"tool"')
        ? body.slice(-4096) + data
        : body + data;
  });
  request.on("end", () => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    if (input === "tool" && !body.includes('"role":"tool"')) {
      const call = {
        index: 0,
        id: "call_1",
        type: "function",
        function: { name: "bash", arguments: JSON.stringify({ command: toolCommand }) },
      };
      response.end(
        `${chunk({ role: "assistant", tool_calls: [call] })}${chunk({}, "tool_calls")}data: [DONE]\n\n`,
      );
      return;
    }
    let out = "";
    for (let at = 0; at < answer.length; at += 100) {
      out += chunk({ role: "assistant", content: answer.slice(at, at + 100) });
      if (out.length > 1 << 20) {
        response.write(out);
        out = "";
      }
    }
    response.end(`${out}${chunk({}, "stop")}data: [DONE]\n\n`);
  });
});
await new Promise((done) => server.listen(0, "127.0.0.1", done));
const home = process.env.HOME29 ?? mkdtempSync("/tmp/memory29-home-");
const work = mkdtempSync("/tmp/memory29-work-");
const repo = `${home}-repo`;
mkdirSync(repo, { recursive: true });
const timeFile = join(work, "time");
const env = {
  PATH: process.env.PATH,
  HOME: home,
  TURNLOOP_HOME: home,
  TURNLOOP_MODEL: "openai-compatible:m",
  TURNLOOP_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`,
  OPENAI_API_KEY: "sk-bench",
};
// The bin as a user runs it: its first line's Node flags (the young generation's cap) apply.
// CLI_NODE_FLAGS29 (words): node run with them and the first line's flags (e.g. --trace-gc).
const flags = (process.env.CLI_NODE_FLAGS29 ?? "").split(/\s+/).filter(Boolean);
const firstLine = readFileSync(cli, "utf8")
  .split("\n")[0]
  .split(/\s+/)
  .filter((word) => word.startsWith("--"));
const timed = [
  "/usr/bin/time",
  "-o",
  timeFile,
  "-f",
  "%M %U %S",
  ...(flags.length > 0 ? [process.execPath, ...firstLine, ...flags] : []),
  cli,
];
const quote = (text) => `'${text.replaceAll("'", "'\\''")}'`;

function spawnTimed(args, stdin = "ignore", command = timed) {
  return spawn(command[0], [...command.slice(1), ...args], {
    cwd: repo,
    env: { ...env, TERM: "dumb" },
    stdio: [stdin, "pipe", "ignore"],
  });
}

/** The child's output's last 4 KiB once it exits. */
function tailOf(child) {
  let tail = "";
  child.stdout.on("data", (data) => {
    tail = (tail + data.toString("utf8")).slice(-4096);
  });
  return new Promise((done) => child.on("close", () => done(tail)));
}

async function writeLarge(stream, text) {
  for (let start = 0; start < text.length; start += 1 << 20) {
    if (!stream.write(text.slice(start, start + (1 << 20)))) {
      await new Promise((done) => stream.once("drain", done));
    }
  }
}

async function printMode(format) {
  const args = [
    "-p",
    ...(input === "prompt" ? [] : [promptText]),
    "--allow-all-tools",
    ...(format ? ["--output-format", format] : []),
  ];
  const child = spawnTimed(args, input === "prompt" ? "pipe" : "ignore");
  const tail = tailOf(child);
  if (input === "prompt") {
    await writeLarge(child.stdin, promptText);
    child.stdin.end();
  }
  return tail;
}

async function acp() {
  const child = spawnTimed(["acp", "--allow-all-tools"], "pipe");
  const waiting = new Map();
  let seen = "";
  createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line);
    if (message.method !== undefined && message.id !== undefined) {
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "no" } })}\n`,
      );
    } else if (message.method === "session/update") {
      const text = message.params?.update?.content?.text;
      if (typeof text === "string") {
        seen = (seen + text).slice(-200);
      }
    } else if (message.id !== undefined) {
      waiting.get(message.id)?.(message);
    }
  });
  const call = async (id, method, params) => {
    const answered = new Promise((done) => waiting.set(id, done));
    await writeLarge(child.stdin, `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    return answered;
  };
  await call(1, "initialize", { protocolVersion: 1, clientCapabilities: {} });
  const created = await call(2, "session/new", { cwd: repo, mcpServers: [] });
  await call(3, "session/prompt", {
    sessionId: created.result.sessionId,
    prompt: [{ type: "text", text: promptText }],
  });
  child.stdin.end();
  await new Promise((done) => child.on("close", done));
  return seen;
}

async function sdkServer() {
  const rpc = await import("vscode-jsonrpc/node.js");
  // As an SDK app starts it (src/sdk/transport.ts): `node dist/cli/main.js`, with the words of
  // SERVER_NODE_FLAGS as Node's flags (none by default: how the SDK started it before session 31;
  // bench/notes/memory31.md gives the bin's young-generation cap, as the SDK does now).
  const main = join(cli, "..", "main.js");
  const serverFlags = (process.env.SERVER_NODE_FLAGS ?? "").split(/\s+/).filter(Boolean);
  const child = spawnTimed(["--headless", "--stdio", "--allow-all-tools"], "pipe", [
    ...timed.slice(0, 5),
    process.execPath,
    ...serverFlags,
    main,
  ]);
  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(child.stdout),
    new rpc.StreamMessageWriter(child.stdin),
  );
  let seen = "";
  let idle;
  const idled = new Promise((done) => {
    idle = done;
  });
  connection.onNotification("session.event", (params) => {
    const event = params?.event;
    if (event?.type === "assistant.message") {
      seen = String(event.data?.content ?? "").slice(-200);
    } else if (event?.type === "session.idle") {
      idle();
    }
  });
  connection.listen();
  await connection.sendRequest("connect", {});
  const created = await connection.sendRequest("session.create", {
    model: "openai-compatible:m",
    workingDirectory: repo,
    streaming: true,
    requestPermission: false,
  });
  await connection.sendRequest("session.send", {
    sessionId: created.sessionId,
    prompt: promptText,
  });
  await idled;
  connection.dispose();
  child.stdin.end();
  await new Promise((done) => child.on("close", done));
  return seen;
}

async function screen() {
  const socket = `memory29-${process.pid}`;
  const tmux = (...words) => execFileSync("tmux", ["-L", socket, ...words], { encoding: "utf8" });
  const envWords = Object.entries({ ...env, NODE_OPTIONS: process.env.CLI_NODE_OPTIONS ?? "" }).map(
    ([key, value]) => `${key}=${quote(value)}`,
  );
  const args = ["--allow-all-tools", ...(input === "prompt" ? [] : [promptText])];
  const command = `cd ${quote(repo)} && env -i ${envWords.join(" ")} TERM=xterm-256color ${[...timed, ...args].map(quote).join(" ")}; echo "[exit $?]"; sleep 600`;
  tmux("new-session", "-d", "-s", "main", "-x", "100", "-y", "30", command);
  if (process.env.PANE_LOG29 !== undefined) {
    // Everything the pane is sent (e.g. the CLI's --trace-gc lines), for a look afterwards.
    tmux("pipe-pane", "-t", "main", `cat >> ${quote(process.env.PANE_LOG29)}`);
  }
  const capture = () => tmux("capture-pane", "-p", "-J", "-t", "main");
  const until = async (test) => {
    for (;;) {
      const shown = capture();
      if (test(shown)) {
        return shown;
      }
      await new Promise((done) => setTimeout(done, 200));
    }
  };
  if (input === "prompt") {
    await until((text) => /Enter send · /.test(text));
    const file = join(work, "paste");
    writeFileSync(file, promptText);
    tmux("load-buffer", "-b", "p", file);
    tmux("paste-buffer", "-p", "-b", "p", "-t", "main");
    await new Promise((done) => setTimeout(done, 2000));
    await until((text) => /Enter send · /.test(text));
    tmux("send-keys", "-t", "main", "Enter");
  }
  const shown = await until((text) => /Enter send · /.test(text) && text.includes("END."));
  const shell = tmux("display-message", "-p", "-t", "main", "#{pane_pid}").trim();
  const timer = execFileSync("pgrep", ["-P", shell], { encoding: "utf8" }).trim();
  const pid = execFileSync("pgrep", ["-P", timer], { encoding: "utf8" }).trim();
  const peak = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  if (process.env.SNAPSHOT29 !== undefined) {
    // With CLI_NODE_OPTIONS=--heapsnapshot-signal=SIGUSR2 (given to the CLI only): its heap, in the repo.
    process.kill(Number(pid), "SIGUSR2");
    await new Promise((done) => setTimeout(done, Number(process.env.SNAPSHOT29)));
  }
  const ticks = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  if (process.env.CTRL_C29 !== undefined) {
    // Ended as a user ends it (Ctrl-C twice), so that --cpu-prof and the like write their files.
    tmux("send-keys", "-t", "main", "C-c");
    await until((text) => /press Ctrl-C again to exit/.test(text));
    tmux("send-keys", "-t", "main", "C-c");
    await until((text) => /\[exit \d+\]/.test(text));
  }
  spawnSync("tmux", ["-L", socket, "kill-server"]);
  writeFileSync(timeFile, `${peak} ${(Number(ticks[11]) + Number(ticks[12])) / 100} 0\n`);
  return shown;
}

async function sessions(words) {
  const list = execFileSync(process.execPath, [cli, "sessions", "list", "--json"], {
    cwd: repo,
    env,
    encoding: "utf8",
  });
  const id = /"(?:sessionId|id)":\s*"([^"]+)"/.exec(list)?.[1] ?? list.trim().split(/\s+/)[0];
  return tailOf(spawnTimed(["sessions", ...words(id)]));
}

async function run() {
  switch (face) {
    case "screen":
      return screen();
    case "p-text":
      return printMode(undefined);
    case "p-json":
      return printMode("json");
    case "p-stream-json":
      return printMode("stream-json");
    case "acp":
      return acp();
    case "server":
      return sdkServer();
    case "show":
      return sessions((id) => ["show", id]);
    case "export-markdown":
    case "export-html":
    case "export-jsonl":
      return sessions((id) => ["export", id, "--format", face.slice(7)]);
    default:
      throw new Error(`unknown face ${face}`);
  }
}

const shown = await run();
server.close();
const [peakKiB, user, system] = readFileSync(timeFile, "utf8").trim().split("\n").at(-1).split(" ");
console.log(
  [
    face,
    input,
    bytes,
    `${(Number(peakKiB) / 1024).toFixed(0)} MiB`,
    `${(Number(user) + Number(system)).toFixed(2)} s cpu`,
    shown.includes("END") ? "end seen" : "END MISSING",
  ].join("\t"),
);
rmSync(work, { recursive: true, force: true });
if (process.env.HOME29 === undefined) {
  rmSync(home, { recursive: true, force: true });
  rmSync(repo, { recursive: true, force: true });
}
