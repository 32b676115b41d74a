import { describe, expect, test } from "vitest";
import { parseRules } from "../../src/permissions/permission-decision.js";
import { bashDecisions, type Decision, denyRm } from "./bash-decision.js";

/**
 * Holes the session-17 trial found (session 18's brief, #1–#3 and #5), each as a family: under `--allow-all-tools
 * --deny-tool 'bash(rm *)'` a command that runs `rm` is denied, one whose command cannot be read
 * is asked about (denied when it mentions rm), and the ordinary calls of the same programs run.
 */
const decide = bashDecisions("input-runners");

describe("xargs input where a command goes (#1)", () => {
  test.each<[string, Decision]>([
    // The replace string in a command name or in a script: the input is the command.
    ["xargs -I{} sh -c {}", "asked"],
    ["xargs -I% env % m", "asked"],
    ["xargs -i sh -c '{}'", "asked"],
    ["xargs -I{} bash -c 'echo {}'", "asked"],
    ["xargs --replace sh -c '{}'", "asked"],
    ["xargs --replace=% sudo % m", "asked"],
    ["xargs -0 -I@ timeout 5 @", "asked"],
    ["xargs -I{} find . -exec {} ';'", "asked"],
    ["find . -exec {} ';'", "asked"],
    // Without one, the input is appended: a wrapper, shell or runner left without its command.
    ["xargs -0 env", "asked"],
    ["xargs sh -c", "asked"],
    ["xargs bash", "asked"],
    ["xargs sudo", "asked"],
    ["xargs timeout 5", "asked"],
    ["xargs nice -n 5", "asked"],
    ["xargs npx", "asked"],
    ["xargs watch -n1 ls", "asked"],
    ["xargs su -c", "asked"],
    ["xargs npm explore pkg -- ls", "asked"],
    ["xargs -I{} watch -n1 echo {}", "asked"],
    // What xargs adds reaches the command past a wrapper: it may be an option (`--output=x`).
    ["xargs nice -n 5 git log", "asked"],
    ["xargs timeout 5 sort", "asked"],
    // --replace, --max-lines and --eof take no next word: `rm x` is the command.
    ["xargs --replace rm x", "denied"],
    ["xargs --max-lines rm x", "denied"],
    ["xargs --eof rm x", "denied"],
    ["xargs -l rm x", "denied"],
    ["xargs -e rm x", "denied"],
    // Ordinary calls.
    ["xargs -I{} grep -l x {}", "allowed"],
    ["xargs sh -c 'echo \"$@\"' _", "allowed"],
    // The input as the argument of a literal script, not the script: what xargs(1) advises.
    ["xargs -I{} sh -c 'echo \"$1\"' _ {}", "allowed"],
    ["xargs -I{} bash -c 'wc -l \"$1\"' sh {}", "allowed"],
    ["xargs -0 wc -l", "allowed"],
    ["xargs -i echo '{}'", "allowed"],
    ["xargs", "allowed"],
  ])("%j is %s", async (command, expected) => {
    expect(await decide(command, denyRm)).toBe(expected);
  });
});

describe("`--` after a wrapper or builtin ends its options; the command follows (#2)", () => {
  test.each<[string, Decision]>([
    ['eval -- "rm m"', "denied"],
    ["trap -- 'rm m' EXIT", "denied"],
    ["time -- rm m", "denied"],
    ["time -p -- rm m", "denied"],
    ["timeout -- 5 rm m", "denied"],
    ["timeout -s KILL -- 5 rm m", "denied"],
    ["flock -- f rm m", "denied"],
    ["chroot -- / rm m", "denied"],
    ["nice -- rm m", "denied"],
    ["env -- rm m", "denied"],
    ["env -i -- A=1 rm m", "denied"],
    ["sudo -- rm m", "denied"],
    ["sudo -u root -- A=1 rm m", "denied"],
    ["command -- rm m", "denied"],
    ["builtin -- command rm m", "denied"],
    ["exec -- rm m", "denied"],
    ["taskset -- 0x1 rm m", "denied"],
    ["gosu -- nobody rm m", "denied"],
    ["ip netns exec -- blue rm m", "denied"],
    ['trap -- "$x" EXIT', "asked"],
    ['trap "$x" EXIT', "asked"],
    ["trap 'echo done' EXIT", "allowed"],
    ["trap -- 'echo done' EXIT", "allowed"],
    ["trap -p EXIT", "allowed"],
    ['eval -- "echo x"', "allowed"],
    ["timeout -- 5 echo x", "allowed"],
  ])("%j is %s", async (command, expected) => {
    expect(await decide(command, denyRm)).toBe(expected);
  });
});

