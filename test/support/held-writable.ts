import { Writable } from "node:stream";

/**
 * A Writable that records each write as text. While held (`hold()`), its write callbacks wait for
 * `release()`, so its buffer fills past `highWaterMark` (bytes) and its writers see backpressure.
 */
export function heldWritable(highWaterMark: number) {
  const writes: string[] = [];
  const waiting: Array<() => void> = [];
  let held = false;
  const target = new Writable({
    highWaterMark,
    write: (chunk: Buffer, _encoding, callback) => {
      writes.push(chunk.toString("utf8"));
      if (held) {
        waiting.push(() => callback());
      } else {
        callback();
      }
    },
  });
  const hold = () => {
    held = true;
  };
  const release = () => {
    held = false;
    for (const callback of waiting.splice(0)) {
      callback();
    }
  };
  return { target, writes, hold, release };
}
