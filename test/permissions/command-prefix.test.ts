import { describe, expect, test } from "vitest";
import { commandPrefix } from "../../src/permissions/command-prefix.js";

describe("the command prefix an 'always' answer may grant", () => {
  test.each<[string, string | undefined, string[]]>([
    // The command and its subcommand-like words, up to the first path, flag or quoted value.
    ["npx tape test/a.js", "npx tape *", []],
    ["npx tape 'test/*.js' | tail -5", "npx tape *", ["tail -5"]],
    ["git commit -m 'fix the parser'", "git commit *", []],
    ["git status", "git status *", []],
    ["npm run build", "npm run build *", []],
    ["npm run test:unit -- --watch", "npm run test:unit *", []],
    ["docker compose up -d", "docker compose up *", []],
    // At most two words after the name.
    ["docker compose run web bash", "docker compose run *", []],
    ["rm -rf build", "rm *", []],
    ["ls", "ls *", []],
    ["/usr/bin/git log --oneline", "git log *", []],
    ["node script.js", "node *", []],
    ["make CC=gcc all", "make *", []],
    ['echo "hello"', "echo *", []],
    ["cat $HOME", "cat *", []],
    ["ls *.ts", "ls *", []],
    // Every other part of a compound command keeps asking unless the prefix covers it.
    ["npm test && rm -rf dist", "npm test *", ["rm -rf dist"]],
    ["npx tape a.js; npx tape b.js", "npx tape *", []],
    ["cd src && git status", "cd src *", ["git status"]],
    ["cd ../lib && npm test", "cd *", ["npm test"]],
    // None for a wrapper (rules match what finally runs) or what cannot be fully read.
    ["sudo rm -rf x", undefined, []],
    ["timeout 5 npm test", undefined, []],
    // Nor for any other program that runs its arguments as a command (trial finding 17): its
    // prefix (`watch *`, `flock *`) would allow every command.
    ["watch -g -n1 git status", undefined, []],
    ["flock /tmp/lk git status", undefined, []],
    ["flock /tmp/lk -c 'git status'", undefined, []],
    ["taskset -c 0 npm test", undefined, []],
    ["uv run pytest", undefined, []],
    ["ssh host git status", undefined, []],
    ["su -c 'npm test'", undefined, []],
    ["sudo bash -c 'npm test'", undefined, []],
    // Nor for a wrapper called without a command, whose prefix would cover any command later.
    ["watch", undefined, []],
    ["flock", undefined, []],
    ["sudo -u", undefined, []],
    ["nice -n", undefined, []],
    // Nor for one whose options write a file or run a program (trial finding 4).
    ["git log --output=/tmp/x -1", undefined, []],
    ["git log --oneline -n 1", "git log *", []],
    ["sort -o out.txt in.txt", undefined, []],
    ["sort --compress-program=bash in.txt", undefined, []],
    ["find . -fprint out.txt", undefined, []],
    ["tee out.txt", undefined, []],
    ["sed -i s/a/b/ f.txt", undefined, []],
    ["tar xf a.tar --to-command=cat", undefined, []],
    ["$tool run", undefined, []],
    ['eval "$x"', undefined, []],
    ["'npx' tape x", undefined, []],
    ["echo (", undefined, []],
    ["npx tape x > out.txt", undefined, []],
    ["npx tape test/a.js 2>/dev/null", "npx tape *", []],
    // None for a command that sets variables: the prefix would not cover it (trial finding 19).
    ["GIT_DIR=x git status", undefined, []],
    ["LC_ALL=C git status", "git status *", []],
    ["npm test && export A=1", "npm test *", ["export A=1"]],
  ])("%s → %s", (command, pattern, notCovered) => {
    expect(commandPrefix(command)).toEqual(
      pattern === undefined ? undefined : { pattern, notCovered },
    );
  });

  test("bash -c 'script' is judged by the script it runs", () => {
    expect(commandPrefix("bash -c 'npm test'")).toEqual({ pattern: "npm test *", notCovered: [] });
  });
});
