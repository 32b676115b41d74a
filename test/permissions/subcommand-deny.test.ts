import { describe, expect, test } from "vitest";
import { commandPrefix } from "../../src/permissions/command-prefix.js";
import { parseRules } from "../../src/permissions/permission-decision.js";
import { bashDecisions } from "./bash-decision.js";

/**
 * A deny rule on a subcommand (`bash(git push *)`) against the program's global options before
 * the subcommand (`git -C . push`, `npm --silent install`): the session-17 trial's #25, each
 * pushed or installed under the rule. And the `p` prefix of such a call, which offered the bare
 * program (`git -C . status` → `bash(git *)`, then `git push --force` ran): the trial's #5.
 */
const decide = bashDecisions("subcommand-deny");
const denying = (rule: string) => ({ allowAllTools: true, deny: parseRules([rule]) });

describe("a deny rule on a subcommand, with options before the subcommand", () => {
  test.each([
    ["bash(git push *)", "git -C . push"],
    ["bash(git push *)", "git --no-pager push origin x"],
    ["bash(git push *)", "git -c color.ui=never push --force"],
    ["bash(git push *)", "git -P push"],
    ["bash(git push *)", "git --git-dir=.git --work-tree=. push"],
    ["bash(git reset *)", "git -C . reset --hard HEAD"],
    ["bash(npm publish *)", "npm --loglevel=silent publish --dry-run"],
    ["bash(npm install *)", "npm --silent install left-pad"],
    ["bash(docker run *)", "docker --context default run --rm alpine true"],
    ["bash(cargo publish *)", "cargo +nightly publish"],
    ["bash(kubectl delete *)", "kubectl -n prod delete pod x"],
  ])("%s denies %s", async (rule, command) => {
    expect(await decide(command, denying(rule))).toBe("denied");
  });

  test.each([
    ["bash(git push *)", "git -C . status"],
    ["bash(git push *)", "git --no-pager log --oneline"],
    ["bash(npm install *)", "npm --silent test"],
  ])("%s still lets %s run (another subcommand)", async (rule, command) => {
    expect(await decide(command, denying(rule))).toBe("allowed");
  });
});

describe("the p prefix of a call with options before the subcommand", () => {
  test.each([
    "git -C . status",
    "git --no-pager log",
    "git -c color.ui=never log",
    "npm --prefix . test",
    "cargo +nightly run",
    "docker --context x ps",
    "kubectl -n x get pods",
    "pnpm --filter x test",
    "yarn --cwd x test",
    "make -C dir",
  ])("%s: none (the program's bare prefix would allow every subcommand)", (command) => {
    expect(commandPrefix(command)?.pattern).toBeUndefined();
  });

  test.each([
    ["git status -s", "git status *"],
    ["ls -la", "ls *"],
    ["grep -rn foo src", "grep *"],
  ])("%s still gets %s", (command, pattern) => {
    expect(commandPrefix(command)?.pattern).toBe(pattern);
  });
});
