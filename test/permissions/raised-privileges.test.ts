import { describe, expect, test } from "vitest";
import { parseRules } from "../../src/permissions/permission-decision.js";
import { bashDecisions, type Decision } from "./bash-decision.js";

// An allow rule for what a wrapper finally runs covered it when the wrapper ran it as another
// user (`bash(rm x)` let `sudo rm x` run without asking). Claude Code and Codex match allow rules
// on the command as written: such a wrapper is covered only by a rule that names it
// (src/permissions/shell-wrappers.ts IDENTITY_WRAPPERS). Deny rules still judge what finally runs.

const decide = bashDecisions("raised-privileges");

describe("an allow rule for what finally runs does not cover a wrapper that runs it as another user", () => {
  test.each<[rule: string, command: string, expected: Decision]>([
    ["bash(rm x)", "sudo rm x", "asked"],
    ["bash(rm x)", "sudo-rs rm x", "asked"],
    ["bash(rm x)", "sudo -u bob rm x", "asked"],
    ["bash(rm x)", "/usr/bin/sudo rm x", "asked"],
    ["bash(rm x)", "doas rm x", "asked"],
    ["bash(rm x)", "pkexec rm x", "asked"],
    ["bash(rm x)", "runuser -u root rm x", "asked"],
    ["bash(rm x)", "chroot / rm x", "asked"],
    ["bash(rm x)", "unshare -r rm x", "asked"],
    ["bash(rm x)", "nsenter -t 1 -m rm x", "asked"],
    ["bash(rm x)", "gosu root rm x", "asked"],
    ["bash(rm x)", "nice sudo rm x", "asked"],
    ["bash(rm x)", "sudo nice rm x", "asked"],
    ["bash(rm x)", "su -c 'rm x'", "asked"],
    ["bash(rm x)", "sudo bash -c 'rm x'", "asked"],
    ["bash(rm x)", "sg wheel 'rm x'", "asked"],
    ["bash(rm x)", "run0 rm x", "asked"],
    ["bash(rm x)", "setpriv --reuid=0 rm x", "asked"],
    ["bash(rm x)", "capsh -- -c 'rm x'", "asked"],
    ["bash(ls) | bash(git status)", "ls && sudo git status", "asked"],
    ["bash(ls) | bash(git status)", "ls && git status", "allowed"],
    // A rule that names the wrapper covers it.
    ["bash(sudo rm x)", "sudo rm x", "allowed"],
    ["bash(sudo *)", "sudo rm x", "allowed"],
    ["bash(sudo *)", "sudo -u bob nice rm x", "allowed"],
    ["bash(sudo rm x)", "nice sudo rm x", "allowed"],
    ["bash(doas *)", "doas -u root rm x", "allowed"],
    ["bash(chroot / *)", "chroot / rm x", "allowed"],
    ["bash(sudo *)", "doas rm x", "asked"],
    ["bash(sudo rm x)", "sudo rm y", "asked"],
    // Ordinary wrappers keep the rule for what they run.
    ["bash(rm x)", "nice rm x", "allowed"],
    ["bash(rm x)", "env A=1 rm x", "asked"],
    ["bash(rm x)", "env rm x", "allowed"],
    ["bash(rm x)", "timeout 5 rm x", "allowed"],
    ["bash(rm x)", "time rm x", "allowed"],
    ["bash(rm x)", "stdbuf -oL rm x", "allowed"],
    ["bash(ls) | bash(rm *)", "ls | xargs rm", "allowed"],
    ["bash(find *) | bash(rm {})", "find . -exec rm {} +", "allowed"],
    ["bash(git status)", "flock /tmp/lk git status", "allowed"],
  ])("allow %s: %j is %s", async (rule, command, expected) => {
    expect(await decide(command, { allow: parseRules(rule.split(" | ")) })).toBe(expected);
  });
});

describe("a deny rule for what finally runs still catches it under such a wrapper", () => {
  test.each<[rule: string, command: string, expected: Decision]>([
    ["bash(rm *)", "sudo rm x", "denied"],
    ["bash(rm *)", "sudo-rs rm x", "denied"],
    ["bash(rm *)", "doas rm x", "denied"],
    ["bash(rm *)", "nice sudo -u bob rm x", "denied"],
    ["bash(rm *)", "su -c 'rm x'", "denied"],
    ["bash(rm *)", "sudo bash -c 'rm x'", "denied"],
    ["bash(rm *)", "chroot / rm x", "denied"],
    ["bash(rm *)", "unshare -r rm x", "denied"],
    ["bash(sudo *)", "sudo ls", "denied"],
    ["bash(sudo *)", "nice sudo ls", "denied"],
    // With every tool allowed, a command a deny rule does not touch runs.
    ["bash(rm *)", "sudo ls", "allowed"],
  ])("deny %s: %j is %s", async (rule, command, expected) => {
    expect(await decide(command, { allowAllTools: true, deny: parseRules([rule]) })).toBe(expected);
  });
});