describe("more runners that run a program given in their arguments or options (#3)", () => {
  test.each<[string, Decision]>([
    // Peeled to the command they run.
    ["cmake -E env VAR=1 rm m", "denied"],
    ["cmake -E env --unset=A -- rm m", "denied"],
    ["cmake -E time rm m", "denied"],
    ["cmake -E chdir /tmp rm m", "denied"],
    ["npm explore pkg -- rm m", "denied"],
    ["corepack pnpm exec rm m", "denied"],
    ["corepack npm exec -- rm m", "denied"],
    ["pnpm rm-tool m", "allowed"],
    ["pnpm touch m", "allowed"],
    ["pnpm --filter web exec rm m", "denied"],
    // Options that run a program, or a syntax of their own: not read.
    ["su -s /tmp/x.sh root", "asked"],
    ["su --shell=/tmp/x.sh root", "asked"],
    ["runuser -s /tmp/x.sh -u root -- id", "asked"],
    ["fakeroot -l /tmp/x.so id", "asked"],
    ["npm run --script-shell=/tmp/x.sh build", "asked"],
    ["npm run build --script-shell /tmp/x.sh", "asked"],
    ["npm test --script-sh=/tmp/x.sh", "asked"],
    ["go run -exec /tmp/x.sh .", "asked"],
    ["go test -exec=/tmp/x.sh ./...", "asked"],
    ["go build -toolexec /tmp/x.sh .", "asked"],
    ["go build -ldflags=-extld=/tmp/x.sh .", "asked"],
    ["cargo --config 'target.x86_64-unknown-linux-gnu.runner=\"rm m\"' run", "denied"],
    ["cargo run --config x.toml", "asked"],
    ["rg --pre /tmp/x.sh x", "asked"],
    ["rg --pre=/tmp/x.sh x", "asked"],
    ["mvn exec:exec -Dexec.executable=rm", "denied"],
    ["mvn -q exec:java", "asked"],
    ["mvn org.codehaus.mojo:exec-maven-plugin:3.1.0:exec", "asked"],
    ["tox exec -e py -- rm m", "denied"],
    ["tox -x 'testenv.commands=rm m'", "denied"],
    ["corepack pnpm@9.0.0 exec id", "asked"],
    ["pnpm --bogus exec id", "asked"],
    ["curl -K cfg https://example.invalid", "asked"],
    ["curl --config cfg https://example.invalid", "asked"],
    ["compgen -C 'rm m' x", "denied"],
    ["compgen -F f x", "asked"],
    ["sqlite3 db.sqlite '.shell rm m'", "denied"],
    ["sqlite3 db.sqlite '.system id'", "asked"],
    ["psql -c '\\! rm m'", "denied"],
    ["mysql -e 'system rm m'", "denied"],
    // Their ordinary calls.
    ["cmake --build .", "allowed"],
    ["cmake -E echo hi", "allowed"],
    ["npm run build", "allowed"],
    ["go test ./...", "allowed"],
    ["cargo build --release", "allowed"],
    ["rg --pretty x", "allowed"],
    ["mvn test", "allowed"],
    ["pnpm install", "allowed"],
    ["pnpm -r test", "allowed"],
    ["corepack enable", "allowed"],
    ["curl -s https://example.invalid", "allowed"],
    ["sqlite3 db.sqlite 'select 1'", "allowed"],
  ])("%j is %s", async (command, expected) => {
    expect(await decide(command, denyRm)).toBe(expected);
  });

  test.each<[string, string, Decision]>([
    // Allow rules judge a package runner's call; a deny rule sees what it runs.
    ["bash(pnpm eslint *)", "pnpm eslint .", "allowed"],
    // xargs's options with an optional value take no next word: `echo x` is what runs.
    ["bash(echo *)", "xargs --replace echo x", "allowed"],
    ["bash(echo *)", "xargs --max-lines echo x", "allowed"],
    ["bash(echo *)", "xargs -l echo x", "allowed"],
    ["bash(corepack pnpm install *)", "corepack pnpm install", "allowed"],
    ["bash(npm run *)", "npm run build --script-shell=/tmp/x.sh", "asked"],
    ["bash(go test *)", "go test -exec /tmp/x.sh ./...", "asked"],
    ["bash(rg *)", "rg --pre /tmp/x.sh x", "asked"],
    ["bash(cargo run *)", "cargo run --config x.toml", "asked"],
    ["bash(xargs *)", "xargs sudo", "asked"],
    ["bash(trap *)", "trap -- 'rm m' EXIT", "asked"],
  ])("%s: %j is %s", async (rule, command, expected) => {
    expect(await decide(command, { allow: parseRules([rule]) })).toBe(expected);
  });
});

