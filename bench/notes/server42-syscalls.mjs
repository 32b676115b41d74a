/**
 * System calls of a server run by call and by the session file they touch, from a full strace
 * (`strace -f -y -s 0 -o FILE`, bench/notes/server42.md):
 *
 *   TURNLOOP_BENCH_SERVER_PREFIX="/usr/bin/strace -f -y -s 0 -o FILE" \
 *     node bench/scale-headless.mjs --dist <build>/dist --sessions 20 --first-token 0-0
 *   node bench/notes/server42-syscalls.mjs FILE [--sessions 20]
 *
 * Each call is counted once (an `<unfinished ...>` line, not its `resumed` line), named by its
 * first path argument or, with `-y`, the path of its first file descriptor, shortened to the
 * session file's kind (`events.jsonl`, `lock`, `lock.break`, `metadata.json`, its temporary
 * file, the session folder); calls on sockets, pipes and other files are counted as such.
 * With `--sessions N`, each count is also shown divided by N.
 */

import { readFileSync } from "node:fs";

const [file, ...rest] = process.argv.slice(2);
if (file === undefined) {
  throw new Error("usage: node bench/notes/server42-syscalls.mjs STRACE-FILE [--sessions N]");
}
const sessionsAt = rest.indexOf("--sessions");
const sessions = sessionsAt === -1 ? undefined : Number(rest[sessionsAt + 1]);

const kinds = [
  [/\/events\.jsonl$/, "events.jsonl"],
  [/\/lock\.break$/, "lock.break"],
  [/\/lock$/, "lock"],
  [/\/metadata\.json\.[^/]*\.tmp$/, "metadata.json's temporary file"],
  [/\/metadata\.json$/, "metadata.json"],
  [/session-state\/[0-9a-f-]{36}$/, "the session folder"],
  [/session-state\/[0-9a-f-]{36}\//, "another file of the session folder"],
  [/^socket:/, "a socket"],
  [/^pipe:/, "a pipe"],
  [/^anon_inode:/, "an anonymous inode (epoll, eventfd)"],
];

function kindOf(target) {
  if (target === undefined) {
    return "-";
  }
  for (const [pattern, kind] of kinds) {
    if (pattern.test(target)) {
      return kind;
    }
  }
  return "other";
}

const counts = new Map();
for (const line of readFileSync(file, "utf8").split("\n")) {
  const call = /^\d+\s+([a-z_0-9]+)\((.*)$/.exec(line);
  if (call === null) {
    continue;
  }
  const [, name, args] = call;
  const path = /^(?:AT_FDCWD(?:<[^>]*>)?, )?"([^"]*)"/.exec(args)?.[1];
  const fd = /^-?\d+<([^>]*)>/.exec(args)?.[1];
  const key = `${name}\t${kindOf(path ?? fd)}`;
  counts.set(key, (counts.get(key) ?? 0) + 1);
}
const rows = [...counts].sort((a, b) => b[1] - a[1]);
for (const [key, count] of rows) {
  const each = sessions === undefined ? "" : `\t${(count / sessions).toFixed(2)}`;
  console.log(`${count}${each}\t${key}`);
}
