import { describe, expect, test } from "vitest";
import { parseRules } from "../../src/permissions/permission-decision.js";
import { analyseShellCommand } from "../../src/permissions/shell-commands.js";
import { bashDecisions, type Decision, denyRm } from "./bash-decision.js";

const decide = bashDecisions("program-options");

describe("git subcommands' options that run a program, as parse-options reads them (session-16 trial, 1 and 2)", () => {
  test.each<[string, Decision]>([
    // Short forms, bundled short options, a value joined to its letter.
    [`git clone -q -u "rm -f x; git-upload-pack" /src c1`, "denied"],
    [`git clone -qu"rm -f x" /src c1`, "denied"],
    [`git difftool -y -x "rm -f x" HEAD~1`, "denied"],
    [`git grep -O"rm -f x" hello`, "denied"],
    [`git grep -nO 'rm -f' hello`, "denied"],
    [`git rebase -ix 'rm x' main`, "denied"],
    // Long forms and any start of their names.
    [`git clone --upload-pac="rm -f x" /src c2`, "denied"],
    [`git clone --u="rm -f x" /src c2`, "denied"],
    [`git fetch -q --upload-pac="rm -f x" /src`, "denied"],
    [`git pull --upload-pack "rm x" origin`, "denied"],
    [`git ls-remote --upload-pack='rm x' /src`, "denied"],
    [`git push --receive-pack='rm x' origin`, "denied"],
    [`git push --exec='rm x' origin`, "denied"],
    [`git archive --remote=/src --exec='rm x' HEAD`, "denied"],
    [`git difftool --extcmd='rm x' HEAD`, "denied"],
    [`git difftool --ext='rm x' HEAD`, "denied"],
    [`git grep --open-files-in-pager='rm x' hello`, "denied"],
    [`git rebase --exe='rm x' main`, "denied"],
    [`git send-email --sendmail-cmd='rm x' a.patch`, "denied"],
    [`git send-email --smtp-server='rm' a.patch`, "denied"],
    [`git -C sub submodule foreach 'rm x'`, "denied"],
    [`git bisect run rm x`, "denied"],
    [`git filter-branch --tree-filter 'rm x' HEAD`, "denied"],
    // A clone's settings (`-c`, `--config`) and `git config` of a key that runs a program.
    [`git clone --config=core.fsmonitor="rm -f x" /src c4`, "denied"],
    [`git clone --conf core.pager='rm x' /src c4`, "denied"],
    [`git clone -ccore.sshCommand='rm x' /src c4`, "denied"],
    [`git config core.fsmonitor 'rm x'`, "denied"],
    [`git config --global alias.x '!rm x'`, "denied"],
    [`git clone --template=hooks /src c5`, "asked"],
    // The read-only and harmless spellings stay allowed.
    [`git clone -q -b main /src c6`, "allowed"],
    [`git fetch --update-head-ok origin`, "allowed"],
    [`git grep -e O -n hello`, "allowed"],
    [`git config user.name someone`, "allowed"],
    [`git config --get core.editor`, "allowed"],
    [`git rebase -i main`, "allowed"],
  ])("%j is %s under --deny-tool 'bash(rm *)'", async (command, expected) => {
    expect(await decide(command, denyRm)).toBe(expected);
  });

  test.each<[string, string, Decision]>([
    ["bash(git clone *)", `git clone -q -u "touch m40; git-upload-pack" /src c1`, "asked"],
    ["bash(git clone *)", `git clone -q --upload-pac="touch m41" /src c2`, "asked"],
    ["bash(git clone *)", `git clone -q --config=core.fsmonitor="touch m43" /src c4`, "asked"],
    ["bash(git difftool *)", `git difftool -y -x "touch m3" HEAD~1`, "asked"],
    ["bash(git grep *)", `git grep -Otouch hello`, "asked"],
    ["bash(git config *)", `git config core.hooksPath hooks`, "asked"],
    ["bash(git clone *)", `git clone https://example.invalid/x.git`, "allowed"],
    ["bash(git config *)", `git config user.email a@b`, "allowed"],
  ])("%s: %j is %s", async (rule, command, expected) => {
    expect(await decide(command, { allow: parseRules([rule]) })).toBe(expected);
  });
});

