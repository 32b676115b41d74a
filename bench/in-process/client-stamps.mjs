/**
 * Client-side stamps of figure 3's gap (bench/notes/turn43.md): when this process read the last
 * bytes of a model response and when it handed the next request's first bytes to the OS, on the
 * client's own sockets to the fake model, for turnloop and its floor alike. The fake model's stamps
 * (fake-model.mjs `finishedAt`, `receivedAt`) also hold the fake model's own wake-up and header
 * parsing in its child process, which on a loaded machine waits for a CPU: time that is not the
 * client's.
 */

import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { monotonicMilliseconds } from "./support.mjs";

/**
 * Watches every client socket this process opens (node:diagnostics_channel `net.client.socket`,
 * published when a socket starts connecting): a `data` listener added before the HTTP client's
 * stamps each read, and the socket's own `_write`/`_writev` (the calls that hand bytes to the OS,
 * after any cork) are wrapped to stamp each write.
 * @returns {{stop: () => void, sockets: (port: number) => number, requests: (port: number) =>
 *   Array<{firstWrite: number, lastRead: number}>}} `sockets(port)`: how many sockets connected to
 *   `port` (one while keep-alive holds); `requests(port)`: for each request on them, in
 *   order, when its first bytes were written and when the last bytes of its answer were read
 *   (monotonic ms). A request is a run of writes on one socket; its answer, the reads that follow
 *   until the next write on any watched socket to `port`.
 */
export function watchClientSockets() {
  /** @type {Array<{socket: import("node:net").Socket, kind: "read" | "write", at: number}>} */
  const timeline = [];
  /** @param {{socket: import("node:net").Socket}} message */
  const onSocket = ({ socket }) => {
    socket.on("data", () => timeline.push({ socket, kind: "read", at: monotonicMilliseconds() }));
    for (const name of /** @type {const} */ (["_write", "_writev"])) {
      const original = socket[name];
      socket[name] = function stamped(...parameters) {
        timeline.push({ socket, kind: "write", at: monotonicMilliseconds() });
        return original.apply(this, parameters);
      };
    }
  };
  subscribe("net.client.socket", onSocket);
  return {
    stop: () => unsubscribe("net.client.socket", onSocket),
    sockets: (port) =>
      new Set(timeline.flatMap((entry) => (entry.socket.remotePort === port ? [entry.socket] : [])))
        .size,
    requests: (port) => requestsOf(timeline.filter((entry) => entry.socket.remotePort === port)),
  };
}

/**
 * The client's stamps of each of the fake model's `recorded` requests, in order.
 * @param {{requests: (port: number) => Array<{firstWrite: number, lastRead: number}>}} watched
 * @param {string} url The fake model's URL.
 * @param {number} recorded How many requests the fake model recorded.
 * @throws Error when the client wrote a different number of requests to it (the gaps would pair
 *   one request's end with another's start).
 */
export function clientRequests(watched, url, recorded) {
  const client = watched.requests(Number(new URL(url).port));
  if (client.length !== recorded) {
    throw new Error(
      `the client wrote ${client.length} requests, the fake model received ${recorded}`,
    );
  }
  return client;
}

/**
 * @param {Array<{kind: "read" | "write", at: number}>} timeline
 * @returns {Array<{firstWrite: number, lastRead: number}>}
 */
function requestsOf(timeline) {
  /** @type {Array<{firstWrite: number, lastRead: number}>} */
  const requests = [];
  let previous = "read";
  for (const { kind, at } of timeline) {
    if (kind === "write" && previous === "read") {
      requests.push({ firstWrite: at, lastRead: Number.NaN });
    } else if (kind === "read") {
      const last = requests.at(-1);
      if (last !== undefined) {
        last.lastRead = at;
      }
    }
    previous = kind;
  }
  return requests;
}
