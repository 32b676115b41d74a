/**
 * The largest protocol message the `acp` and `--headless` faces read, in bytes. One message must
 * fit a pasted 64 MB log in a prompt after JSON escaping (issue 11), so the default is 128 MiB;
 * memory per connection stays within about twice the limit however long a line or however large
 * a claimed `Content-Length` is.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 128 * 1024 * 1024;

/** The environment variable that sets the limit (bytes, a positive integer). */
export const MAX_MESSAGE_BYTES_VARIABLE = "TURNLOOP_MAX_MESSAGE_BYTES";

/**
 * The message size limit from `TURNLOOP_MAX_MESSAGE_BYTES`, or {@link DEFAULT_MAX_MESSAGE_BYTES}.
 * @throws Error with a readable message when the variable is set but not a positive integer.
 */
export function maxMessageBytes(env: NodeJS.ProcessEnv): number {
  const text = env[MAX_MESSAGE_BYTES_VARIABLE]?.trim();
  if (text === undefined || text === "") {
    return DEFAULT_MAX_MESSAGE_BYTES;
  }
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value === 0) {
    throw new Error(
      `${MAX_MESSAGE_BYTES_VARIABLE} must be a positive whole number of bytes, got "${text}"`,
    );
  }
  return value;
}
