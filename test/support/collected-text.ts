import { Writable } from "node:stream";

/** A stream that keeps what is written to it as text (`text`), for a command's stdout or stderr. */
export class CollectedText extends Writable {
  text = "";
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}