describe("package runners run the command after them (session-16 trial, 2)", () => {
  test.each<[string, Decision]>([
    [`npx rm -f x`, "denied"],
    [`npx -y rm -f x`, "denied"],
    [`npx --package=cowsay rm x`, "denied"],
    [`npx -c 'rm x'`, "denied"],
    [`npm exec -- rm -f x`, "denied"],
    [`npm x -- rm x`, "denied"],
    [`npm exec --call 'rm x'`, "denied"],
    [`npm --yes exec rm x`, "denied"],
    [`pnpm dlx rm x`, "denied"],
    [`yarn dlx rm x`, "denied"],
    [`bunx rm x`, "denied"],
    [`bun x rm x`, "denied"],
    [`uvx rm x`, "denied"],
    [`uvx --from ruff rm x`, "denied"],
    [`uv tool run rm x`, "denied"],
    [`pipx run rm x`, "denied"],
    [`npx sudo rm x`, "denied"],
    [`npx bash -c 'rm x'`, "denied"],
    [`npx tar xf a.tar --to-command='rm x'`, "denied"],
    // An option the runner's help does not list: not guessed.
    [`npx --bogus x`, "asked"],
    // Other programs' options that run a program.
    [`zip -T -TT "rm -f x" z.zip a.txt`, "denied"],
    [`zip z.zip a.txt --unzip-command "rm x"`, "denied"],
    [`make -f /dev/null --eval "all: ; rm -f x"`, "denied"],
    [`make -E 'all: ; rm x'`, "denied"],
    [`make CC='rm -f' x.o`, "denied"],
    // Their ordinary calls stay allowed.
    [`npx tape test/a.js`, "allowed"],
    [`npm exec -- eslint --fix`, "allowed"],
    [`make CC=gcc all`, "allowed"],
    [`zip -r z.zip src`, "allowed"],
  ])("%j is %s under --deny-tool 'bash(rm *)'", async (command, expected) => {
    expect(await decide(command, denyRm)).toBe(expected);
  });

  test.each<[string, string, Decision]>([
    // The runner's call is what allow rules judge: `bash(npx tape *)` is tape through npx.
    ["bash(npx tape *)", `npx tape test/a.js`, "allowed"],
    ["bash(npx tape *)", `npx rm x`, "asked"],
    ["bash(npm exec -- eslint *)", `npm exec -- eslint --fix .`, "allowed"],
    ["bash(npm exec -- eslint *)", `npm exec -- rm x`, "asked"],
    ["bash(rm *)", `npx rm x`, "asked"],
    // What it runs still has to be readable and write nothing.
    ["bash(npx tape *)", `npx tape x --output=out.txt`, "asked"],
  ])("%s: %j is %s", async (rule, command, expected) => {
    expect(await decide(command, { allow: parseRules([rule]) })).toBe(expected);
  });
});

describe("options and operands that write files, and writers with read-only spellings (session-16 trial, 6)", () => {
  const allow = parseRules(
    [
      "git archive *",
      "git format-patch *",
      "git bundle *",
      "git config *",
      "git apply *",
      "shuf *",
      "iconv *",
      "openssl *",
      "patch *",
      "xxd *",
      "split *",
      "csplit *",
      "tar *",
      "unzip *",
      "gzip *",
      "gunzip *",
      "xz *",
    ].map((pattern) => `bash(${pattern})`),
  );
  test.each<[string, Decision]>([
    [`git archive -o o9.tar HEAD`, "asked"],
    [`git archive --output=o9.tar HEAD`, "asked"],
    [`git archive --out=o9.tar HEAD`, "asked"],
    [`git format-patch -1 -o o11`, "asked"],
    [`git format-patch -1`, "asked"],
    [`git bundle create o12 HEAD`, "asked"],
    [`git config --file=o16 a.b c`, "asked"],
    [`git config -f o16 a.b c`, "asked"],
    [`git apply fix.patch`, "asked"],
    [`shuf -o f29 a.txt`, "asked"],
    [`shuf --out=f30 a.txt`, "asked"],
    [`iconv -f utf-8 -t ascii -o f34 a.txt`, "asked"],
    [`iconv --output=f35 a.txt`, "asked"],
    [`openssl enc -base64 -in a.txt -out f32`, "asked"],
    [`patch -o f36 a.txt fix.patch`, "asked"],
    [`patch -p1 -i fix.patch`, "asked"],
    [`xxd a.txt f31`, "asked"],
    [`split -l1 a.txt f27`, "asked"],
    [`csplit a.txt 2`, "asked"],
    [`tar xf a.tar -C /tmp/elsewhere`, "asked"],
    [`tar -czf out.tgz src`, "asked"],
    [`tar --extract -f a.tar`, "asked"],
    [`tar rf a.tar b.txt`, "asked"],
    [`unzip a.zip`, "asked"],
    [`gzip a.txt`, "asked"],
    [`gunzip a.txt.gz`, "asked"],
    [`xz -d a.xz`, "asked"],
    // The read-only spellings.
    [`git archive HEAD`, "allowed"],
    [`git format-patch -1 --stdout`, "allowed"],
    [`git config -f o16 --get a.b`, "allowed"],
    [`git apply --check fix.patch`, "allowed"],
    [`shuf a.txt`, "allowed"],
    [`openssl x509 -in cert.pem -noout -text`, "allowed"],
    [`patch --dry-run -p1 -i fix.patch`, "allowed"],
    [`xxd a.txt`, "allowed"],
    [`tar tf a.tar`, "allowed"],
    [`tar cf - src`, "allowed"],
    [`tar xOf a.tar b.txt`, "allowed"],
    [`unzip -l a.zip`, "allowed"],
    [`gzip -dc a.gz`, "allowed"],
    [`gzip -l a.gz`, "allowed"],
  ])("%j is %s", async (command, expected) => {
    expect(await decide(command, { allow })).toBe(expected);
  });

  test("analyseShellCommand names the option that runs a program", () => {
    expect(analyseShellCommand("git clone -u 'touch m' /src").unclear).toEqual([
      "git clone -u runs a program",
    ]);
    expect(analyseShellCommand("git clone -c core.pager=less /src").unclear).toEqual([
      "git -c core.pager=less runs a program",
    ]);
    expect(analyseShellCommand("npx --bogus x").unclear).toEqual([
      "npx: option --bogus is not understood",
    ]);
  });
});
