/**
 * The app's side of one captured relay (relay-counts/capture.mjs), in one process and
 * deterministic, for counting instructions (`valgrind --tool=callgrind`): the frames the server
 * writes for the captured events (`Content-Length` header, `JSON.stringify` of the notification),
 * in 64 KiB chunks with one turn of the event loop between chunks, read by the build's SDK as
 * client.ts wires it: its `FramedMessageReader` (the `session.event`s handed on directly), a
 * vscode-jsonrpc connection, and a `TurnloopSession` with one handler for every event, as
 * bench/sdk-relay.mjs has (it counts the events and the numbered deltas).
 *
 * Usage: `node bench/relay-counts/inbound.mjs <dist> <capture.json> <read|none> [rounds]`.
 * `none` makes the chunks and takes the turns without reading them, to subtract.
 */

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const [dist = "dist", capturePath = "relay-capture.json", mode = "read", rounds = "1"] =
  process.argv.slice(2);
const load = (path) => import(pathToFileURL(resolve(dist, path)).href);
const { FramedMessageReader } = await load("sdk/framed-reader.js");
const { TurnloopSession } = await load("sdk/session.js");
const { createMessageConnection, StreamMessageWriter } = await import("vscode-jsonrpc/node.js");

const { sessionId, events } = JSON.parse(readFileSync(capturePath, "utf8"));
const frames = events.map((event) => {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    method: "session.event",
    params: { sessionId, event },
  });
  return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
});
const stream = Buffer.from(frames.join(""));
const CHUNK = 65_536;

const input = new PassThrough();
const reader = new FramedMessageReader(input);
const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() });
const connection = createMessageConnection(reader, new StreamMessageWriter(sink), undefined, {
  messageStrategy: reader.strategy,
});
const session = new TurnloopSession(sessionId, connection, "/workspace", {});
reader.handleDirectly("session.event", (params) => session.dispatch(params.event));
connection.listen();
let seen = 0;
let deltas = 0;
session.on((event) => {
  seen++;
  if (event.type === "assistant.message_delta") {
    deltas += [...event.data.deltaContent.matchAll(/w(\d+) /g)].length;
  }
});

const turn = () => new Promise((settle) => setImmediate(settle));
for (let round = 0; round < Number(rounds); round++) {
  for (let offset = 0; offset < stream.length; offset += CHUNK) {
    const chunk = stream.subarray(offset, offset + CHUNK);
    if (mode === "read") {
      input.write(chunk);
    }
    await turn();
  }
}
await turn();
connection.dispose();
process.stdout.write(`${mode}: ${seen} events, ${deltas} numbered deltas seen\n`);
