/*
 * How a sandboxed command's output and exit status show a network reach or a Unix socket the
 * sandbox refused (sandboxed-runner.ts judges a result by these). Loaded with the sandboxed
 * runner, not at start.
 */

/**
 * What common tools print when a name lookup or a connection fails, as it does in a sandbox
 * without the network (its own namespace: loopback only, nothing listening there but what the
 * command started, and no name server): the C library's words (bash, Python, wget, ssh, git,
 * ping; Go's and Rust's in lower case), curl's (`Failed to connect to 127.0.0.1 port 8080 …:
 * Couldn't connect to server`, `Could not resolve host`), wget's (`unable to resolve host
 * address`), Node's error codes (`connect ECONNREFUSED 127.0.0.1:8080`, `getaddrinfo
 * EAI_AGAIN`, npm's too) and urllib3's (pip, requests). Only a failed command's output is read.
 */
export const NO_NETWORK =
  /network is unreachable|connection refused|Could not resolve host|Couldn't connect to server|Failed to connect to \S+ port \d+|unable to resolve host address|Temporary failure in name resolution|Name or service not known|getaddrinfo (?:ENOTFOUND|EAI_AGAIN)|\b(?:ECONNREFUSED|ENETUNREACH)\b|Failed to establish a new connection/i;

/**
 * Exit codes by which known network clients say a failed lookup or connection, for when they
 * print nothing (`curl -s`): curl's (its manual, "EXIT CODES": 5 proxy not resolved, 6 host not
 * resolved, 7 failed to connect) and wget's (its manual, "EXIT STATUS": 4 network failure).
 */
const NETWORK_EXIT_CODES: ReadonlyMap<string, ReadonlyMap<number, string>> = new Map([
  [
    "curl",
    new Map([
      [5, "could not resolve the proxy"],
      [6, "could not resolve the host"],
      [7, "could not connect"],
    ]),
  ],
  ["wget", new Map([[4, "network failure"]])],
]);

/**
 * `curl exit code 7: could not connect` when the program whose status `bash -c command` returned
 * (`statusProgram`) is a known client and `exitCode` one of its network codes.
 */
export function networkExit(
  command: string,
  exitCode: number,
  statusProgram: ((command: string) => string | undefined) | undefined,
): string | undefined {
  const known = [...NETWORK_EXIT_CODES.values()].some((codes) => codes.has(exitCode));
  const name = known ? statusProgram?.(command) : undefined;
  const meaning = name === undefined ? undefined : NETWORK_EXIT_CODES.get(name)?.get(exitCode);
  return meaning === undefined ? undefined : `${name} exit code ${exitCode}: ${meaning}`;
}

/**
 * A refused Unix socket as programs say it: `socket()` failed with `EPERM` (the C library's
 * "Operation not permitted", which Python's `PermissionError` repeats, Node's `EPERM`) where the
 * output or the command speaks of a socket (psql's `connection to server on socket
 * "/run/postgresql/.s.PGSQL.5432" failed`, Python's `AF_UNIX`).
 */
const SOCKET_REFUSED = /Operation not permitted|\bEPERM\b/;
const SOCKET_MENTION = /socket|\bunix\b|\bAF_UNIX\b|\.sock\b|\.s\.PGSQL/i;
/**
 * A command that names a Unix socket (`curl --unix-socket …`, `unix:///var/run/docker.sock`,
 * `nc -U …`, a `.sock` or PostgreSQL's `.s.PGSQL.5432`): a failed connection of its is the
 * refused socket, whatever the client printed (curl says only "Couldn't connect to server").
 */
const NAMES_UNIX_SOCKET = /--unix-socket\b|\bunix:|\bnc\b.*\s-U\b|\.sock\b|\.s\.PGSQL/;

/**
 * `the sandbox refuses Unix sockets (…)` when a failed command's output or text shows that the
 * seccomp filter refused the socket it made (unix-socket-filter.ts); `connectionFailed` is what
 * said a failed connection (the output's words or a client's exit code), if anything did.
 */
export function unixSocketRefusal(
  output: string,
  command: string,
  connectionFailed: string | undefined,
): string | undefined {
  const refused = SOCKET_REFUSED.exec(output)?.[0];
  const evidence =
    refused !== undefined && (SOCKET_MENTION.test(output) || SOCKET_MENTION.test(command))
      ? refused
      : NAMES_UNIX_SOCKET.test(command)
        ? connectionFailed
        : undefined;
  return evidence === undefined
    ? undefined
    : `the sandbox refuses Unix sockets, so services on the host such as databases, D-Bus and Docker are out of reach (${evidence})`;
}

/** What the C library's resolver says of a failed lookup (getaddrinfo(3)'s `gai_strerror`). */
const RESOLVER_WORDS =
  "Temporary failure in name resolution|Name or service not known|No address associated with hostname";

