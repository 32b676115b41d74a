import { describe, expect, test } from "vitest";
import { parseRules } from "../../src/permissions/permission-decision.js";
import { analyseShellCommand } from "../../src/permissions/shell-commands.js";
import { bashDecisions, type Decision, denyRm } from "./bash-decision.js";

const decide = bashDecisions("command-runners");

describe("programs that run their arguments as a command, under --deny-tool 'bash(rm *)' (trial finding 17)", () => {
  test.each<[string, Decision]>([
    // Wrappers peeled with the options of their manual pages.
    [`flock /tmp/lk rm victim.txt`, "denied"],
    [`flock -n -w 5 /tmp/lk rm x`, "denied"],
    [`flock /tmp/lk -c 'rm x'`, "denied"],
    [`taskset -c 0 rm victim.txt`, "denied"],
    [`taskset 0x3 rm x`, "denied"],
    [`chrt -o 0 rm victim.txt`, "denied"],
    [`chrt --fifo 10 rm x`, "denied"],
    [`prlimit --nofile=100 rm victim.txt`, "denied"],
    [`prlimit -n100 --pid= rm x`, "denied"],
    [`unshare rm victim.txt`, "denied"],
    [`unshare -rn --mount-proc rm x`, "denied"],
    [`script -qc "rm victim.txt" /dev/null`, "denied"],
    [`script --command 'rm x' log`, "denied"],
    [`watch -n1 -g rm victim.txt`, "denied"],
    [`watch -x rm x`, "denied"],
    [`runuser -u root -- rm victim.txt`, "denied"],
    [`runuser -u root rm x`, "denied"],
    [`runuser root -c 'rm x'`, "denied"],
    [`chroot / rm x`, "denied"],
    [`chroot --userspec=1:1 / rm x`, "denied"],
    [`nsenter -t 1 -m -u rm x`, "denied"],
    [`sg wheel 'rm x'`, "denied"],
    [`sg - wheel -c 'rm x'`, "denied"],
    [`numactl --interleave=all rm x`, "denied"],
    [`cgexec -g cpu:/ rm x`, "denied"],
    [`fakeroot -- rm x`, "denied"],
    [`pkexec --user root rm x`, "denied"],
    [`doas -u root rm x`, "denied"],
    [`ionice -c3 rm x`, "denied"],
    [`setsid -w rm x`, "denied"],
    [`stdbuf -oL rm x`, "denied"],
    [`catchsegv rm x`, "denied"],
    [`eatmydata rm x`, "denied"],
    [`xvfb-run -a rm x`, "denied"],
    [`dbus-run-session -- rm x`, "denied"],
    [`torsocks rm x`, "denied"],
    [`busybox rm x`, "denied"],
    [`uv run rm x`, "denied"],
    [`bundle exec rm x`, "denied"],
    [`docker exec box rm x`, "denied"],
    [`ip netns exec blue rm x`, "denied"],
    [`nice ionice -c3 flock lk timeout 5 rm x`, "denied"],
    [`gtimeout 5 rm x`, "denied"],
    [`gosu nobody rm x`, "denied"],
    [`busybox timeout 5 rm x`, "denied"],
    [`yash -c 'rm x'`, "denied"],
    [`bfs . -exec rm {} +`, "denied"],
    // Runners whose syntax is not read: unclear, so denied when rm is mentioned, else asked.
    [`ssh host rm x`, "denied"],
    [`strace -f rm x`, "denied"],
    [`ltrace rm x`, "denied"],
    [`valgrind --tool=none rm x`, "denied"],
    [`gdb --args rm x`, "denied"],
    [`parallel rm ::: x y`, "denied"],
    [`systemd-run --user rm x`, "denied"],
    [`firejail --noprofile rm x`, "denied"],
    [`setpriv --reuid=1 rm x`, "denied"],
    [`tmux new-session -d 'rm x'`, "denied"],
    [`tcsh -c 'rm x'`, "denied"],
    [`socat - EXEC:'rm x'`, "denied"],
    [`run0 rm x`, "denied"],
    [`ncat -l 9 --sh-exec 'rm x'`, "denied"],
    [`ssh host "\\$(printf '\\x72\\x6d') x"`, "asked"],
    // An option of its own that the wrapper's manual page does not list: never guessed.
    [`flock --bogus lk cmd`, "asked"],
    [`docker exec -it box sh`, "asked"],
    [`kubectl -n web exec pod -- rm x`, "denied"],
    [`ip -all netns exec rm x`, "denied"],
    [`kubectl -n web get pods`, "allowed"],
    // Options of ordinary programs that run a program.
    [`tar xf v.tar --to-command="rm -f victim.txt"`, "denied"],
    [`tar -I 'rm -f x' -xf v.tar`, "denied"],
    [`tar cf - . --checkpoint=1 --checkpoint-action=exec='rm x'`, "denied"],
    [`sort --compress-program=rm x`, "denied"],
    [`rsync -e 'rm x' a b`, "denied"],
    [`git -c core.pager='rm x' log`, "denied"],
    [`git -c core.sshCommand='rm x' fetch`, "denied"],
    [`git rebase -x 'rm x' main`, "denied"],
    [`git submodule foreach rm x`, "denied"],
    [`fd -x rm`, "denied"],
    [`sed -n '1e rm x' f`, "denied"],
    [`sort --compress-program=bash big.txt`, "asked"],
    // Abbreviated long options, as getopt_long and git read them (trial of session 16, 1).
    [`tar xf v.tar --to-comm='rm -f victim.txt'`, "denied"],
    [`tar cf - . --checkpoint=1 --checkpoint-act=exec='rm x'`, "denied"],
    [`tar xf v.tar --use-compress-prog='rm x'`, "denied"],
    [`git fetch --upload-pac='rm x' origin`, "denied"],
    [`sort --compress-prog=rm x`, "denied"],
    // Ordinary programs and the read-only spellings of the same ones: allowed.
    [`tar xf v.tar`, "allowed"],
    [`git --no-pager log`, "allowed"],
    [`git -c color.ui=always log`, "allowed"],
    [`sed -n 's/rm/x/p' f`, "allowed"],
    [`watch -n1 git status`, "allowed"],
    [`flock /tmp/lk git status`, "allowed"],
  ])("%j is %s", async (command, expected) => {
    expect(await decide(command, denyRm)).toBe(expected);
  });
});

