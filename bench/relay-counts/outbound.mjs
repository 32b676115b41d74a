/**
 * The SDK server's outbound path for one captured relay (relay-counts/capture.mjs), in one
 * process and deterministic, for counting instructions (`valgrind --tool=callgrind`): each
 * captured event goes as `server-session.ts` `forward` sends it, through the build's own
 * `modelNamesOnWire`, `SessionClients.notify` (one app attached, streaming) and
 * `ClientConnection.notify` into its `FramedMessageWriter`, 200 events per turn of the event loop.
 * The writer's output takes each write at once (`writeSync` to /dev/null: the text encoded as a
 * pipe's write encodes it, no pipe's timing), so every run groups the same frames into the same
 * writes.
 *
 * Usage: `node bench/relay-counts/outbound.mjs <dist> <capture.json> <notify|none> [rounds]`.
 * `none` does everything but the sending (the capture's reading and the turns), to subtract.
 * Prints the bytes written and the writes.
 */

import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { resolve } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const [dist = "dist", capturePath = "relay-capture.json", mode = "notify", rounds = "1"] =
  process.argv.slice(2);
const load = (path) => import(pathToFileURL(resolve(dist, path)).href);
const { ClientConnection } = await load("server/connection.js");
const { SessionClients } = await load("server/session-clients.js");
const { modelNamesOnWire } = await load("server/wire-events.js");
const { FramedMessageWriter } = await load("protocol/framed-writer.js");
const { StreamMessageReader } = await import("vscode-jsonrpc/node.js");

const { sessionId, events } = JSON.parse(readFileSync(capturePath, "utf8"));
const onServer = events.filter((event) => event.type !== "assistant.idle");
const devNull = openSync("/dev/null", "w");
let bytes = 0;
let writes = 0;
const output = new Writable({
  decodeStrings: false,
  write(chunk, _encoding, callback) {
    bytes += writeSync(devNull, chunk);
    writes++;
    callback();
  },
});
const writer = new FramedMessageWriter(output);
const server = { log: () => undefined, connections: new Set(), sessions: new Map() };
const connection = new ClientConnection(
  server,
  new StreamMessageReader(new PassThrough()),
  writer,
  {},
  () => undefined,
);
const clients = new SessionClients(null);
clients.attach(connection, { streaming: true });
const current = { id: "openai-compatible:bench-model", reasoningEffort: undefined, cwd: "/repo" };
const startTime = onServer[0]?.timestamp ?? "";

/** Sends `event` as server-session.ts `forward` does (the held idle as `sendIdle`). */
function send(event) {
  if (event.type === "session.idle") {
    clients.sendIdle(sessionId, startTime, event);
  } else {
    clients.notify(sessionId, event, modelNamesOnWire(event, current));
  }
}

const turn = () => new Promise((settle) => setImmediate(settle));
let seen = 0;
for (let round = 0; round < Number(rounds); round++) {
  for (let index = 0; index < onServer.length; index++) {
    if (mode === "notify") {
      send(onServer[index]);
    }
    seen++;
    if (index % 200 === 199) {
      await turn();
    }
  }
  await turn();
}
await writer.flushed();
await turn();
closeSync(devNull);
process.stdout.write(`${mode}: ${seen} events, ${bytes} bytes in ${writes} writes\n`);
