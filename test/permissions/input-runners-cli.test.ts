import { DENY_TOUCH, describeMarkerCases, UNREAD } from "./marker-cases.js";

/**
 * One end-to-end `turnloop -p` run per family of input-runners.test.ts (session 18's brief, from the session-17 trial,
 * #1–#3 and #5), with a harmless marker file in the fixture's temporary repository: each spelling
 * creates its marker under `--allow-all-tools` (the test can fail), and under the flags of the
 * case it is refused and the marker is not created.
 */
const DENIED = "denied by --deny-tool 'bash(touch *)'";

describeMarkerCases([
  // xargs's input becomes the command a wrapper runs (#1): it names no touch, so it is asked.
  {
    mechanism: "xargs env",
    command: "echo ./x.sh | xargs env",
    flags: DENY_TOUCH,
    refusal: UNREAD,
  },
  {
    mechanism: "xargs -I in a script",
    command: "echo ./x.sh | xargs -I{} sh -c {}",
    flags: DENY_TOUCH,
    refusal: UNREAD,
  },
  // `--` ends a wrapper's or builtin's options (#2).
  {
    mechanism: "timeout --",
    command: "timeout -- 5 touch marker",
    flags: DENY_TOUCH,
    refusal: DENIED,
  },
  { mechanism: "eval --", command: 'eval -- "touch marker"', flags: DENY_TOUCH, refusal: DENIED },
  {
    mechanism: "trap --",
    command: "trap -- 'touch marker' EXIT",
    flags: DENY_TOUCH,
    refusal: DENIED,
  },
  // A runner that runs the command in its arguments (#3).
  {
    mechanism: "cmake -E env",
    command: "cmake -E env A=1 touch marker",
    flags: DENY_TOUCH,
    refusal: DENIED,
  },
  // A writer a prefix rule no longer covers (#5): asked, so refused by -p.
  {
    mechanism: "python3 -m json.tool IN OUT",
    command: "python3 -m json.tool x.json marker",
    flags: ["--allow-tool", "bash(python3 *)"],
    refusal: "Permission denied for 'bash'",
  },
]);