/**
 * The lines by which known network clients say that a name lookup or a connection failed, whole
 * and exactly as each prints them, so that a command that printed such words for another reason
 * (`grep -r "Connection refused" src`, an `echo`, a test's name) does not match. Any one of them
 * is enough, so that a `| tail` that cut away a client's other lines still leaves one:
 * - curl's errors 5, 6 and 7 (curl(1) "EXIT CODES": `curl: (6) Could not resolve host: x`),
 *   which may follow its progress meter on the same line, after the meter's carriage return;
 * - wget's (`wget: unable to resolve host address ‘x’`, `Resolving x (x)... failed: Temporary
 *   failure in name resolution.`, `Connecting to 127.0.0.1:9... failed: Connection refused.`);
 * - git's over HTTP (`fatal: unable to access 'https://x/': Could not resolve host: x`) and over
 *   ssh (`ssh: Could not resolve hostname x: …`, `ssh: connect to host x port 22: Connection
 *   refused`);
 * - npm's (`npm error code EAI_AGAIN`, `npm error errno EAI_AGAIN`, `npm error syscall
 *   getaddrinfo`, `npm error request to https://x/ failed, reason: getaddrinfo EAI_AGAIN x`;
 *   `npm ERR! …` before npm 10);
 * - Node's, uncaught (`Error: getaddrinfo EAI_AGAIN x`, `[cause]: Error: …` under fetch's
 *   `TypeError: fetch failed`) and its inspection of the error (`  code: 'EAI_AGAIN',` followed
 *   by `  syscall: 'getaddrinfo',`);
 * - Python's (`socket.gaierror: [Errno -3] Temporary failure in name resolution`,
 *   `urllib.error.URLError: <urlopen error [Errno -3] …>`), requests' and urllib3's exceptions
 *   naming a failed lookup or connection, and pip's (`WARNING: Retrying (Retry(…)) after
 *   connection broken by 'NewConnectionError(…`, `ERROR: Could not install packages due to an
 *   OSError: … NewConnectionError…`);
 * - cargo's (libcurl's words: `  [6] Could not resolve hostname (Could not resolve host: x)`).
 */
const CLIENT_NETWORK_LINES = [
  "curl: \\([567]\\) .+",
  "wget: unable to resolve host address .+",
  `Resolving .+\\.\\.\\. failed: (?:${RESOLVER_WORDS})\\.`,
  "Connecting to .+\\.\\.\\. failed: (?:Connection refused|Network is unreachable)\\.",
  "fatal: unable to access '[^']+': (?:Could not resolve host: \\S+|Failed to connect to .+)",
  "ssh: (?:Could not resolve hostname \\S+|connect to host \\S+ port \\d+): .+",
  "npm (?:error|ERR!) (?:code|errno) (?:EAI_AGAIN|ENOTFOUND|ECONNREFUSED|ENETUNREACH)",
  "npm (?:error|ERR!) syscall getaddrinfo",
  "npm (?:error|ERR!) (?:network )?request to \\S+ failed, reason: (?:getaddrinfo (?:EAI_AGAIN|ENOTFOUND)|connect (?:ECONNREFUSED|ENETUNREACH)) \\S+",
  "[ \\t]*(?:\\[cause\\]: )?Error: getaddrinfo (?:EAI_AGAIN|ENOTFOUND) \\S+",
  "[ \\t]*code: '(?:EAI_AGAIN|ENOTFOUND)',(?=\\n[ \\t]*syscall: 'getaddrinfo',$)",
  `socket\\.gaierror: \\[Errno -?\\d+\\] (?:${RESOLVER_WORDS})`,
  `urllib\\.error\\.URLError: <urlopen error \\[Errno -?\\d+\\] (?:${RESOLVER_WORDS}|Connection refused|Network is unreachable)>`,
  `(?:requests\\.exceptions\\.ConnectionError|urllib3\\.exceptions\\.(?:MaxRetryError|NameResolutionError|NewConnectionError)): .*(?:${RESOLVER_WORDS}|Failed to resolve|Failed to establish a new connection).*`,
  "WARNING: Retrying \\(Retry\\(.+\\)\\) after connection broken by '(?:NewConnectionError|NameResolutionError)\\(.+",
  "ERROR: Could not install packages due to an OSError: .*(?:NewConnectionError|NameResolutionError).*",
  "[ \\t]*\\[6\\] Could(?: not|n't) resolve host ?name \\(Could not resolve host: \\S+\\)",
];

/** The longest client line {@link networkRefusedDespiteSuccess} quotes whole, in characters. */
const QUOTED_LENGTH = 200;

/** {@link CLIENT_NETWORK_LINES}, one of them a whole line (after a progress meter's `\r`). */
const CLIENT_NETWORK_ERRORS = new RegExp(
  `^(?:[^\\n]*\\r[^\\n]*?)?(${CLIENT_NETWORK_LINES.join("|")})$`,
  "m",
);

/**
 * The note for a command that exited 0 although a network client in it said the sandbox's closed
 * network stopped it ({@link CLIENT_NETWORK_ERRORS}): `curl -s https://x | head` exits with
 * `head`'s status, `npm install || true` with `true`'s. It is no sandbox limit: running the whole
 * command again outside the sandbox would repeat what else it did; the model is told to run the
 * network part alone so that it fails when it cannot, which, failing on the sandbox, is asked
 * about (tools/bash.ts). `undefined` for any other result and with the network on.
 */
export function networkRefusedDespiteSuccess(
  output: string,
  exitCode: number | null,
  network: boolean,
): string | undefined {
  const found =
    exitCode === 0 && !network ? CLIENT_NETWORK_ERRORS.exec(output)?.[1]?.trim() : undefined;
  // pip's and urllib3's lines run long: their start says what failed.
  const line =
    found !== undefined && found.length > QUOTED_LENGTH
      ? `${found.slice(0, QUOTED_LENGTH - 1)}…`
      : found;
  return line === undefined
    ? undefined
    : `Note: the command exited 0, but it could not reach the network: the sandbox has no network (${line}). To reach it, run the network command alone, so that it fails when it cannot (no pipe after it, no \`|| true\`): when the sandbox stops it, the user is asked whether to allow the network.`;
}
