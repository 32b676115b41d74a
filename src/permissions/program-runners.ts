/**
 * Programs that run a program their arguments or their input name, in a way of their own rather
 * than as a wrapper's plain command (shell-wrappers.ts): package runners (`npx tape x` runs
 * `tape x`, `corepack pnpm …`, `pnpm <bin>`), xargs, whose input may become the command, shells
 * (`sh -c script`) and bash's `trap`; and build tools' and package managers' own options that run
 * a program, build other code or write what they name (`go test -exec`, `-C dir`,
 * `-coverprofile=F`, `make SHELL=…`, `npm test --cache DIR`, `npm config set`). Read by
 * shell-commands.ts and shell-side-effects.ts for the permission rules and by command-prefix.ts.
 */

import { baseName, type DecodedWord, HARMLESS_TARGETS } from "./shell-words.js";
import {
  COMMAND_RUNNERS,
  options,
  shifted,
  WRAPPER_SPECS,
  WRAPPERS,
  type WrapperResult,
} from "./shell-wrappers.js";

/**
 * Package runners: `npx tape x` runs the program `tape` of the package `tape` (installed first
 * when missing), or any program on PATH (`npx rm x` runs rm); `-c`/`--call` runs a shell script.
 * Options from each tool's help (npm 11, pnpm 10, yarn 4, bun 1, uv 0.8, pipx 1.7); one not
 * listed makes the call unclear. `npm exec`/`pnpm exec` … need no install; `pnpm exec` and `yarn
 * exec` are wrappers (shell-wrappers.ts).
 */
const NPM_EXEC =
  "-yqsc!p:w: --yes --no --quiet --silent --call! --package= --workspace= --workspaces " +
  "--include-workspace-root --prefix= --registry= --cache= --userconfig= --loglevel= --offline " +
  "--prefer-offline --prefer-online --ignore-scripts";
const UV_TOOL_RUN =
  "-qvnUp:i:f:P:w: --quiet --verbose --no-cache --offline --isolated --upgrade --reinstall " +
  "--refresh --no-index --no-config --native-tls --from= --with= --with-editable= " +
  "--with-requirements= --python= --index= --default-index= --index-url= --extra-index-url= " +
  "--find-links= --cache-dir= --directory= --project= --upgrade-package= --refresh-package=";
const PACKAGE_RUNNER_SPECS: Record<string, string> = {
  npx: NPM_EXEC,
  "npm exec": NPM_EXEC,
  "npm x": NPM_EXEC,
  "pnpm dlx": "-sc! --silent --shell-mode! --package= --allow-build= --reporter=",
  "yarn dlx": "-qp: --quiet --package=",
  bunx: "-p: --bun --no-install --verbose --silent --package=",
  "bun x": "-p: --bun --no-install --verbose --silent --package=",
  uvx: UV_TOOL_RUN,
  "uv tool run": UV_TOOL_RUN,
  "pipx run":
    "-qvei: --quiet --verbose --no-cache --pypackages --path --editable --spec= " +
    "--python= --index-url= --pip-args= --fetch-missing-python --system-site-packages",
};
const PACKAGE_RUNNERS = new Map(
  Object.entries(PACKAGE_RUNNER_SPECS).map(([name, spec]) => [name, options(spec)]),
);

/**
 * Where the command a package runner's call `name words…` runs starts among `words` (`npm exec --
 * eslint x`: 2), or its script (`npx -c 'cmd'`); undefined for any other program.
 */
export function readPackageRunner(
  name: string,
  words: readonly string[],
): WrapperResult | undefined {
  for (const size of [2, 1, 0]) {
    const runner = PACKAGE_RUNNERS.get([name, ...words.slice(0, size)].join(" "));
    const result = runner?.(words.slice(size));
    if (result !== undefined) {
      return result.kind === "command"
        ? { kind: "command", start: result.start + size }
        : result.kind === "script"
          ? { kind: "script", index: result.index + size }
          : result;
    }
  }
  const later = words.find((word) => PACKAGE_RUNNERS.has(`${name} ${word}`));
  return words[0]?.startsWith("-") === true && later !== undefined
    ? { kind: "unclear", reason: `options before ${later} are not read` }
    : name === "corepack" || name === "pnpm"
      ? packageManagerRuns(name, words)
      : undefined;
}

