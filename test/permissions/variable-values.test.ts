import { describe, expect, test } from "vitest";
import { parseRules } from "../../src/permissions/permission-decision.js";
import { analyseShellCommand } from "../../src/permissions/shell-commands.js";
import { bashDecisions, type Decision } from "./bash-decision.js";

/**
 * What a variable's value can do that a command's words do not show (the session-17 trial,
 * findings 1 to 4): be an option or a subcommand (`o=--output=x; git log "$o"`), be evaluated
 * as arithmetic, which runs the command substitutions of a subscript in it (`[[ $x -eq 0 ]]`
 * with `x='a[$(touch m)]'`), be a name with such a subscript (`read 'a[$(touch m)]'`), or run as
 * an editor or a command taken from the history (`FCEDIT`, `history -r`). Each is read as "cannot
 * be fully read": a deny rule whose program the text names applies, an allow rule does not cover
 * it, and `--allow-all-tools` asks.
 */
const decide = bashDecisions("variable-values");
const denyTouch = { allowAllTools: true, deny: parseRules(["bash(touch *)"]) };
const denyPush = { allowAllTools: true, deny: parseRules(["bash(git push *)"]) };

describe("an option, a git setting or a subcommand held in a variable (finding 1)", () => {
  test.each<[string, Decision]>([
    // The trial's spelling, and each other way of setting the variable.
    [`o=alias.st=push; git -c "$o" st origin`, "denied"],
    [`for o in alias.st=push; do git -c "$o" st origin; done`, "denied"],
    [`read o < f; git -c "$o" st origin`, "denied"],
    [`printf -v o %s alias.st=push; git -c "$o" st origin`, "denied"],
    [`declare o=alias.st=push; git -c "$o" st origin`, "denied"],
    [`mapfile -t o < f; git -c "$o" st origin`, "denied"],
    [`getopts a o; git -c "$o" st origin`, "denied"],
    [`select o in alias.st=push; do git -c "$o" st origin; done`, "denied"],
    [`set -- push; git "$1" origin`, "denied"],
    [`f() { git "$@" origin; }; f push`, "denied"],
    [`git $(echo push) origin`, "denied"],
    [`git -C "$d" push origin`, "denied"],
    [`git --config-env="$k" st`, "denied"],
  ])("%j is %s under --deny-tool 'bash(git push *)'", async (command, expected) => {
    expect(await decide(command, denyPush)).toBe(expected);
  });

  test.each<[string, Decision]>([
    // A deny rule naming an option matches a computed word that may be that option.
    [`o=-rf; rm $o x`, "denied"],
    [`rm "$@"`, "denied"],
    [`rm -- "$f"`, "allowed"],
    [`rm x"$f"`, "allowed"],
  ])("%j is %s under --deny-tool 'bash(rm -rf *)'", async (command, expected) => {
    const denyForce = { allowAllTools: true, deny: parseRules(["bash(rm -rf *)"]) };
    expect(await decide(command, denyForce)).toBe(expected);
  });

  test.each([
    `for o in --output=x; do git log "$o"; done`,
    `git log "$1"`,
    `git log $@`,
    `git log -1 a$o`,
    `git log -$o`,
    `git -C "$d" log`,
    `git -c "core.$k=./x.sh" log`,
    `sort "$o" a`,
    `sed "$s" f`,
    `curl "$u"`,
    `find "$d" -name x`,
    `find . -name x "$o" ./x.sh`,
    `tar "$o" tf a.tar`,
    `printf "$f" x`,
    `[ "$a" "$b" ]`,
  ])("%j is not covered by an allow rule for its program, and is asked about", async (command) => {
    const program = command.split(" ")[0] ?? "";
    const allow = { allow: parseRules([`bash(${program} *)`, "bash(git log *)"]) };
    expect(await decide(command, allow)).toBe("asked");
    expect(await decide(command, denyTouch)).toBe("asked");
  });

  test.each([
    `cat "$f"`,
    `echo "$x" $y`,
    `ls "$d"`,
    `grep -n "$pattern" src/a.ts`,
    `head -n "$n" f`,
    `cd "$d" && mkdir -p "$d/x"`,
    `git commit -m "$message"`,
    `git checkout "$branch"`,
    `git log -- "$f"`,
    `git log --format="$format" -1`,
    `find . -name "$n" -type f`,
    `printf '%s\\n' "$x"`,
    `[ -n "$x" ] && test "$a" = "$b"`,
    `exit "$status"`,
    `getopts "$spec" option; umask "$mask"`,
  ])("a program with no such option stays readable: %j is allowed", async (command) => {
    expect(await decide(command, denyTouch)).toBe("allowed");
  });
});

describe("arithmetic on a variable's text (finding 2)", () => {
  test.each([
    `[[ $x -eq 0 ]]`,
    `[[ $x -ne 0 ]]`,
    `[[ x -lt 1 ]]`,
    `[[ 1 -le $x ]]`,
    `[[ "$1" -gt 0 ]]`,
    `[[ $x -ge 0 ]]`,
    `declare -i n; n=$x`,
    `declare -i n=$x`,
    `f() { local -i n; n=$1; }`,
    `typeset -ai n; n+=(x)`,
    `declare -i n; read -r n < f`,
    `declare -i n; for n in "$@"; do :; done`,
    `b[x]=1`,
    `b[$x]=1`,
    `b=([$x]=1)`,
    `for ((i=x; i<3; i++)); do :; done`,
    `(( x ))`,
    `let x`,
    `echo $(( x ))`,
    `echo \${a[x]}`,
    `echo \${s:x}`,
  ])("%j is asked about", async (command) => {
    expect(await decide(command, denyTouch)).toBe("asked");
  });

  test.each([
    `[ "$x" -eq 0 ]`,
    `test "$x" -lt 1`,
    `[[ $? -ne 0 ]]`,
    `[[ $# -gt 1 ]]`,
    `[[ $x == y ]]`,
    `printf %d "$x"`,
    `b[1]=x`,
    `declare -A h; h[$k]=1`,
    `declare -i n=5; n=6`,
  ])("no arithmetic on a variable: %j is allowed", async (command) => {
    expect(await decide(command, denyTouch)).toBe("allowed");
  });
});

