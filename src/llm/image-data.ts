/**
 * Whether an image's data is what every image-taking API takes: base64 in the standard alphabet
 * with its padding (RFC 4648 section 4), nothing else (no spaces, line ends or URL-safe letters).
 * An API refuses a whole request that holds an image it cannot decode (HTTP 400), and a session
 * keeps its prompts' images in its history: such an image is refused where it comes in (ACP
 * `session/prompt`, SDK `session.send`) and, in a log an earlier version wrote, replaced by a
 * note when the history is built (agent/history.ts).
 */

/** The characters base64 is written in (RFC 4648 section 4, Table 1) and its pad. */
const NOT_BASE64 = /[^A-Za-z0-9+/=]/;

/**
 * What is wrong with `data` as an image's base64 data, in words that follow its name
 * (`prompt[1].data` "is not base64: …"); `undefined` when it decodes. Time linear in its length,
 * no copy.
 */
export function imageDataProblem(data: string): string | undefined {
  if (data === "") {
    return "is empty: an image needs its bytes in base64";
  }
  const stray = NOT_BASE64.exec(data);
  if (stray !== null) {
    return `is not base64: ${JSON.stringify(stray[0])} at character ${stray.index + 1} is not one of its letters (A-Z a-z 0-9 + / and = at the end)`;
  }
  // Whole groups of four, the last one padded with one or two `=` (and `=` nowhere else).
  const pad = data.indexOf("=");
  const padded = pad === -1 || pad >= data.length - 2;
  if (data.length % 4 !== 0 || !padded || (pad === data.length - 2 && !data.endsWith("=="))) {
    return `is not base64: its ${data.length} characters are not whole groups of four padded with "=" at the end only`;
  }
  return undefined;
}
