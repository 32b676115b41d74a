import { describe, expect, test } from "vitest";
import { parseRules } from "../../src/permissions/permission-decision.js";
import { analyseShellCommand } from "../../src/permissions/shell-commands.js";
import { bashDecisions, type Decision } from "./bash-decision.js";

/**
 * What the shell does before a program runs, which the command's words do not show (the
 * session-16 trial's findings 3, 15 and 20): variables that make a program run another, bash's
 * tables from a name to a program, and brace expansions and globs that build options. Under
 * `--allow-all-tools --deny-tool 'bash(touch *)'` each is denied when its text names touch and
 * asked about ("cannot be fully read") when it does not; what stays readable is allowed.
 */
const decide = bashDecisions("hidden-programs");
const denyTouch = { allowAllTools: true, deny: parseRules(["bash(touch *)"]) };

describe("environment variables that run programs (trial finding 3)", () => {
  test.each<[string, Decision]>([
    // The trial's spellings: as a prefix, through env, exported.
    [`GIT_SSH_COMMAND="touch m;false" git ls-remote ssh://h/x`, "denied"],
    [`LESSOPEN="|touch m; cat %s" less a.txt`, "denied"],
    [`BASH_ENV=./x.sh bash -c true`, "asked"],
    [`env -i BASH_ENV=./x.sh bash -c true`, "asked"],
    [`GIT_EXTERNAL_DIFF="touch x" git diff HEAD~1`, "denied"],
    [`GIT_EDITOR=./x.sh git commit --allow-empty`, "asked"],
    [`PG="touch m3" git --config-env=core.fsmonitor=PG status`, "denied"],
    [`export PG="touch m6"; git --config-env=core.fsmonitor=PG status`, "denied"],
    [`git --config-env core.fsmonitor=PG status`, "asked"],
    [`GIT_CONFIG_PARAMETERS="'core.fsmonitor'='./x.sh'" git status`, "asked"],
    [`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=./x.sh git log`, "asked"],
    // Other spellings and other variables of the kind.
    [`export GIT_SSH_COMMAND=./x.sh; git fetch`, "asked"],
    [`declare -x EDITOR=./x.sh; git commit`, "asked"],
    [`export "VISUAL=./x.sh"; git commit`, "asked"],
    [`PAGER=./x.sh man ls`, "asked"],
    [`MANPAGER=./x.sh man ls`, "asked"],
    [`GIT_PAGER=./x.sh git log`, "asked"],
    [`sudo GIT_ASKPASS=./x.sh git push`, "asked"],
    [`SSH_ASKPASS=./x.sh ssh-add`, "asked"],
    [`GIT_PROXY_COMMAND=./x.sh git fetch git://h/x`, "asked"],
    [`LD_PRELOAD=./x.so ls`, "asked"],
    [`LD_LIBRARY_PATH=. ls`, "asked"],
    [`ENV=./x.sh sh -ic true`, "asked"],
    [`NODE_OPTIONS="--require ./x.js" node -v`, "asked"],
    [`PERL5OPT=-Mx perl -v`, "asked"],
    [`RUBYOPT=-rx ruby -v`, "asked"],
    [`PYTHONSTARTUP=./x.py python3`, "asked"],
    [`TAR_OPTIONS=--to-command=./x.sh tar xf t.tar`, "asked"],
    [`RSYNC_RSH=./x.sh rsync a h:b`, "asked"],
    [`PATH=.:$PATH ls`, "asked"],
    [`HOME=./h git status`, "asked"],
    [`XDG_CONFIG_HOME=./c git status`, "asked"],
    [`PS4='$(./x.sh)' bash -xc true`, "asked"],
    [`for EDITOR in ./x.sh; do git commit; done`, "asked"],
    [`read -r GIT_SSH_COMMAND < f; git fetch`, "asked"],
    [`printf -v EDITOR %s ./x.sh; git commit`, "asked"],
    [`GIT_SSH_COMMAND=$X git fetch`, "asked"],
    [`export "$NAME"=./x.sh; git fetch`, "asked"],
    [`declare -n ref=EDITOR; ref=./x.sh; git commit`, "asked"],
    [`env 'BASH_FUNC_ls%%=() { ./x.sh; }' bash -c ls`, "asked"],
  ])("%j is %s", async (command, expected) => {
    expect(await decide(command, denyTouch)).toBe(expected);
  });

  test.each([
    `NODE_ENV=test npm test`,
    `LC_ALL=C DEBUG=1 git status`,
    `GIT_AUTHOR_NAME=x git log`,
    `read -r line < f; echo "$line"`,
    `export count=1; echo $count`,
  ])("a variable that does not change what runs stays readable: %j is allowed", async (command) => {
    expect(await decide(command, denyTouch)).toBe("allowed");
  });
});