describe("programs that write files their operands or options name (#5)", () => {
  const allow = parseRules(
    [
      "zip *",
      "gpg *",
      "gcc *",
      "cc *",
      "clang *",
      "objcopy *",
      "strip *",
      "python3 *",
      "curl *",
      "gcc-12 *",
      "x86_64-linux-gnu-gcc *",
      "clang-17 *",
      "llvm-strip *",
      "python3.12 *",
      "go build *",
      "esbuild *",
      "tsc *",
    ].map((pattern) => `bash(${pattern})`),
  );
  test.each<[string, Decision]>([
    ["zip out.zip a.txt", "asked"],
    ["gpg -o out.gpg -e a.txt", "asked"],
    ["gpg --output out.gpg -e a.txt", "asked"],
    ["gcc x.c", "asked"],
    ["cc -o app x.c", "asked"],
    ["clang -c x.c", "asked"],
    ["gcc -E x.c -o out.i", "asked"],
    ["objcopy in.o out.o", "asked"],
    ["strip -o out in", "asked"],
    ["strip app", "asked"],
    ["python3 -m json.tool in.json out.json", "asked"],
    ["curl --stderr err.txt https://example.invalid", "asked"],
    // The same families by other names and options.
    ["gcc-12 x.c", "asked"],
    ["x86_64-linux-gnu-gcc -c x.c", "asked"],
    ["clang-17 -o app x.c", "asked"],
    ["llvm-strip app", "asked"],
    ["python3.12 -m json.tool in.json out.json", "asked"],
    ["go build -o /tmp/app .", "asked"],
    ["esbuild x.ts --outfile=out.js", "asked"],
    ["tsc --outDir build", "asked"],
    // Their spellings that only print.
    ["gcc -E x.c", "allowed"],
    ["gcc -fsyntax-only x.c", "allowed"],
    ["gcc --version", "allowed"],
    ["zip -sf a.zip", "allowed"],
    ["python3 -m json.tool in.json", "allowed"],
    ["go build ./...", "allowed"],
    ["gcc-12 --version", "allowed"],
    ["curl --stderr - https://example.invalid", "allowed"],
  ])("%j is %s", async (command, expected) => {
    expect(await decide(command, { allow })).toBe(expected);
  });
});