describe("a name with a subscript bash evaluates, and builtins that run commands (finding 3)", () => {
  test.each<[string, Decision]>([
    [`printf -v 'a[$(touch m)]' x`, "denied"],
    [`read 'a[$(touch m)]' < f`, "denied"],
    [`read -a 'a[$(touch m)]' < f`, "denied"],
    [`declare 'a[$(touch m)]=1'`, "denied"],
    [`test -v 'a[$(touch m)]'`, "denied"],
    [`[ -v 'a[$(touch m)]' ]`, "denied"],
    [`[[ -v a[$(touch m)] ]]`, "denied"],
    [`[[ -v 'a[$(touch m)]' ]]`, "denied"],
    [`unset 'a[$(touch m)]'`, "denied"],
    [`unset -v 'a[$(touch m)]'`, "denied"],
    [`export 'a[$(touch m)]'`, "denied"],
    [`f() { local 'a[$(touch m)]'; }`, "denied"],
    [`readonly 'a[$(touch m)]'`, "denied"],
    [`mapfile 'a[$(touch m)]' < f`, "denied"],
    [`getopts ab 'a[$(touch m)]'`, "denied"],
    [`wait -p 'a[$(touch m)]'`, "denied"],
    [`read 'a[i]' < f`, "asked"],
    [`x='a[$(./x.sh)]'; unset "$x"`, "asked"],
    [`test -v "$x"`, "asked"],
    [`[[ -v $x ]]`, "asked"],
    [`[ "$o" "$x" ]`, "asked"],
    [`compgen -C 'touch m' x`, "denied"],
    [`complete -C 'touch m' x`, "denied"],
    [`compgen -F touch x`, "denied"],
    [`compgen -W '$(touch m)' x`, "denied"],
    [`compgen -C "$c" x`, "asked"],
    [`compgen -W 'a b' x`, "allowed"],
    [`read -r 'a[1]' < f; unset x`, "allowed"],
  ])("%j is %s", async (command, expected) => {
    expect(await decide(command, denyTouch)).toBe(expected);
  });
});

describe("variables and history that run programs (finding 4)", () => {
  test.each<[string, Decision]>([
    [`export FCEDIT=./x.sh`, "asked"],
    [`FCEDIT=./x.sh fc -1`, "asked"],
    [`export TEXEDIT='touch m'`, "denied"],
    [`export VIMINIT=':!touch m'`, "denied"],
    [`HISTFILE=./h bash -ic true`, "asked"],
    [`export ZDOTDIR=./z`, "asked"],
    [`export SUDO_EDITOR=./x.sh GIT_SEQUENCE_EDITOR=./x.sh`, "asked"],
    [`history -r ./h; fc -s`, "asked"],
    [`history -r ./h`, "asked"],
    [`history -s ./x.sh`, "asked"],
    ["set -o history -H\nhistory -s ./x.sh\n!!", "asked"],
    [`set -o histexpand`, "asked"],
    [`shopt -o -s histexpand`, "asked"],
    [`history`, "allowed"],
  ])("%j is %s", async (command, expected) => {
    expect(await decide(command, denyTouch)).toBe(expected);
  });

  test("the reasons say what bash does with the value", () => {
    expect(analyseShellCommand(`git -c "$o" st`).unclear).toEqual([
      "git $o: a computed option, setting or subcommand of git",
    ]);
    expect(analyseShellCommand(`[[ $x -eq 0 ]]; b[$i]=1`).unclear).toEqual([
      "arithmetic on variables ($x -eq 0)",
      "a subscript bash evaluates as arithmetic (b[$i]=1)",
    ]);
  });
});

describe("the words xargs adds, and the other spellings of the same findings", () => {
  test.each<[string, Decision]>([
    [`echo -o m | xargs sort`, "asked"],
    [`xargs git push < f`, "denied"],
    [`xargs -I{} sed {} f < f`, "asked"],
    [`find . -name '*.ts' | xargs wc -l`, "allowed"],
    [`compgen -C'touch m' x`, "denied"],
    [`complete -o default -F touch x`, "denied"],
    ["bash -H -c 'history -s ./x.sh\n!!'", "asked"],
    [`bash -o histexpand -c true`, "asked"],
  ])("%j is %s", async (command, expected) => {
    const rules = { allowAllTools: true, deny: parseRules(["bash(touch *)", "bash(git push *)"]) };
    expect(await decide(command, rules)).toBe(expected);
  });

  test("a deny rule naming an option matches the words xargs adds", async () => {
    const denyForce = { allowAllTools: true, deny: parseRules(["bash(rm -rf *)"]) };
    expect(await decide(`echo -rf x | xargs rm`, denyForce)).toBe("denied");
  });
});