describe("bash's tables from a command name to a program (trial finding 15)", () => {
  const denyTouchAndRm = { allowAllTools: true, deny: parseRules(["bash(touch *)", "bash(rm *)"]) };
  test.each<[string, Decision]>([
    [`hash -p /usr/bin/touch ls; ls m24`, "denied"],
    [`hash -p /usr/bin/rm x; x -f zzz`, "denied"],
    [`hash -t -p ./x.sh ls; ls`, "asked"],
    [`hash -rp ./x.sh ls; ls`, "asked"],
    [`BASH_CMDS[tt]=/usr/bin/touch; tt m22`, "denied"],
    [`BASH_CMDS[ls]=./x.sh; ls`, "asked"],
    [`BASH_ALIASES[t]=./x.sh; shopt -s expand_aliases; eval "t m23"`, "asked"],
    [`BASH_CMDS+=([ls]=./x.sh); ls`, "asked"],
    [`declare -A BASH_CMDS=([ls]=./x.sh); ls`, "asked"],
    [`declare BASH_ALIASES[ls]=./x.sh; ls`, "asked"],
    [`read -a BASH_CMDS <<< ./x.sh; 0`, "asked"],
    [`printf -v 'BASH_CMDS[ls]' %s ./x.sh; ls`, "asked"],
    [`mapfile -t BASH_ALIASES < f; ls`, "asked"],
    [`mapfile -C ./x.sh -c 1 lines < f`, "asked"],
    [`enable -f ./x.so ls; ls`, "asked"],
  ])("%j is %s", async (command, expected) => {
    expect(await decide(command, denyTouchAndRm)).toBe(expected);
  });

  test("`hash` without -p changes nothing: allowed", async () => {
    expect(await decide(`hash ls; hash -r`, denyTouchAndRm)).toBe("allowed");
  });
});

describe("brace expansions and globs that build options (trial finding 20)", () => {
  test.each<[string, Decision]>([
    // The brace is expanded as bash expands it, and the words it makes are read.
    [`git {-c,core.fsmonitor="touch m90"} status`, "denied"],
    [`git {-c,core.fsmonitor=./x.sh} status`, "asked"],
    [`tar xf t.tar --{to-command=./x.sh,}`, "asked"],
    [`git {-c,core.pager=./x.sh} log -1`, "asked"],
    [`find . -maxdepth 0 {-exec,touch,m91,\\;}`, "denied"],
    // A glob that can expand to an option-named file cannot be read.
    [`git log -1 --outpu*`, "asked"],
    [`git log -1 -?`, "asked"],
    [`git log -1 ?-output=m60`, "asked"],
    [`git log -1 *output=m60`, "asked"],
    [`tar cf a.tar *`, "asked"],
    [`git log [-]-output=m`, "asked"],
  ])("%j is %s", async (command, expected) => {
    expect(await decide(command, denyTouch)).toBe(expected);
  });

  test.each<[string, Decision]>([
    // A brace-built command name was caught before; now its words are read.
    [`{touch,m70}`, "denied"],
    [`sudo {touch,m71}`, "denied"],
    [`{ls,x}; {to,}uch m72`, "denied"],
    // Ordinary globs and braces stay readable.
    [`git {log,--oneline}`, "allowed"],
    [`rm -f *.o`, "allowed"],
    [`ls src/*.ts`, "allowed"],
    [`cat test_*`, "allowed"],
    [`mkdir -p src/{a,b}`, "allowed"],
    [`echo {1..3} {a..c}`, "allowed"],
    [`echo '{-c,x}' "--outpu*"`, "allowed"],
  ])("as before: %j is %s", async (command, expected) => {
    expect(await decide(command, denyTouch)).toBe(expected);
  });

  test("the expanded words are what allow rules and file writes see", async () => {
    const allowLog = { allow: parseRules(["bash(git log *)", "bash(sort *)", "bash(wc *)"]) };
    expect(await decide(`git log -1 --{output=m58,oneline}`, allowLog)).toBe("asked");
    expect(await decide(`sort -S 64k --{compress-program=./x.sh,} a | wc -l`, allowLog)).toBe(
      "asked",
    );
    expect(await decide(`git log -1 --{stat,oneline}`, allowLog)).toBe("allowed");
    expect(analyseShellCommand(`git log -1 --{output=m58,oneline}`).commands[0]?.forms).toEqual([
      "git log -1 --output=m58 --oneline",
    ]);
    expect(analyseShellCommand(`echo x{-{1..2},}y a{,}`).commands[0]?.words).toEqual([
      "echo",
      "x-1y",
      "x-2y",
      "xy",
      "a",
      "a",
    ]);
    expect(analyseShellCommand(`echo {a..z}{a..z}`).unclear).toEqual([
      "a brace expansion of more than 256 words ({a..z}{a..z})",
    ]);
  });
});
