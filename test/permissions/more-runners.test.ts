import { describe, expect, test } from "vitest";
import { parseRules } from "../../src/permissions/permission-decision.js";
import { bashDecisions } from "./bash-decision.js";

/**
 * Programs and options that run a command, found by the session-17 trial (#2, #3, #4, #23): under
 * `--allow-all-tools --deny-tool 'bash(touch *)'` each ran its `touch`. Now each is denied or asked
 * (a command that cannot be understood is asked about while deny rules are in force).
 */
const decide = bashDecisions("more-runners");
const denyTouch = { allowAllTools: true, deny: parseRules(["bash(touch *)"]) };

describe("a deny rule against commands run through another program", () => {
  test.each([
    "split --filter='touch m1' a.txt",
    "split --filt='touch m2' a.txt",
    "find . -maxdepth 0 -exec env touch m3 \\;",
    "find . -maxdepth 0 -exec nice touch m4 \\;",
    "find . -maxdepth 0 -exec timeout 5 touch m5 \\;",
    "find . -maxdepth 0 -exec sh -c 'touch m6' \\;",
    "find . -maxdepth 0 -execdir bash -c 'touch m7' \\;",
    "find . -maxdepth 0 -exec npx touch m8 \\;",
    "find . -maxdepth 0 -exec git -c core.fsmonitor='touch m9' status \\;",
    'history -s "touch m10"; fc -s',
    'FCEDIT="touch m11" fc',
    "/lib64/ld-linux-x86-64.so.2 /usr/bin/touch m12",
    "ld.so /usr/bin/touch m13",
    "rustup run stable touch m14",
    "ccache touch m15",
    "run-parts --regex x hooks",
    "git -c submodule.x.update='!touch m16' submodule update",
    "git -c gpg.ssh.defaultKeyCommand='touch m17' commit -S -m x",
    "git -c init.templateDir=/tmp/templates init x",
    "git -c core.alternateRefsCommand='touch m18' fetch o",
    "git -c interactive.diffFilter='touch m19' add -p",
    "git -c sendemail.toCmd='touch m20' send-email x.patch",
    "git -c remote.o.vcs=x fetch o",
  ])("%s is not allowed", async (command) => {
    expect(await decide(command, denyTouch)).not.toBe("allowed");
  });

  test.each([
    "find . -name '*.ts' -exec grep -l foo {} +",
    "find . -type f -exec wc -l {} \\;",
    "split -l 10 a.txt part-",
    "git -c color.ui=never log --oneline",
    "git -c user.name=x commit -m y",
  ])("%s still runs", async (command) => {
    expect(await decide(command, denyTouch)).toBe("allowed");
  });
});