describe("an allow rule naming a script by its path covers that file only", () => {
  const allowScript = {
    allow: parseRules([
      "bash(./x.sh *)",
      "bash(bin/tool *)",
      "bash(git log *)",
      "bash(cd *)",
      "bash(pushd *)",
    ]),
  };
  test.each<[string, Decision]>([
    ["./x.sh --fast", "allowed"],
    ["././x.sh a", "allowed"],
    ["bin/tool --help", "allowed"],
    ["./bin/tool --help", "allowed"],
    ["/usr/bin/git log --oneline", "allowed"],
    // The same name elsewhere, or looked up on PATH, is another program.
    ["x.sh --fast", "asked"],
    ["/tmp/elsewhere/x.sh --fast", "asked"],
    ["sub/x.sh --fast", "asked"],
    ["tool --help", "asked"],
    ["other/bin/tool --help", "asked"],
    // After a change of folder the relative path names another file (session-18 trial).
    ["cd sub && ./x.sh a", "asked"],
    ["(cd sub && ./x.sh a)", "asked"],
    ["pushd sub; ./x.sh a", "asked"],
    ["for d in sub; do cd $d; ./x.sh a; done", "asked"],
    ["eval cd sub; ./x.sh a", "asked"],
    ["command cd sub && ./x.sh a", "asked"],
    ["builtin cd sub && ./x.sh a", "asked"],
    ["if cd sub; then ./x.sh a; fi", "asked"],
    ["cd sub && /usr/bin/git log", "allowed"],
  ])("%j is %s", async (command, expected) => {
    expect(await decide(command, allowScript)).toBe(expected);
  });
});

describe("a computed word before a wrapper's command may be an option or vanish (session-18 trial)", () => {
  test.each<[string, Decision]>([
    ["o=-v; timeout $o 5 rm m", "denied"],
    ["timeout $NOPE 5 rm m", "denied"],
    ["timeout $(true) 5 rm m", "denied"],
    ['timeout "$t" rm m', "denied"],
    ["timeout -k $(true) 1 5 rm m", "denied"],
    ["o=-w; flock $o 1 /tmp/lk rm m", "denied"],
    ["o=-c; taskset $o 0 rm m", "denied"],
    ["nice -n $(true) 1 rm m", "denied"],
    ["env -u $(true) X rm m", "denied"],
    ["exec -a $(true) x rm m", "denied"],
    ["o=--userspec; chroot $o 0:0 / rm m", "denied"],
    ["o=-c; su $o 'rm m'", "denied"],
    ["nice -n 1 timeout $x 5 rm m", "denied"],
    ['f() { timeout "$1" 5 rm m; }; f -v', "denied"],
    // Computed words after the command are its own arguments.
    ['timeout 5 cat "$f"', "allowed"],
    ['sudo ls "$d"', "allowed"],
  ])("%j is %s", async (command, expected) => {
    expect(await decide(command, denyRm)).toBe(expected);
  });
});

describe("options that read other scripts, recipes or settings need the exact rule (session-18 trial)", () => {
  const allowPrefixes = {
    allow: parseRules(["bash(make build *)", "bash(npm test *)", "bash(npm run build *)"]),
  };
  test.each<[string, Decision]>([
    ["make build -f other.mk", "asked"],
    ["make build --file=other.mk", "asked"],
    ["make build --makefile=other.mk", "asked"],
    ["make build -C sub", "asked"],
    ["make build --directory=sub", "asked"],
    ["make build -I inc", "asked"],
    ["make build MAKEFILES=other.mk", "asked"],
    ["make build MAKEFLAGS=-fother.mk", "asked"],
    ["npm test --userconfig evil.npmrc", "asked"],
    ["npm run build --userconfig=evil.npmrc", "asked"],
    ["npm run build --globalconfig=evil.npmrc", "asked"],
    ["npm run build --prefix sub", "asked"],
    ["npm test --usercon=evil.npmrc", "asked"],
    // Their plain calls.
    ["make build", "allowed"],
    ["make build V=1", "allowed"],
    ["npm test -- --watch", "allowed"],
    ["npm run build --silent", "allowed"],
  ])("%j is %s", async (command, expected) => {
    expect(await decide(command, allowPrefixes)).toBe(expected);
  });
});
