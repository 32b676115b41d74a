import { BodyPieces } from "./request-body.js";

/**
 * JSON texts kept as their UTF-8 bytes, for the parts of a model request's body that later requests
 * send again unchanged (issue 26, figure 3): an OpenAI-compatible model's earlier wire messages
 * (sync-chunk-validation.ts) and its tool definitions (kept-tools.ts). Each part is encoded once,
 * when it is added; a request's body is then put together from bytes (huge-messages.ts,
 * `withHugeBodies`), where before it joined the whole text into a new string and encoded it
 * again at every request: two copies a request that grew with the history.
 */

/**
 * A JSON text at one moment, as its UTF-8 bytes and its length in UTF-16 code units (what
 * `string.length` would read). The bytes never change.
 */
export interface EncodedText {
  readonly bytes: Uint8Array;
  readonly length: number;
}

/**
 * A JSON text that grows at its end, kept as its UTF-8 bytes in a buffer with room to grow (by
 * half again when full), so adding a part encodes and copies that part only (amortised). The
 * parts must be well-formed UTF-16 on their own, as `JSON.stringify`'s output always is (a lone
 * surrogate comes out escaped): then the bytes of the parts one after another are the bytes of
 * the whole text.
 */
export class EncodedJson implements EncodedText {
  #buffer: Buffer = Buffer.alloc(0);
  #byteLength = 0;
  #length = 0;

  /** The text's length in UTF-16 code units. */
  get length(): number {
    return this.#length;
  }

  /**
   * The text's bytes so far: a view that later {@link append}s leave as it is (they write after
   * it, or into a new buffer).
   */
  get bytes(): Uint8Array {
    return this.#buffer.subarray(0, this.#byteLength);
  }

  /** The text so far, as it is now: its bytes and length, which later appends do not change. */
  snapshot(): EncodedText {
    return { bytes: this.bytes, length: this.#length };
  }

  /** Adds `text` (well-formed UTF-16, see the class) at the end. */
  append(text: string): void {
    const needed = this.#byteLength + Buffer.byteLength(text);
    if (needed > this.#buffer.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(needed, Math.ceil(this.#buffer.length * 1.5)));
      this.#buffer.copy(grown, 0, 0, this.#byteLength);
      this.#buffer = grown;
    }
    this.#byteLength += this.#buffer.write(text, this.#byteLength);
    this.#length += text.length;
  }
}

/** The text of `encoded`, decoded from its bytes (for a body too big to send as one piece). */
export function decodedText(encoded: EncodedText): string {
  return Buffer.from(
    encoded.bytes.buffer,
    encoded.bytes.byteOffset,
    encoded.bytes.byteLength,
  ).toString("utf8");
}

/**
 * The UTF-8 bytes of `parts` one after another, as pieces: each text encoded on its own (well-formed
 * UTF-16, as the parts of a body cut at placeholders are), each encoded text's bytes the view they
 * are, not copied.
 */
export function bytePieces(parts: ReadonlyArray<string | EncodedText>): BodyPieces {
  return new BodyPieces(
    parts.map((part) => (typeof part === "string" ? Buffer.from(part) : part.bytes)),
  );
}

/**
 * The UTF-8 bytes of `parts` one after another, in one new array: texts encoded into it (each
 * well-formed UTF-16, as the parts of a body cut at placeholders are), encoded texts copied.
 */
export function joinedBytes(parts: ReadonlyArray<string | EncodedText>): Uint8Array {
  let byteLength = 0;
  for (const part of parts) {
    byteLength += typeof part === "string" ? Buffer.byteLength(part) : part.bytes.byteLength;
  }
  const joined = Buffer.allocUnsafe(byteLength);
  let offset = 0;
  for (const part of parts) {
    if (typeof part === "string") {
      offset += joined.write(part, offset);
    } else {
      joined.set(part.bytes, offset);
      offset += part.bytes.byteLength;
    }
  }
  return joined;
}
