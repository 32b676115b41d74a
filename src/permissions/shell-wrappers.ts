/**
 * Programs that run another command given as their arguments (`sudo rm x` runs `rm x`), with the
 * options each takes, so shell-commands.ts can find the command that finally runs. (Options of
 * ordinary programs that run a program, `tar --to-command=…`, are read in shell-side-effects.ts.)
 *
 * Option lists follow each tool's manual page (GNU coreutils for env, nice, nohup, timeout,
 * stdbuf, time, chroot; sudo(8), doas(1); util-linux for flock, taskset, chrt, prlimit, unshare,
 * nsenter, runuser, setsid, ionice, script; procps for watch; shadow for sg, su; …). An option a
 * wrapper does not list makes the call unclear rather than guessed. Programs known to run a
 * command in a syntax of their own ({@link COMMAND_RUNNERS}: `ssh host cmd`, `parallel … ::: …`,
 * `strace`, `systemd-run` …) make the call unclear whatever follows.
 */

/** Where the wrapped command is, among the words after the wrapper's name. */
export type WrapperResult =
  /** The command starts at word `start`. */
  | { kind: "command"; start: number }
  /** Word `index` and those after it are a shell script (`su -c script`, `watch cmd …`). */
  | { kind: "script"; index: number }
  /** Runs nothing (e.g. `env` alone prints the environment). */
  | { kind: "none" }
  | { kind: "unclear"; reason: string };

/** Reads a wrapper's arguments (the words after its name, unquoted). */
export type Wrapper = (words: readonly string[]) => WrapperResult;

/**
 * A wrapper's options, read from a spec written as space-separated tokens: `-abc:d::e!f^` (getopt's
 * letters: `c:` takes a value, `d::` an optional value joined to it, `e!` a shell script, `f^` a
 * program it runs, which cannot be read: `su -s PROG`), `--name`, `--name=` (a value), `--name[=]`
 * (an optional value after `=`), `--name!` (a script), `--name^` (a program), `#N` (N positional
 * words before the command: `timeout 5 cmd`), `VAR=` (skips `NAME=value` words), `-#` (`-10` is
 * an option), `-` (a lone `-` is an option: `su - root`), `joined` (the command's words are
 * joined and run by a shell: `watch`, `sg`) and `shell` (with no command it runs an interactive
 * shell, which cannot be read). `--` ends the options; the positional words and, with `VAR=`, the
 * `NAME=value` words may still follow it (`timeout -- 5 cmd`, `env -- A=1 cmd`).
 */
interface OptionSpec {
  flags: string;
  valued: string;
  optional: string;
  script: string[];
  programs: string[];
  longFlags: string[];
  longValued: string[];
  longOptional: string[];
  positionals: number;
  markers: Set<string>;
}

