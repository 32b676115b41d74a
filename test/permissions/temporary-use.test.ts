import { expect, it } from "vitest";
import { temporaryUse } from "../../src/permissions/temporary-use.js";

// What a sandboxed command is told of its private /tmp (src/tools/sandbox/private-temporary.ts):
// `wrote` (anything it wrote there is gone), `read` (the machine's /tmp is not visible) or nothing.
// A trial of hostile repositories found the notes on commands that merely mention /tmp; each
// write the notes exist for (a write to /tmp/x, then a later command that cannot find it) keeps
// its note.
it("tells a command that wrote under /tmp, one that only read there, and one that did neither", () => {
  const cases: Record<string, "wrote" | "read" | undefined> = {
    // Only mentions: no note.
    'echo "see /tmp"': undefined,
    "echo /tmp/x": undefined,
    "printf '%s\\n' /tmp": undefined,
    "grep -r /tmp src/": undefined,
    "rg -g '*.ts' /tmp src": undefined,
    "grep -n -- /tmp README.md": undefined,
    "curl -s http://x/tmp/y": undefined,
    "ls ./build/tmp/x": undefined,
    "cat $HOME/tmp/notes": undefined,
    "cp ${HOME}/tmp/a b": undefined,
    "make -C build/tmp": undefined,
    "echo $TMPDIR": undefined,
    "echo mktemp is handy": undefined,
    "mktemp -d ./scratch.XXXX": undefined,
    "mktemp -p . x.XXXX": undefined,
    "cat <<EOF\nsee /tmp/x\nEOF": undefined,
    "ls /work/repo/tmp": undefined,
    "cat /tmp/repo/src/a.ts": undefined,
    "cd /tmp/repo && make > /tmp/repo/out.txt": undefined,
    // Reads only.
    "cat /tmp/x": "read",
    "ls -la /tmp": "read",
    "df -k --output=size /tmp | tail -1": "read",
    "grep -e TODO /tmp/notes.txt": "read",
    "grep TODO /tmp/notes.txt": "read",
    "wc -l < /tmp/x": "read",
    "cd /tmp && ls": "read",
    'cat "$TMPDIR/x"': "read",
    "sudo cat /tmp/x": "read",
    "test -e /tmp/x && echo yes": "read",
    // Writes, or may have.
    "echo x > /tmp/x": "wrote",
    "echo x >>/tmp/x": "wrote",
    "ls > /tmp/listing.txt": "wrote",
    "cat /tmp/a > /tmp/b": "wrote",
    "make 2> /tmp/errors": "wrote",
    "touch /tmp/x": "wrote",
    "cp a.txt /tmp/": "wrote",
    "curl -o /tmp/x http://example.test/": "wrote",
    "gcc -o/tmp/a.out a.c": "wrote",
    "sort --output=/tmp/sorted in.txt": "wrote",
    "tee /tmp/log < in.txt": "wrote",
    mktemp: "wrote",
    "mktemp -d": "wrote",
    "x=$(mktemp) && echo hi > $x": "wrote",
    "mktemp -t build.XXXX": "wrote",
    "mktemp /tmp/x.XXXX": "wrote",
    "mktemp -p /tmp x.XXXX": "wrote",
    "touch $TMPDIR/x": "wrote",
    'echo x > "${TMPDIR:-/tmp}/x"': "wrote",
    "cd /tmp && git clone ./repo": "wrote",
    "cd /tmp; echo x > notes.txt": "wrote",
    "bash -c 'echo x > /tmp/x'": "wrote",
    "python3 -c \"open('/tmp/x', 'w').write('x')\"": "wrote",
    "$TOOL /tmp/x": "wrote",
    "echo x > /tmp/x; if": "wrote",
  };
  const answers = Object.fromEntries(
    Object.keys(cases).map((command) => [command, temporaryUse(command, ["/tmp/repo"])]),
  );
  expect(answers).toEqual(cases);
});
