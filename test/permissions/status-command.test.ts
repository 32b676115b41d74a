import { expect, it } from "vitest";
import { statusProgram } from "../../src/permissions/status-command.js";

// Which program's exit status `bash -c command` returns, for the sandbox's network hint: an
// exit code of curl's is evidence only when curl returned it.
it("names the program whose status the shell returns, or nothing when the text does not tell", () => {
  const cases: Record<string, string | undefined> = {
    "curl -s http://x/": "curl",
    "/usr/bin/curl -s http://x/": "curl",
    "env FOO=1 curl x": "curl",
    "command curl x": "curl",
    "sudo -u me timeout 5 nice curl x": "curl",
    "cd . && curl x": "curl",
    "true || wget -q x": "wget",
    "{ echo a; curl x; }": "curl",
    "(cd sub; curl x)": "curl",
    "time curl x": "curl",
    "X=1 curl x > out.txt": "curl",
    'echo "see the curl docs"; exit 6': "exit",
    "curl --version >/dev/null; exit 7": "exit",
    "make curl; exit 5": "exit",
    "curl x | cat": "cat",
    "curl x && echo ok": "echo",
    "set -o pipefail; curl x | cat": undefined,
    "! curl x": undefined,
    "curl x &": undefined,
    "if true; then curl x; fi": undefined,
    "xargs curl < urls": undefined,
    "bash -c 'curl x'": "bash",
    "$CLIENT x": undefined,
    "curl 'unclosed": undefined,
  };
  const answers = Object.fromEntries(
    Object.keys(cases).map((command) => [command, statusProgram(command)]),
  );
  expect(answers).toEqual(cases);
});
