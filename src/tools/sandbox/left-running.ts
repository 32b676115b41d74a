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
 * shell itself (one process: the shell is pid 1) and zombies, and writes the number on a pipe the
 * runner reads. The trap also makes bash handle the signals that end a shell, which the kernel
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
 * The trap's body: keeps the command's exit status, counts, writes the number on the report pipe
 * when it is still one (a command may have reused the descriptor), and exits with the status.
 * Only builtins, called as such (a command's function named `printf` or `exit` does not run);
 * options a command may have set that would change the count (`noglob`, `errexit`, `nounset`,
 * `GLOBIGNORE`) are undone first; `SIGPIPE` is ignored, so that a reader gone cannot change the
 * exit status.
 */
const COUNT = `turnloop_status=$?
builtin set +o errexit +o nounset +o noglob
builtin unset GLOBIGNORE 2>/dev/null
builtin trap '' PIPE
turnloop_left=0
for turnloop_entry in /proc/[1-9]*; do
  turnloop_pid=\${turnloop_entry#/proc/}
  [[ $turnloop_pid == 1 || $turnloop_pid == "$$" ]] && continue
  builtin read -r turnloop_stat 2>/dev/null < "$turnloop_entry/stat" || continue
  turnloop_stat=\${turnloop_stat##*) }
  [[ \${turnloop_stat%% *} == Z ]] && continue
  turnloop_left=$((turnloop_left + 1))
done
[[ -n \${turnloop_report-} && ( -p /dev/fd/$turnloop_report || -S /dev/fd/$turnloop_report ) ]] && builtin printf '%d\\n' "$turnloop_left" >&"$turnloop_report"
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
