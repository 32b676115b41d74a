// Peak RSS and CPU of one huge answer, per face (bench/notes/memory26.md).
// Usage: node bench/notes/memory26.mjs <dist/cli/turnloop.cjs> <face> <bytes> <style> <delta bytes>
//   face: p-pipe | p-tty | plain | screen | continue (the screen reopening the last p-tty session)
//   style: line (one line of `H`, as trial 25's fake) | prose (Markdown paragraphs, lists, code)
//   delta bytes: the size of each streamed delta (0: the whole answer in one delta)
// Prints one line: face, bytes, style, deltas, peak RSS (MiB, /usr/bin/time's maximum resident
// set), user+system CPU seconds, and whether the answer's last line was shown.
// Needs tmux and script(1). TURNLOOP_HOME is a fresh folder under /tmp unless HOME26 is set.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join, resolve } from "node:path";

const [cliArgument, face, bytesText, style, deltaText] = process.argv.slice(2);
const cli = resolve(cliArgument);
const bytes = Number(bytesText);
const deltaBytes = Number(deltaText);
const answer = makeAnswer(bytes, style);
const lastLine = answer.trimEnd().split("\n").at(-1) ?? "";

function makeAnswer(size, kind) {
  if (kind === "line") {
    return `${"H".repeat(size)} END`;
  }
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
  return `${parts.join("")}The last line of the answer: END.`;
}

function sse(content) {
  const chunk = { id: "c", object: "chat.completion.chunk", created: 1, model: "m" };
  return `data: ${JSON.stringify({ ...chunk, choices: [{ index: 0, delta: content }] })}\n\n`;
}

const server = createServer((request, response) => {
  request.resume();
  request.on("end", () => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    const step = deltaBytes > 0 ? deltaBytes : answer.length;
    let body = "";
    for (let at = 0; at < answer.length; at += step) {
      body += sse({ role: "assistant", content: answer.slice(at, at + step) });
      if (body.length > 1 << 20) {
        response.write(body);
        body = "";
      }
    }
    const finish = { id: "c", object: "chat.completion.chunk", created: 1, model: "m" };
    body += `data: ${JSON.stringify({ ...finish, choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })}\n\ndata: [DONE]\n\n`;
    response.end(body);
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const port = server.address().port;
const home = process.env.HOME26 ?? mkdtempSync("/tmp/memory26-home-");
const work = mkdtempSync("/tmp/memory26-work-");
// The session's folder: the same for every run with one home, so that `continue` finds it.
const repo = `${home}-repo`;
mkdirSync(repo, { recursive: true });
const timeFile = join(work, "time");
const env = {
  PATH: process.env.PATH,
  TURNLOOP_HOME: home,
  TURNLOOP_MODEL: "openai-compatible:m",
  TURNLOOP_BASE_URL: `http://127.0.0.1:${port}/v1`,
  OPENAI_API_KEY: "sk-bench",
};
const timed = ["/usr/bin/time", "-o", timeFile, "-f", "%M %U %S", process.execPath, cli];
const quote = (text) => `'${text.replaceAll("'", "'\\''")}'`;
const envWords = Object.entries(env).map(([key, value]) => `${key}=${quote(value)}`);

async function run() {
  switch (face) {
    case "p-pipe":
    case "plain": {
      const args = face === "p-pipe" ? ["-p", "go"] : ["go"];
      const child = spawn(timed[0], [...timed.slice(1), ...args], {
        cwd: repo,
        env: { ...env, TERM: "dumb" },
        stdio: ["ignore", "pipe", "ignore"],
      });
      return tailOf(child);
    }
    case "p-tty": {
      const command = `env -i ${envWords.join(" ")} TERM=xterm-256color COLUMNS=100 LINES=30 ${timed.map(quote).join(" ")} -p go`;
      const child = spawn("script", ["-qfec", `stty cols 100 rows 30; ${command}`, "/dev/null"], {
        cwd: repo,
        stdio: ["pipe", "pipe", "ignore"],
      });
      return tailOf(child);
    }
    case "screen":
    case "continue":
      return screen(face === "screen" ? ["go"] : ["--continue"]);
    default:
      throw new Error(`unknown face ${face}`);
  }
}

/** The child's output's last 4 KiB once it exits. */
function tailOf(child) {
  let tail = "";
  child.stdout.on("data", (data) => {
    tail = (tail + data.toString("utf8")).slice(-4096);
  });
  return new Promise((resolve) => child.on("close", () => resolve(tail)));
}

async function screen(args) {
  const socket = `memory26-${process.pid}`;
  const tmux = (...words) => execFileSync("tmux", ["-L", socket, ...words], { encoding: "utf8" });
  const command = `cd ${quote(repo)} && env -i ${envWords.join(" ")} TERM=xterm-256color ${[...timed, ...args].map(quote).join(" ")}; echo "[exit $?]"; sleep 600`;
  tmux("new-session", "-d", "-s", "main", "-x", "100", "-y", "30", command);
  const capture = () => tmux("capture-pane", "-p", "-J", "-t", "main");
  const until = async (test) => {
    for (;;) {
      const shown = capture();
      if (test(shown)) {
        return shown;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  // Idle again, the answer's end on screen: the CLI's peak and CPU read from /proc, then closed.
  const shown = await until((text) => /Enter send · /.test(text) && text.includes("END"));
  const shell = tmux("display-message", "-p", "-t", "main", "#{pane_pid}").trim();
  const timer = execFileSync("pgrep", ["-P", shell], { encoding: "utf8" }).trim();
  const cli = execFileSync("pgrep", ["-P", timer], { encoding: "utf8" }).trim();
  const status = readFileSync(`/proc/${cli}/status`, "utf8");
  const peak = /VmHWM:\s+(\d+)/.exec(status)?.[1];
  const ticks = readFileSync(`/proc/${cli}/stat`, "utf8").split(") ")[1].split(" ");
  const seconds = (Number(ticks[11]) + Number(ticks[12])) / 100;
  spawnSync("tmux", ["-L", socket, "kill-server"]);
  writeFileSync(timeFile, `${peak} ${seconds} 0\n`);
  return shown;
}

const shown = await run();
server.close();
const [peakKiB, user, system] = readFileSync(timeFile, "utf8").trim().split("\n").at(-1).split(" ");
const ends = shown.includes(lastLine.slice(-60)) || shown.includes("END");
const deltas = deltaBytes > 0 ? Math.ceil(answer.length / deltaBytes) : 1;
console.log(
  [
    face,
    bytes,
    style,
    `${deltas} deltas`,
    `${(Number(peakKiB) / 1024).toFixed(0)} MiB`,
    `${(Number(user) + Number(system)).toFixed(2)} s cpu`,
    ends ? "end shown" : "END MISSING",
  ].join("\t"),
);
rmSync(work, { recursive: true, force: true });
if (process.env.HOME26 === undefined && face !== "p-tty") {
  rmSync(home, { recursive: true, force: true });
}
