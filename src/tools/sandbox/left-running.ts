/**
 * How a sandboxed command tells how many processes it left running (`(server &)`, `nohup server
 * &`, a program that puts itself in the background): the sandbox ends them with the command, since
 * its pid namespace ends with its first process, the command's shell (`--unshare-pid`,
 * `--as-pid-1`: bubblewrap-arguments.ts), without a word; this counts them first, so that the model and the user hear it (tools/bash.ts).
 *
 * The command's own shell does the count: bash reads the file `BASH_ENV` names before it runs the
 * command (bash(1), "INVOCATION": a non-interactive shell), and this file ({@link EXIT_TRAP_PATH},
 * which bwrap writes from one of the runner's inputs) sets an `EXIT` trap that, once the command ended,
 * counts the entries of the sandbox's own `/proc` (its pid namespace) other than pid 1 and the
 * shell itself (one process: the shell is pid 1) that are still running after a short grace, not
 * ending on their own ({@link COUNT}), and writes the number on a pipe the runner reads. The trap also makes bash handle the signals that end a shell, which the kernel
 * would otherwise drop for a namespace's pid 1 when sent from inside (`kill $$`).
 * No other process runs for it (a wrapper `bash` would cost a process start a command); the shell
 * forks the command's last program instead of becoming it (bash does not `exec` the last command
 * while an `EXIT` trap is set). A command that sets its own `EXIT` trap, or ends with `exec`,
 * reports nothing: the sandbox's note is then left out, as before.
 */

/**
 * Where the file bash reads through `BASH_ENV` lies in the sandbox: in the `/dev` bwrap makes
 * (`--dev`, a memory file system of the sandbox's own; not `/tmp`, which may be a host folder),
 * written there by `--file` from a descriptor: bash cannot open a descriptor of Node's (a socket)
 * as `/dev/fd/N`.
 */
export const EXIT_TRAP_PATH = "/dev/.turnloop-exit-trap";

/** Quotes `text` as one word for bash. */
function shellWord(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * How long the trap waits, at most, for the processes it found still running to end on their
 * own before it counts them as left running, in microseconds: 1 s.
 */
const GRACE_MICROSECONDS = 1_000_000;

/**
 * The trap's body: keeps the command's exit status; closes the shell's own descriptors but the
 * report pipe, so that what ends with them ends now (a `>(tee log)` the command's output goes
 * to, a helper reading the shell's pipe); then counts the processes still running, and writes
 * the number on the report pipe when it is still one (a command may have reused the
 * descriptor), and exits with the status.
 *
 * A process counts as running unless `/proc/<pid>/stat` shows it a zombie (`Z`), dead (`X`) or
 * exiting (the kernel's `PF_EXITING`, 0x4, in its flags, field 9: proc(5); set before the
 * process's descriptors close, so a program that saw a helper's pipe close and ended saw a
 * helper already exiting: `git ls-remote` and its `git-remote-https`). Those found running are
 * looked at again, by their `/proc` entries, until none is left or {@link GRACE_MICROSECONDS}
 * passed (bash's `EPOCHREALTIME`), pausing on a read of the report socket, which the runner
 * never writes (a timed `read`: bash has no `sleep`, and a `sleep` would be one more process);
 * only those still running then are counted. Without a socket to pause on or without
 * `EPOCHREALTIME`, they are counted at once.
 *
 * Only builtins, called as such (a command's function named `printf` or `exit` does not run;
 * `exec` is the builtin once a function of that name is removed and aliases are not expanded);
 * options a command may have set that would change the count (`noglob`, `errexit`, `nounset`,
 * `posix`, under which a failed `exec` ends the shell, `GLOBIGNORE`, `IFS`) are undone first; `SIGPIPE` is ignored, so that a reader gone cannot
 * change the exit status.
 */
const COUNT = `turnloop_status=$?
builtin set +o errexit +o nounset +o noglob +o posix
builtin shopt -u expand_aliases
builtin unset GLOBIGNORE IFS 2>/dev/null
builtin unset -f exec 2>/dev/null
builtin trap '' PIPE
for turnloop_entry in /proc/$$/fd/*; do
  turnloop_fd=\${turnloop_entry##*/}
  [[ $turnloop_fd == "\${turnloop_report-}" ]] || exec {turnloop_fd}>&-
done
turnloop_running() {
  builtin read -r turnloop_stat 2>/dev/null < "/proc/$1/stat" || builtin return 1
  turnloop_fields=(\${turnloop_stat##*) })
  [[ \${turnloop_fields[0]} != [ZXx] ]] && (( (turnloop_fields[6] & 4) == 0 ))
}
turnloop_left=()
for turnloop_entry in /proc/[1-9]*; do
  turnloop_pid=\${turnloop_entry#/proc/}
  [[ $turnloop_pid == 1 || $turnloop_pid == "$$" ]] && continue
  turnloop_running "$turnloop_pid" && turnloop_left+=("$turnloop_pid")
done
if [[ -n \${EPOCHREALTIME-} && -n \${turnloop_report-} && -S /dev/fd/$turnloop_report ]]; then
  turnloop_end=$(( \${EPOCHREALTIME/[.,]/} + ${GRACE_MICROSECONDS} ))
  while (( \${#turnloop_left[@]} > 0 && \${EPOCHREALTIME/[.,]/} < turnloop_end )); do
    builtin read -r -t 0.02 -u "$turnloop_report" 2>/dev/null
    turnloop_still=()
    for turnloop_pid in "\${turnloop_left[@]}"; do
      turnloop_running "$turnloop_pid" && turnloop_still+=("$turnloop_pid")
    done
    turnloop_left=("\${turnloop_still[@]}")
  done
fi
[[ -n \${turnloop_report-} && ( -p /dev/fd/$turnloop_report || -S /dev/fd/$turnloop_report ) ]] && builtin printf '%d\\n' "\${#turnloop_left[@]}" >&"$turnloop_report"
builtin exit "$turnloop_status"`;

/**
 * The file bash reads through `BASH_ENV` for one command: takes the report pipe (descriptor
 * `reportFd`, a pipe or, as Node makes them, a socket) to a descriptor of its own above 9 when it
 * is open, sets the `EXIT` trap ({@link COUNT}), then gives the command the `BASH_ENV` of its
 * environment, `userBashEnv`, reading that file as bash would have (none: `BASH_ENV` unset, so
 * that the shells the command starts do not read this file again).
 */
export function leftRunningScript(reportFd: number, userBashEnv: string | undefined): string {
  const user =
    userBashEnv === undefined
      ? ["builtin unset BASH_ENV"]
      : [
          `builtin export BASH_ENV=${shellWord(userBashEnv)}`,
          '[[ -r $BASH_ENV ]] && builtin source "$BASH_ENV"',
        ];
  return [
    // `exec`, not `builtin exec`: redirections of `builtin` would last only for that command.
    `if [[ -p /dev/fd/${reportFd} || -S /dev/fd/${reportFd} ]]; then exec {turnloop_report}>&${reportFd} ${reportFd}>&-; fi`,
    `builtin trap ${shellWord(COUNT)} EXIT`,
    ...user,
    "",
  ].join("\n");
}

/**
 * How many processes a command left running, from what its shell wrote on the report pipe
 * ({@link leftRunningScript}): the last number written; `undefined` when none was (the
 * command ended with `exec`, set its own `EXIT` trap, or was killed).
 */
export function leftRunningCount(report: string): number | undefined {
  const last = report.trim().split("\n").at(-1) ?? "";
  return /^\d+$/.test(last) ? Number(last) : undefined;
}