describe("an allow rule for a program that runs commands does not cover what it runs (trial finding 17)", () => {
  test.each<[string, string, Decision]>([
    ["bash(flock *)", `flock /tmp/lk rm victim.txt`, "asked"],
    ["bash(watch *)", `watch -g -n1 rm victim.txt`, "asked"],
    ["bash(taskset *)", `taskset -c 0 rm x`, "asked"],
    ["bash(uv run *)", `uv run rm x`, "asked"],
    ["bash(ssh *)", `ssh host rm x`, "asked"],
    ["bash(tar *)", `tar xf v.tar --to-command='rm x'`, "asked"],
    // The rule for what finally runs covers it (not under sudo: raised-privileges.test.ts).
    ["bash(git status)", `flock /tmp/lk git status`, "allowed"],
    ["bash(git status)", `watch -n1 git status`, "allowed"],
    ["bash(tar *)", `tar tf v.tar`, "allowed"],
  ])("%s: %j is %s", async (rule, command, expected) => {
    expect(await decide(command, { allow: parseRules([rule]) })).toBe(expected);
  });
});

describe("options that write files count as a redirection (trial finding 4)", () => {
  const allow = parseRules([
    "bash(git log *)",
    "bash(git diff *)",
    "bash(sort *)",
    "bash(find *)",
    "bash(tee *)",
    "bash(sed *)",
    "bash(curl *)",
    "bash(dd *)",
  ]);
  test.each<[string, Decision]>([
    [`git log --output=/tmp/written -1`, "asked"],
    [`git log --output /tmp/written`, "asked"],
    [`git diff --output=patch.diff`, "asked"],
    [`sort -o out.txt in.txt`, "asked"],
    [`sort -ro out.txt in.txt`, "asked"],
    [`sort --output=out.txt in.txt`, "asked"],
    [`find . -fprint out.txt`, "asked"],
    [`find . -name '*.tmp' -delete`, "asked"],
    [`echo x | tee out.txt`, "asked"],
    [`sed -i s/a/b/ f.txt`, "asked"],
    [`sed 's/a/b/w out.txt' f.txt`, "asked"],
    [`sed -n '/x/w out.txt' f.txt`, "asked"],
    [`curl -o out.html https://example.invalid`, "asked"],
    [`dd if=/dev/zero of=disk.img count=1`, "asked"],
    [`sort --out=out.txt in.txt`, "asked"],
    [`git log --outp=/tmp/written -1`, "asked"],
    [`sort --compress-prog=./evil.sh big.txt`, "asked"],
    // The read-only spellings stay covered by the prefix.
    [`git log --oneline -n 1`, "allowed"],
    [`git log --format=%H -1`, "allowed"],
    [`git diff --stat`, "allowed"],
    [`sort -r in.txt`, "allowed"],
    [`find . -name '*.ts' -print`, "allowed"],
    [`echo x | tee /dev/null`, "allowed"],
    [`sed -n 's/w/x/p' f.txt`, "allowed"],
    [`curl -s https://example.invalid`, "allowed"],
  ])("%j is %s", async (command, expected) => {
    const policy = { allow: [...allow, ...parseRules(["bash(echo *)"])] };
    expect(await decide(command, policy)).toBe(expected);
  });

  test("a rule equal to the whole command still covers it", async () => {
    const command = "git log --output=/tmp/written -1";
    expect(await decide(command, { allow: parseRules([`bash(${command})`]) })).toBe("allowed");
  });

  test("analyseShellCommand says which options write and which run a program", () => {
    expect(analyseShellCommand("git log --output=x").writes).toEqual(["git log --output=x"]);
    expect(analyseShellCommand("kubectl get pods --output=json").writes).toEqual([]);
    expect(analyseShellCommand("sort --compress-program=bash x").unclear).toEqual([
      "sort --compress-program=bash runs a program",
    ]);
    expect(analyseShellCommand("strace -f ls").unclear).toEqual([
      "strace: runs a command in a syntax that is not read",
    ]);
  });
});