/** pnpm's own commands (pnpm 10's help) and those it hands to npm (`pnpm view`). */
const PNPM_COMMANDS = new Set(
  (
    "add i install it install-test ci up update upgrade rm remove un uninstall unlink ln link " +
    "import rb rebuild prune fetch dedupe patch patch-commit patch-remove audit ls list ll la " +
    "outdated why licenses run run-script t tst test exec dlx create start stop restart init " +
    "publish pack recursive multi m server store root bin setup c config get set env doctor " +
    "deploy self-update approve-builds ignored-builds cat-file cat-index find-hash help " +
    "completion catalog sbom access adduser bugs deprecate dist-tag docs edit info login logout " +
    "owner ping prefix profile pkg repo s search set-script show star stars team token " +
    "unpublish unstar v version view whoami xmas"
  ).split(" "),
);

/**
 * `corepack pnpm …` runs that package manager (corepack's versioned `pnpm@9 …` is not read), and
 * `pnpm <name>` a script or program of that name when `name` is not a pnpm command (as `pnpm
 * exec`); options before it are not read.
 */
function packageManagerRuns(name: string, words: readonly string[]): WrapperResult | undefined {
  const first = words[0] ?? "";
  if (name === "corepack") {
    const manager = /^(?:npm|npx|pnpm|pnpx|yarn|yarnpkg)(@.*)?$/.exec(first);
    return manager === null
      ? undefined
      : manager[1] === undefined
        ? { kind: "command", start: 0 }
        : { kind: "unclear", reason: `runs ${first}, a version not read` };
  }
  const read = PNPM_OPTIONS(words);
  const start = read.kind === "command" ? read.start : words.findIndex((word) => /^\w/.test(word));
  const command = words[start];
  return command === undefined || PNPM_COMMANDS.has(command)
    ? undefined
    : read.kind === "command"
      ? read
      : { kind: "unclear", reason: `options before ${command} are not read` };
}

/** pnpm's options before its command (pnpm 10's help). */
const PNPM_OPTIONS = options(
  "-rwsC:F: --recursive --workspace-root --silent --parallel --stream --aggregate-output " +
    "--if-present --no-bail --bail --sort --no-sort --reverse --use-stderr --color --no-color " +
    "--dir= --filter= --filter-prod= --reporter= --loglevel= --workspace-concurrency= " +
    "--resume-from= --changed-files-ignore-pattern= --test-pattern= --fail-if-no-match",
);

/**
 * go's flags by their exact names (`go help build`, `go help testflag`, go 1.24): go's flag
 * package takes one dash or two, the value after `=` or in the next word, and no start of a
 * name (`-cover` is not `-coverprofile`, `-mod=mod` not `-modfile`); the test binary takes its
 * own spelling `-test.<name>` (after `-args` too). `>`: writes the file or folder named (`-c`
 * the test binary; `-fuzz` the failing inputs it finds, in the package's `testdata/fuzz`, unless
 * its pattern is empty); `!`: runs the program named, or builds other code than the folder's own
 * (`-C dir`, another `-modfile`, `-overlay`'s files, a `-pgo` profile but `auto` and `off`).
 */
