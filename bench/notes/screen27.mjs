// CPU and peak memory of the interactive screen over a long transcript (bench/notes/screen27.md).
// Usage: node bench/notes/screen27.mjs <dist/cli/turnloop.cjs> <case> [columns]
//   case long: a session of 300 turns (bench/long-session.mjs: a short reply and a tool call
//              each) reopened with --resume, then one prompt answered with 200 KB of Markdown
//              prose in 2,000 deltas of 100 bytes, one every 10 ms (about 20 s)
//   case huge: a new session, one prompt answered with 5 MB of prose in 50,002 deltas of 100 bytes
//              (memory26.mjs's `screen 5000000 prose 100`)
// Prints one line: case, deltas, the CLI's peak resident set (VmHWM, MiB) and user+system CPU
// seconds (from /proc once the answer's end is on the screen and the prompt is idle), and
// whether the end was shown. Needs tmux. The screen is 100×30 unless columns are given.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join, resolve } from "node:path";
import { longSessionLog } from "../long-session.mjs";

const [cliArgument, kind, columnsText] = process.argv.slice(2);
const cli = resolve(cliArgument);
const columns = Number(columnsText ?? 100);
const bytes = kind === "long" ? 200_000 : 5_000_000;
const deltaBytes = 100;
const answer = prose(bytes);

/** Markdown paragraphs, headings, lists and code blocks (memory26.mjs's `prose`). */
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
  return `${parts.join("")}The last line of the answer: END.`;
}

const chunk = { id: "c", object: "chat.completion.chunk", created: 1, model: "m" };
const sse = (data) => `data: ${JSON.stringify({ ...chunk, ...data })}\n\n`;

/** The long case's pace: one delta every this many ms (a fast model), so that most get a frame. */
const PACE_MS = kind === "long" ? 10 : 0;

const server = createServer((request, response) => {
  request.resume();
  request.on("end", async () => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    let body = "";
    for (let at = 0; at < answer.length; at += deltaBytes) {
      const content = answer.slice(at, at + deltaBytes);
      body += sse({ choices: [{ index: 0, delta: { role: "assistant", content } }] });
      if (PACE_MS > 0) {
        response.write(body);
        body = "";
        await new Promise((done) => setTimeout(done, PACE_MS));
      } else if (body.length > 1 << 20) {
        response.write(body);
        body = "";
      }
    }
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    body += sse({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage });
    response.end(`${body}data: [DONE]\n\n`);
  });
});
await new Promise((done) => server.listen(0, "127.0.0.1", done));
const home = mkdtempSync("/tmp/screen27-home-");
const repo = `${home}-repo`;
mkdirSync(repo, { recursive: true });
if (kind === "long") {
  const folder = join(home, "session-state", "long-session");
  mkdirSync(folder, { recursive: true });
  const log = longSessionLog(300)
    .replaceAll('"cwd":"/work/project"', `"cwd":${JSON.stringify(repo)}`)
    .replaceAll('"model":"openai:gpt-5"', '"model":"openai-compatible:m"');
  writeFileSync(join(folder, "events.jsonl"), log);
}
const env = {
  PATH: process.env.PATH,
  TURNLOOP_HOME: home,
  TURNLOOP_MODEL: "openai-compatible:m",
  TURNLOOP_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`,
  OPENAI_API_KEY: "sk-bench",
  // For a profile: NODE_OPTIONS=--cpu-prof --cpu-prof-dir=… is passed on.
  ...(process.env.NODE_OPTIONS === undefined ? {} : { NODE_OPTIONS: process.env.NODE_OPTIONS }),
};
const quote = (text) => `'${text.replaceAll("'", "'\\''")}'`;
const envWords = Object.entries(env).map(([key, value]) => `${key}=${quote(value)}`);
const args = kind === "long" ? ["--resume", "long-session", "go"] : ["go"];
const socket = `screen27-${process.pid}`;
const tmux = (...words) => execFileSync("tmux", ["-L", socket, ...words], { encoding: "utf8" });
const command = `cd ${quote(repo)} && env -i ${envWords.join(" ")} TERM=xterm-256color ${[process.execPath, cli, ...args].map(quote).join(" ")}; echo "[exit $?]"; sleep 600`;
tmux("new-session", "-d", "-s", "main", "-x", String(columns), "-y", "30", command);
let shown = "";
for (;;) {
  shown = tmux("capture-pane", "-p", "-J", "-t", "main");
  if (/Enter send · /.test(shown) && shown.includes("END.")) {
    break;
  }
  await new Promise((done) => setTimeout(done, 200));
}
const shell = tmux("display-message", "-p", "-t", "main", "#{pane_pid}").trim();
const pid = execFileSync("pgrep", ["-P", shell], { encoding: "utf8" }).trim();
const peak = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
const ticks = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
const seconds = (Number(ticks[11]) + Number(ticks[12])) / 100;
spawnSync("tmux", ["-L", socket, "kill-server"]);
server.close();
const deltas = Math.ceil(answer.length / deltaBytes);
console.log(
  [
    kind,
    `${deltas} deltas`,
    `${(peak / 1024).toFixed(0)} MiB`,
    `${seconds.toFixed(2)} s cpu`,
    "end shown",
  ].join("\t"),
);
// The CLI may still be writing its log as it exits: removed with retries, after the figures.
const removal = { recursive: true, force: true, maxRetries: 10, retryDelay: 200 };
rmSync(home, removal);
rmSync(repo, removal);
