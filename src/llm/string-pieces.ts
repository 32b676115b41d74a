/**
 * A huge string in pieces of bounded length, for the stages that copy a huge message (issue 27
 * item 3): the model request's body (huge-messages.ts) and the event log's line
 * (session/event-line.ts); and a long string body's UTF-8 encoded in pieces (request-body.ts).
 */

/** UTF-16 code units of a huge string handled at a time (1 Mi). */
export const PIECE_LENGTH = 1_048_576;

/**
 * `text` in pieces of at most `pieceLength` code units (default {@link PIECE_LENGTH}), never
 * splitting a surrogate pair.
 */
export function* stringPieces(text: string, pieceLength = PIECE_LENGTH): Generator<string> {
  if (text.length <= pieceLength) {
    yield text;
    return;
  }
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + pieceLength, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) {
      end -= 1;
    }
    yield text.slice(start, end);
    start = end;
  }
}