function parseSpec(text: string): OptionSpec {
  const spec: OptionSpec = {
    ...{ flags: "", valued: "", optional: "", script: [], programs: [], longFlags: [] },
    longValued: [],
    ...{ longOptional: [], positionals: 0, markers: new Set() },
  };
  for (const token of text.split(" ").filter((part) => part !== "")) {
    const long = /^--([^=[!^]+)(=|\[=\]|!|\^)?$/.exec(token);
    if (long !== null) {
      const [, name = "", kind] = long;
      const lists = { "=": spec.longValued, "[=]": spec.longOptional };
      if (kind === "!" || kind === "^") {
        (kind === "!" ? spec.script : spec.programs).push(`--${name}`);
      } else {
        (kind === undefined ? spec.longFlags : lists[kind as keyof typeof lists]).push(name);
      }
    } else if (token.startsWith("#")) {
      spec.positionals = Number(token.slice(1));
    } else if (/^-[^#]/.test(token)) {
      readOptstring(token.slice(1), spec);
    } else {
      spec.markers.add(token);
    }
  }
  return spec;
}

function readOptstring(optstring: string, spec: OptionSpec): void {
  for (let at = 0; at < optstring.length; at++) {
    const letter = optstring[at] ?? "";
    const after = optstring.slice(at + 1);
    if (after.startsWith("::")) {
      spec.optional += letter;
      at += 2;
    } else if (after.startsWith(":")) {
      spec.valued += letter;
      at++;
    } else if (after.startsWith("!") || after.startsWith("^")) {
      (after.startsWith("!") ? spec.script : spec.programs).push(`-${letter}`);
      at++;
    } else {
      spec.flags += letter;
    }
  }
}

/**
 * Reads options as `spec` (see {@link OptionSpec}) describes; `--` ends them. The spec is parsed
 * on the wrapper's first call, not when the tables are built: a run reads a few programs' options
 * at most, and parsing all of them at load was our largest start-up work in the permission rules
 * (issue 26, bench/notes/start19.md).
 */
export function options(text: string): Wrapper {
  let parsed: OptionSpec | undefined;
  return (words) => {
    parsed ??= parseSpec(text);
    const spec = parsed;
    let index = 0;
    let positionals = spec.positionals;
    let ended = false;
    while (index < words.length) {
      const word = words[index] ?? "";
      if (word === "--" && !ended) {
        ended = true;
        index++;
        continue;
      }
      const step = ended ? afterOptions(word, spec) : readOption(word, spec);
      if (step.kind !== "ok") {
        return step.kind === "script" ? { kind: "script", index: index + 1 } : step;
      }
      if (step.consumed > 0) {
        index += step.consumed;
        continue;
      }
      if (positionals === 0) {
        break;
      }
      positionals--;
      index++;
    }
    if (index >= words.length) {
      return spec.markers.has("shell")
        ? { kind: "unclear", reason: "runs an interactive shell" }
        : { kind: "none" };
    }
    return spec.markers.has("joined")
      ? { kind: "script", index }
      : { kind: "command", start: index };
  };
}

/** A word after `--`: a `NAME=value` word the wrapper reads, or a positional or the command. */
function afterOptions(word: string, spec: OptionSpec): OptionStep {
  const assignment = spec.markers.has("VAR=") && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word);
  return { kind: "ok", consumed: assignment ? 1 : 0 };
}

type OptionStep =
  /** Words the option takes (0: `word` is not an option). */
  | { kind: "ok"; consumed: number }
  /** The next word is a shell script. */
  | { kind: "script" }
  | { kind: "unclear"; reason: string };

function readOption(word: string, spec: OptionSpec): OptionStep {
  if (word.startsWith("--")) {
    const [name = "", value] = word.slice(2).split(/=(.*)/s, 2);
    if (spec.script.includes(`--${name}`)) {
      return value === undefined ? { kind: "script" } : unclear(word);
    }
    if (spec.programs.includes(`--${name}`)) {
      return { kind: "unclear", reason: `option ${word} runs a program` };
    }
    if (spec.longValued.includes(name)) {
      return { kind: "ok", consumed: value === undefined ? 2 : 1 };
    }
    return spec.longFlags.includes(name) || spec.longOptional.includes(name)
      ? { kind: "ok", consumed: 1 }
      : unclear(word);
  }
  if (word === "-" && spec.markers.has("-")) {
    return { kind: "ok", consumed: 1 };
  }
  if (spec.markers.has("VAR=") && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
    return { kind: "ok", consumed: 1 };
  }
  if (!word.startsWith("-") || word.length === 1) {
    return { kind: "ok", consumed: 0 };
  }
  if (spec.markers.has("-#") && /^-\d+$/.test(word)) {
    return { kind: "ok", consumed: 1 };
  }
  for (let at = 1; at < word.length; at++) {
    const option = word[at] ?? "";
    if (spec.script.includes(`-${option}`)) {
      return at === word.length - 1 ? { kind: "script" } : unclear(word);
    }
    if (spec.programs.includes(`-${option}`)) {
      return { kind: "unclear", reason: `option ${word} runs a program` };
    }
    if (spec.valued.includes(option)) {
      // The value is the rest of this word, or the next word.
      return { kind: "ok", consumed: at === word.length - 1 ? 2 : 1 };
    }
    if (spec.optional.includes(option)) {
      return { kind: "ok", consumed: 1 }; // An optional value is joined to its letter.
    }
    if (!spec.flags.includes(option)) {
      return unclear(word);
    }
  }
  return { kind: "ok", consumed: 1 };
}

function unclear(word: string): { kind: "unclear"; reason: string } {
  return { kind: "unclear", reason: `option ${word} is not understood` };
}

/**
 * Wrappers' option specs (see {@link OptionSpec}) by command name, or `name subcommand`, written
 * `name: spec` and separated by ` | ` (`nohup:` takes no options; `--` is the command mvdan-sh
 * reads after bash's `time --`; `npm explore`: npm-explore(1) runs its words in a shell). xargs(1)
 * (GNU findutils 4.9): `-i[R]`, `-l[N]`, `-e[EOF]`, `--replace[=R]`, `--max-lines[=N]` and
 * `--eof[=EOF]` take an optional value joined to them, never the next word.
 */
export const WRAPPER_SPECS: Readonly<Record<string, string>> = Object.fromEntries(
  (
    "builtin: | nohup: | busybox: | catchsegv: | eatmydata: | torify: | --: | uv run: | poetry " +
    "run: | pipenv run: | pdm run: | hatch run: | pixi run: | conda run: | mamba run: | " +
    "micromamba run: | bundle exec: | pnpm exec: | yarn exec: | gosu: #1 | su-exec: #1 | " +
    "direnv exec: #1 | docker exec: #1 | podman exec: #1 | kubectl exec: #1 | ip netns: #2 | " +
    "command: -pvV | exec: -cla: | setsid: -cfw --ctty --fork --wait | env: -i0vu:C:P:S! " +
    "--ignore-environment --null --debug --unset= --chdir= --split-string! VAR= | sudo: " +
    "-AbEHiKknPSsVu:g:h:p:C:D:r:t:U:T:R: --askpass --background --preserve-env --set-home " +
    "--login --reset-timestamp --remove-timestamp --non-interactive --preserve-groups --stdin " +
    "--shell --user= --group= --host= --prompt= --close-from= --chdir= --role= --type= VAR= | " +
    "doas: -nsu:C: | time: -pvaqf:o: --portability --verbose --append --quiet --format= " +
    "--output= | nice: -n: --adjustment= -# | timeout: -vs:k: --foreground --preserve-status " +
    "--verbose --signal= --kill-after= #1 | stdbuf: -i:o:e: --input= --output= --error= | " +
    "ionice: -tc:n: --class= --classdata= | xargs: -0rtpxoa:d:E:I:L:n:P:s:e::i::l:: --null " +
    "--no-run-if-empty --verbose --interactive --exit --open-tty --show-limits --arg-file= " +
    "--delimiter= --max-args= --max-procs= --max-chars= --process-slot-var= --replace[=] " +
    "--max-lines[=] --eof[=] | su: -lmpfs^g:G:c! --login --preserve-environment --pty --shell^ " +
    "--group= --supp-group= --whitelist-environment= --command! #1 - | flock: -sxenuoFhVw:E:c! " +
    "--shared --exclusive --unlock --nonblock --nb --close --no-fork --verbose --wait= " +
    "--timeout= --conflict-exit-code= --command! #1 | taskset: -acphV --all-tasks --cpu-list " +
    "--pid #1 | chrt: -bdfiorRamvphVT:P:D: --batch --deadline --fifo --idle --other --rr " +
    "--reset-on-fork --all-tasks --max --pid --verbose --sched-runtime= --sched-period= " +
    "--sched-deadline= #1 | prlimit: -hVp:o:c::d::e::f::i::l::m::n::q::r::s::t::u::v::x::y:: " +
    "--noheadings --raw --verbose --pid= --output= --core[=] --data[=] --nice[=] --fsize[=] " +
    "--sigpending[=] --memlock[=] --rss[=] --nofile[=] --msgqueue[=] --rtprio[=] --stack[=] " +
    "--cpu[=] --nproc[=] --as[=] --locks[=] --rttime[=] | unshare: " +
    "-frchVm::n::p::u::i::U::C::T::R:w:S:G: --fork --map-root-user --map-current-user " +
    "--map-auto --keep-caps --ipc[=] --mount[=] --net[=] --pid[=] --uts[=] --user[=] " +
    "--cgroup[=] --time[=] --kill-child[=] --mount-proc[=] --map-user= --map-group= " +
    "--map-users= --map-groups= --propagation= --setgroups= --root= --wd= --setuid= --setgid= " +
    "--monotonic= --boottime= shell | chroot: --skip-chdir --groups= --userspec= #1 shell | " +
    "nsenter: -aeFZcNhVt:S:G:W:m::u::i::n::p::U::C::T::r::w:: --all --env --no-fork " +
    "--follow-context --join-cgroup --user-parent --preserve-credentials --keep-caps --target= " +
    "--setuid= --setgid= --wdns= --mount[=] --uts[=] --ipc[=] --net[=] --pid[=] --user[=] " +
    "--cgroup[=] --time[=] --root[=] --wd[=] shell | sg: -c! #1 - joined | watch: " +
    "-bcCegprtwxhvd::n:q: --beep --color --no-color --errexit --chgexit --precise --no-rerun " +
    "--no-title --no-wrap --exec --differences[=] --interval= --equexit= joined | numactl: " +
    "-aslHbtTdDi:m:N:C:p:P:c:o:L:M:I:S:f:w: --all --localalloc --show --hardware --huge " +
    "--balancing --strict --touch --dump --dump-nodes --interleave= --membind= --cpunodebind= " +
    "--physcpubind= --preferred= --preferred-many= --cpubind= --offset= --length= --shmmode= " +
    "--shmid= --shm= --file= --weighted-interleave= | cgexec: -hg: --sticky | fakeroot: " +
    "-uhvl^i:s:b: --unknown-is-real --lib^ --fd-base= | pkexec: --disable-internal-agent " +
    "--keep-cwd --user= shell | nocache: -n: | chronic: -ev | ifne: -n | unbuffer: -p | " +
    "sshpass: -ehvf:d:p:P: | proxychains: -qf: | proxychains4: -qf: | torsocks: -idqu:p:a:P: " +
    "--isolate --debug --quiet --user= --pass= --address= --port= | xvfb-run: -alhe:f:n:p:s:w: " +
    "--auto-servernum --listen-tcp --help --error-file= --auth-file= --server-num= " +
    "--xauth-protocol= --server-args= --wait= | dbus-run-session: --config-file= | " +
    "systemd-inhibit: --what= --who= --why= --mode= | npm explore: #1 joined shell"
  )
    .split(" | ")
    .map((entry) => entry.split(/: ?(.*)/s, 2)),
);

/** Other names of the same programs (GNU coreutils' on macOS, sudo's rewrite in Rust). */
const ALIASES: Record<string, string> = {
  ...{ gtimeout: "timeout", gstdbuf: "stdbuf", gnice: "nice", gnohup: "nohup", genv: "env" },
  ...{ gtime: "time", gxargs: "xargs", "sudo-rs": "sudo" },
};

/**
 * `cmake -E env [--unset=V]… [V=x]… cmd`, `cmake -E time cmd` and `cmake -E chdir dir cmd` run
 * `cmd` (cmake(1), "Command-Line Tool Mode"); its other tools run none.
 */
function cmakeTool(words: readonly string[]): WrapperResult {
  const [tool = "", ...rest] = words;
  const spec = { env: "--unset= --modify= VAR=", time: "", chdir: "#1" }[tool];
  return spec === undefined ? { kind: "none" } : shifted(options(spec)(rest), 1);
}

/** `result` for words that start `by` words later. */
export function shifted(result: WrapperResult, by: number): WrapperResult {
  return result.kind === "command"
    ? { kind: "command", start: result.start + by }
    : result.kind === "script"
      ? { kind: "script", index: result.index + by }
      : result;
}

/**
 * `runuser -u user cmd …` runs `cmd …`; `runuser [-] user [-c script]` runs the user's shell, as
 * `su` does.
 */
const runuserWithUser = options(
  "-flmpPg:G:s^u:w:c! --fast --login --preserve-environment --pty --group= --supp-group= " +
    "--shell^ --user= --whitelist-environment= --command! --session-command! -",
);
const runuserAsSu = options(
  "-flmpPg:G:s^w:c! --fast --login --preserve-environment --pty --group= --supp-group= " +
    "--shell^ --whitelist-environment= --command! --session-command! #1 -",
);

/** `script -c cmd [file]` runs `cmd`; without `-c`, an interactive shell. */
const scriptWithCommand = options(
  "-aefqhVB:E:I:O:m:o:T:t::c! --append --return --flush --force --quiet --log-io= --echo= " +
    "--log-in= --log-out= --logging-format= --output-limit= --log-timing= --timing[=] " +
    "--command! #1",
);

/** Wrappers by command name, or by `name subcommand` (`uv run`, `docker exec`). */
export const WRAPPERS: ReadonlyMap<string, Wrapper> = new Map<string, Wrapper>([
  ...Object.entries(WRAPPER_SPECS).map(([name, spec]): [string, Wrapper] => [name, options(spec)]),
  ...Object.entries(ALIASES).map(([name, same]): [string, Wrapper] => [
    name,
    options(WRAPPER_SPECS[same] ?? ""),
  ]),
  [
    "runuser",
    (words) =>
      words.some((word) => /^(?:-[a-zA-Z]*u|--user\b)/.test(word))
        ? runuserWithUser(words)
        : runuserAsSu(words),
  ],
  ["cmake -E", cmakeTool],
  [
    "script",
    (words) => {
      const result = scriptWithCommand(words);
      return result.kind === "script" || result.kind === "unclear"
        ? result
        : { kind: "unclear", reason: "without -c it runs an interactive shell" };
    },
  ],
]);

/**
 * Programs known to run a command given in their arguments in a syntax that is not read here
 * (remote shells, job runners, debuggers and tracers, sandboxes, terminal multiplexers, …): a
 * call of one cannot be understood from its text.
 */
export const COMMAND_RUNNERS: ReadonlySet<string> = new Set([
  ...(
    "ssh rsh slogin parallel sem gdb lldb valgrind strace ltrace perf systemd-run " +
    "systemd-nspawn firejail bwrap proot fakechroot setpriv capsh setarch linux32 linux64 i386 " +
    "x86_64 uname26 chpst softlimit envdir setuidgid envuidgid setlock rlwrap faketime entr pee " +
    "at batch screen tmux dtach abduco expect mpirun mpiexec srun salloc schroot machinectl " +
    "flatpak-spawn trickle cpulimit schedtool daemonize start-stop-daemon watchexec nodemon " +
    "concurrently hyperfine cross-env env-cmd dotenv toybox lckdo run-one with-lock-ex " +
    "caffeinate timelimit xterm x-terminal-emulator gnome-terminal konsole kitty alacritty " +
    "wezterm urxvt foot tsp nix-shell distrobox-enter sandbox-exec arch systemd-cat runcon " +
    "lxc-attach lxc-execute arch-chroot minijail0 nsjail rootlesskit hwloc-bind bpftrace uftrace " +
    "py-spy rr ddd cgdb dbus-launch xinit startx ssh-agent mosh autossh socat rush reflex " +
    "watchman-make chokidar run0 please ksu s6-setuidgid tini dumb-init tsocks graftcp datefudge " +
    "pseudo fakeroot-ng nq daemon retry csh tcsh nu elvish xonsh pwsh fc ccache run-parts " +
    "ld.so ld-linux.so.2 ld-linux-x86-64.so.2 ld-linux-aarch64.so.1"
  ).split(" "),
  ...(
    "flatpak run,toolbox run,distrobox enter,nix develop,nix shell,devbox run,mise exec,mise x," +
    "asdf exec,rbenv exec,pyenv exec,nodenv exec,op run,aws-vault exec,doppler run," +
    "vagrant ssh,zellij run,podman unshare,buildah unshare,rustup run,tox exec"
  ).split(","),
]);

/**
 * Wrappers that run the command as another user or group, or in another root folder or set of
 * namespaces, with why: an allow rule covers what one runs only when it names the wrapper
 * (`bash(sudo rm x)`, `bash(sudo *)`), as Claude Code and Codex match allow rules on the command
 * as written; deny rules still judge what finally runs. From their manual pages: sudo(8),
 * sudo-rs, doas(1), su(1), runuser(1), pkexec(1), gosu and su-exec run it as another user;
 * sg(1) with another group; chroot(8) under another root folder (it needs root; `--userspec`
 * picks the user); unshare(1) in new namespaces (`-r` makes it root there); nsenter(1) in
 * another process's namespaces (as root with `-S 0`). setpriv(1), capsh(1) and run0(1) are
 * {@link COMMAND_RUNNERS}: no rule short of the whole command covers a call of one.
 */
export const IDENTITY_WRAPPERS: ReadonlyMap<string, string> = new Map([
  ...["sudo", "sudo-rs", "doas", "su", "runuser", "pkexec", "gosu", "su-exec"].map(
    (name): [string, string] => [name, "runs it as another user"],
  ),
  ["sg", "runs it as another group"],
  ["chroot", "runs it under another root folder"],
  ["unshare", "runs it in new namespaces"],
  ["nsenter", "runs it in another process's namespaces"],
]);

/**
 * The form of `forms` (a simple command's spellings, shell-analysis.ts) that starts at its
 * outermost wrapper of {@link IDENTITY_WRAPPERS}: the one an allow rule must match
 * (`sudo nice rm x` for `timeout 5 sudo nice rm x`; `sudo -v` itself). Undefined when none runs it.
 */
export function raisingForm(forms: readonly string[]): string | undefined {
  return forms.find((form) => IDENTITY_WRAPPERS.has(form.split(" ", 1)[0] ?? ""));
}
