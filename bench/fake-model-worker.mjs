/**
 * The far side of `startFakeModelWorker` and `startFakeModelProcess` (fake-model.mjs): runs the
 * fake model server in its own event loop, as a worker thread or as a child process, and answers
 * the parent's questions (url, requests, reset, close).
 */

import { parentPort, workerData } from "node:worker_threads";
import { startFakeModel } from "./fake-model.mjs";

/**
 * The channel to the parent: the worker port, or the IPC channel of a forked process (whose
 * options come as JSON in the first argument).
 */
const channel =
  parentPort !== null
    ? {
        options: workerData ?? {},
        send: (message) => parentPort?.postMessage(message),
        onMessage: (handler) => parentPort?.on("message", handler),
      }
    : {
        options: JSON.parse(process.argv[2] ?? "{}"),
        send: (message) => process.send?.(message),
        onMessage: (handler) => process.on("message", handler),
      };
if (parentPort === null && process.send === undefined) {
  throw new Error("fake-model-worker.mjs runs only as a worker thread or a forked process");
}
const model = await startFakeModel(channel.options);

channel.onMessage(async (message) => {
  switch (message.type) {
    case "url":
      channel.send({ id: message.id, url: model.url });
      break;
    case "requests":
      channel.send({ id: message.id, requests: await model.requests() });
      break;
    case "reset":
      await model.reset();
      channel.send({ id: message.id });
      break;
    case "close":
      await model.close();
      channel.send({ id: message.id });
      if (parentPort === null) {
        process.disconnect?.();
      }
      break;
  }
});