const GO_FLAGS = new Map(
  (
    "o> c> output> coverprofile> cpuprofile> memprofile> blockprofile> mutexprofile> trace> " +
    "outputdir> pkgdir> gocoverdir> testlogfile> fuzzcachedir> fuzz> exec! toolexec! vettool! C! " +
    "modfile! overlay! pgo!"
  )
    .split(" ")
    .map((entry) => [entry.slice(0, -1), entry.slice(-1)]),
);
/** The linker's and compiler's own flags, given through `-ldflags` and the like, that run or write. */
const GO_TOOL_FLAG =
  /(?:^|[\s='"])-(?:(extld|extar)|cpuprofile|memprofile|traceprofile|blockprofile|mutexprofile|o|tmpdir|bench)(?=[\s='"]|$)/;

/**
 * What go's flags among `words` (the words after `go`; any word, as a package's or test's
 * arguments may be read by go or the test binary) do: why one runs a program or builds other
 * code (see {@link GO_FLAGS}), and whether one writes a file, as `go env -w`/`-u` writes go's
 * settings file.
 */
export function goFlagEffects(words: readonly string[]): { runs?: string; writes: boolean } {
  const effects: { runs?: string; writes: boolean } = {
    writes: words[0] === "env" && words.some((word) => /^--?[wu](?:=|$)/.test(word)),
  };
  for (const [index, word] of words.entries()) {
    const flag = /^--?(?:test\.)?([^-=][^=]*)(?:=(.*))?$/s.exec(word);
    const value = flag?.[2] ?? words[index + 1] ?? "";
    const kind = GO_FLAGS.get(flag?.[1] ?? "");
    const toolFlag = /^(?:gc|ld|asm|gccgo)flags$/.test(flag?.[1] ?? "")
      ? GO_TOOL_FLAG.exec(value)
      : null;
    if (kind === "!" && !(flag?.[1] === "pgo" && /^(?:auto|off|)$/.test(value))) {
      effects.runs ??= `go ${word} runs a program or builds other code`;
    } else if (toolFlag?.[1] !== undefined) {
      effects.runs ??= `go ${word} runs a program`;
    }
    const harmless = HARMLESS_TARGETS.has(value) || (flag?.[1] === "fuzz" && value === "");
    effects.writes ||= (kind === ">" && !harmless) || toolFlag !== null;
  }
  return effects;
}

/** `make VAR='rm x'`: a variable given a command line may be a recipe's program (`CC`, `SHELL`). */
export function makeRunningProgram(name: string, words: readonly string[]): string | undefined {
  if (name !== "make" && name !== "gmake") {
    return undefined;
  }
  const assignment = words.find((word) =>
    /^(?:SHELL|\.SHELLFLAGS|MAKESHELL|MAKEFILES|MAKEFLAGS|MFLAGS)=|^[A-Za-z_][\w.]*=.*[\s;&|`$<>()]/.test(
      word,
    ),
  );
  return assignment === undefined ? undefined : `make ${assignment} may run a program`;
}

/**
 * Package managers' long options whose value is a folder or file they write (npm 11's `npm help
 * config`, pnpm 10's, yarn 1's and bun 1's help); npm and pnpm read any start of a name, as nopt
 * does, yarn and bun only whole names.
 */
const PACKAGE_MANAGER_WRITING: Readonly<Record<string, readonly string[]>> = {
  npm: ["cache", "logs-dir"],
  pnpm: [
    ..."store-dir cache-dir state-dir modules-dir global-dir global-bin-dir".split(" "),
    ..."virtual-store-dir lockfile-dir".split(" "),
  ],
  bun: ["cache-dir"],
  yarn: [
    "cache-folder",
    "modules-folder",
    "global-folder",
    "link-folder",
    "preferred-cache-folder",
  ],
};
/** Their commands that write their settings or package.json (`npm config set`, `npm pkg set`). */
const SETTING_COMMAND =
  /^set\b|(?:^| )(?:(?:config|c) (?:set|delete|unset|edit|fix)|pkg (?:set|delete|fix))\b/;

/**
 * Whether the package manager `name words…` (npm, npx, pnpm, pnpx, yarn, yarnpkg, bun, bunx) writes a folder
 * or file its options name ({@link PACKAGE_MANAGER_WRITING}: `npm test --cache /x`) or its
 * settings ({@link SETTING_COMMAND}), which a prefix rule (`bash(npm test *)`) must not cover.
 */
export function packageManagerWrites(name: string, words: readonly string[]): boolean {
  const manager = name.replace(/^(npm|pnpm|yarn|bun)(?:x|pkg)$/, "$1");
  const names = PACKAGE_MANAGER_WRITING[manager] ?? [];
  const end = words.indexOf("--");
  const options = end === -1 ? words : words.slice(0, end);
  const operands = options.filter((word) => !word.startsWith("-")).join(" ");
  return (
    (names.length > 0 && SETTING_COMMAND.test(operands)) ||
    options.some((word) => {
      const long = /^--([^=]+)/.exec(word)?.[1] ?? "";
      return manager === "yarn" || manager === "bun"
        ? names.includes(long)
        : long.length >= 3 && names.some((option) => option.startsWith(long));
    })
  );
}

/**
 * Why `xargs words…` runs a command made of its input, or undefined (xargs(1)). With `-I R`,
 * `-i[R]` or `--replace[=R]` (R `{}` by default) each input line replaces R in the words, so R in
 * the name of a command it runs or in a script (`xargs -I% env % x`, `xargs -I{} sh -c {}`) runs
 * the input; without, the input is appended, so a wrapper, shell or package runner left without
 * its command or script (`xargs env`, `xargs sh -c`, `xargs sudo`, `xargs watch ls`) runs it.
 */
export function xargsInputConcern(words: readonly string[]): string | undefined {
  const start = WRAPPERS.get("xargs")?.(words);
  if (start?.kind !== "command") {
    return undefined;
  }
  const replace = replaceString(words.slice(0, start.start));
  let rest = words.slice(start.start);
  for (let peeled = 0; peeled < 16; peeled++) {
    const [name, ...tail] = rest;
    if (name === undefined) {
      return peeled > 0 && replace === undefined ? "xargs runs its input as a command" : undefined;
    }
    if (replace !== undefined && name.includes(replace)) {
      return `xargs puts its input in the command name ${name}`;
    }
    const base = baseName(name);
    const inner = SHELL_NAME.test(base)
      ? shellScript(tail)
      : (readWrapper(base, tail) ?? readPackageRunner(base, tail) ?? findCommand(base, tail));
    if (inner?.kind === "command") {
      rest = tail.slice(inner.start);
      continue;
    }
    // A shell's or wrapper's script is one word, but watch's, sg's and npm explore's join theirs.
    const spec = WRAPPER_SPECS[base] ?? WRAPPER_SPECS[`${base} ${tail[0] ?? ""}`] ?? "";
    const joined = /\bjoined\b/.test(spec);
    const script = inner?.kind === "script" ? tail.slice(inner.index) : undefined;
    const concern =
      replace === undefined
        ? inner?.kind === "none" || script?.length === 0 || joined
        : script?.slice(0, joined ? undefined : 1).some((word) => word.includes(replace)) === true;
    return concern ? `xargs runs its input through ${base}` : undefined;
  }
  return "xargs: wrappers nested too deeply to follow";
}

/** The replace string of xargs's options `words`: `-I R`, `-iR`, `--replace=R`, `{}` alone. */
function replaceString(words: readonly string[]): string | undefined {
  let replace: string | undefined;
  for (const [index, word] of words.entries()) {
    const long = /^--replace(?:=(.*))?$/s.exec(word);
    const short = /^-[0rtpxo]*([IiadELnPsel])(.*)$/s.exec(word);
    if (long !== null) {
      replace = long[1] ?? "{}";
    } else if (short?.[1] === "I") {
      replace = short[2] || words[index + 1];
    } else if (short?.[1] === "i") {
      replace = short[2] || "{}";
    }
  }
  return replace === "" ? undefined : replace;
}

/** Where `sh [options] -c script` has its script (none for a script file or stdin). */
function shellScript(words: readonly string[]): WrapperResult | undefined {
  let command = false;
  for (let index = 0; index < words.length; index++) {
    const word = words[index] ?? "";
    if (/^[-+][oO]$|^--(?:rcfile|init-file)$/.test(word)) {
      index++;
    } else if (/^[-+][A-Za-z]+$/.test(word)) {
      command ||= word.startsWith("-") && word.includes("c");
    } else if (word !== "--" && word !== "-") {
      return command ? { kind: "script", index } : undefined;
    }
  }
  return command ? { kind: "script", index: words.length } : undefined;
}

/** `find … -exec cmd …`: the command `-exec` runs, as a script to look for the input in. */
function findCommand(name: string, words: readonly string[]): WrapperResult | undefined {
  const exec = words.findIndex((word) => /^-(?:exec|execdir|ok|okdir)$/.test(word));
  return /^(?:g?find|bfs)$/.test(name) && exec !== -1
    ? { kind: "script", index: exec + 1 }
    : undefined;
}

/** Shells by name: `sh -c script` runs `script`. */
export const SHELL_NAME = /^(?:bash|sh|dash|zsh|ksh|mksh|ash|rbash|yash|posh|fish|csh|tcsh)$/;

/**
 * The handler `trap [-lp] [--] handler signal…` runs, or undefined for none (bash(1): `-l`, `-p`
 * print, a `-` handler resets); `--` ends its options.
 */
export function trapHandler<Word extends { text: string }>(
  words: readonly Word[],
): Word | undefined {
  const start = words[0]?.text === "--" ? 1 : 0;
  const handler = words[start];
  const none = handler === undefined || handler.text === "-";
  return none || (start === 0 && handler.text.startsWith("-")) ? undefined : handler;
}

/**
 * How `name words…` runs a command when `name` (or `name words[0]`) is a wrapper or a
 * {@link COMMAND_RUNNERS command runner}; undefined for any other program. A computed word
 * before the command (`timeout $o 5 rm`, `flock $(…) f rm`) is unclear: it may be an option or
 * vanish, and so move the command to another word (the session-18 trial).
 */
export function readWrapper(
  name: string,
  tail: readonly (DecodedWord | string)[],
): WrapperResult | undefined {
  const result = wrapperResult(
    name,
    tail.map((word) => (typeof word === "string" ? word : word.text)),
  );
  const end =
    result?.kind === "command"
      ? result.start
      : result?.kind === "script"
        ? result.index
        : tail.length;
  const computed =
    result && tail.slice(0, end).find((word) => typeof word !== "string" && word.computed);
  return computed
    ? {
        kind: "unclear",
        reason: `${name} ${(computed as DecodedWord).text}: a computed word before its command`,
      }
    : result;
}

function wrapperResult(name: string, words: readonly string[]): WrapperResult | undefined {
  const wrapper = WRAPPERS.get(name);
  if (wrapper !== undefined) {
    return wrapper(words);
  }
  const subcommand = `${name} ${words[0] ?? ""}`;
  const subcommandWrapper = WRAPPERS.get(subcommand);
  if (subcommandWrapper !== undefined) {
    return shifted(subcommandWrapper(words.slice(1)), 1);
  }
  if (COMMAND_RUNNERS.has(name) || COMMAND_RUNNERS.has(subcommand)) {
    return { kind: "unclear", reason: "runs a command in a syntax that is not read" };
  }
  // Global options before the subcommand (`kubectl -n x exec …`, `ip -all netns exec …`).
  const later = words.find(
    (word) => WRAPPERS.has(`${name} ${word}`) || COMMAND_RUNNERS.has(`${name} ${word}`),
  );
  return words[0]?.startsWith("-") === true && later !== undefined
    ? { kind: "unclear", reason: `options before ${later} are not read` }
    : undefined;
}
