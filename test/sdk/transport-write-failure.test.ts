import { PassThrough, Writable } from "node:stream";
import { expect, test } from "vitest";
import { createMessageConnection, StreamMessageReader } from "vscode-jsonrpc/node.js";
import { settledWriter } from "../../src/sdk/transport.js";

/**
 * A request written just as the server's end of the stream closed: vscode-jsonrpc rethrows the
 * write's failure inside a promise executor, which (with its own stream writer) is an unhandled
 * rejection that crashes the app — and fails this test run. With the SDK's writer the failure is
 * reported on the connection, the stream is destroyed, and the request is rejected when the
 * connection goes.
 */
test("a request whose write fails: reported on the connection, rejected at the close, nothing unhandled", async () => {
  const ended = new Writable({
    write(_chunk, _encoding, callback) {
      callback(new Error("This socket has been ended by the other party"));
    },
  });
  const connection = createMessageConnection(
    new StreamMessageReader(new PassThrough()),
    settledWriter(ended),
  );
  const errors: string[] = [];
  connection.onError(([error]) => errors.push(error.message));
  connection.listen();

  const answer = connection.sendRequest("ping", {});
  answer.catch(() => undefined);
  await expect.poll(() => errors.length).toBeGreaterThan(0);
  expect(new Set(errors)).toEqual(new Set(["This socket has been ended by the other party"]));
  expect(ended.destroyed).toBe(true);
  connection.dispose();
  await expect(answer).rejects.toThrow("Pending response rejected since connection got disposed");
});
