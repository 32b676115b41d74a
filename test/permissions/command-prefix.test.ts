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
    ["gh pr view 12 --web", "gh pr view *", []],
    ["rm -rf build", "rm *", []],
    ["ls", "ls *", []],
    ["/usr/bin/git log --oneline", "git log *", []],
    ['echo "hello"', "echo *", []],
    ["cat $HOME", "cat *", []],
    ["ls *.ts", "ls *", []],
    // Every other part of a compound command keeps asking unless the prefix covers it.
    ["npm test && rm -rf dist", "npm test *", ["rm -rf dist"]],
    ["npx tape a.js; npx tape b.js", "npx tape *", []],
    ["cd src && git status", "cd src *", ["git status"]],
    ["cd ../lib && npm test", "cd *", ["npm test"]],
    // None for a command that starts with a compound command it cannot name: its first simple
    // command may be nested in it (trial of session 24, #6: `for …` offered `bash(seq *)`).
    ["for i in $(seq 1 3); do echo $i; done", undefined, []],
    ["while true; do date; done", undefined, []],
    ["if [ -f x ]; then cat x; fi", undefined, []],
    ["(cd src && make)", undefined, []],
    ["{ date; ls; }", undefined, []],
    ["forward --all", "forward *", []],
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
    // An interpreter's prefix keeps its script or module, since `node *` would allow `node -e …`
    // (session-16 trial, 16); none when an option or code comes first.
    ["node script.js", "node script.js *", []],
    ["node scripts/x.js --watch", "node scripts/x.js *", []],
    ["python3 x.py", "python3 x.py *", []],
    ["python3 -m pytest -x", "python3 -m pytest *", []],
    ["java -jar app.jar serve", "java -jar app.jar *", []],
    ["deno run x.ts", "deno run x.ts *", []],
    ["bun run build", "bun run build *", []],
    ["perl tools/gen.pl", "perl tools/gen.pl *", []],
    ["node -e 'console.log(1)'", undefined, []],
    ["python3 -c 'print(1)'", undefined, []],
    ["deno eval 1", undefined, []],
    ["ruby -e 1", undefined, []],
    ["awk '{print $1}' f.txt", undefined, []],
    ["node", undefined, []],
    // Nor for a container runner: `docker run *` allows any command in any container.
    ["docker run --rm img ls", undefined, []],
    ["docker compose run web bash", undefined, []],
    ["podman run img", undefined, []],
    ["kubectl run tmp --image=busybox", undefined, []],
    ["docker compose up -d", "docker compose up *", []],
    // A package runner: its words as written and the prefix of what it runs (eslint through npx);
    // none when what it runs gets none, or runs another command, or for its script (`-c`).
    ["npx eslint --version", "npx eslint *", []],
    ["npm exec -- eslint --fix", "npm exec -- eslint *", []],
    ["npx -y cowsay hi", "npx -y cowsay hi *", []],
    ["pnpm dlx create-vite my-app", "pnpm dlx create-vite my-app *", []],
    ["npx tsx scripts/x.ts", "npx tsx scripts/x.ts *", []],
    ["npx node -e 1", undefined, []],
    ["npx sudo rm x", undefined, []],
    ["npx bash -c 'npm test'", undefined, []],
    ["npx -c 'eslint .'", undefined, []],
    ["npm exec --call 'eslint .'", undefined, []],
    ["npx", undefined, []],
    // Nor for git's options that run a program, nor writers on a writing spelling (session-16
    // trial, 1 and 6); the read-only spelling's prefix does not cover the writing one.
    ["git clone -u 'x' /src", undefined, []],
    ["git difftool -x cat HEAD", undefined, []],
    ["git archive -o a.tar HEAD", undefined, []],
    ["tar tf a.tar", "tar tf *", []],
    ["tar -tf a.tar", "tar *", []],
    ["tar xf a.tar", undefined, []],
    // None for a command that sets variables: the prefix would not cover it (trial finding 19).
    ["GIT_DIR=x git status", undefined, []],
    ["LC_ALL=C git status", "git status *", []],
    ["npm test && export A=1", "npm test *", ["export A=1"]],
    // Programs that run commands from their input or files (session-18 brief, #3 and #4): no
    // prefix, since any would cover `.shell`, `\!`, `:!`, `-E env`, `exec:exec`, `-C cmd`.
    ["sqlite3 app.db 'select 1'", undefined, []],
    ["psql -c 'select 1'", undefined, []],
    ["mysql -e 'select 1'", undefined, []],
    ["vim notes.txt", undefined, []],
    ["nvim notes.txt", undefined, []],
    ["vi notes.txt", undefined, []],
    ["cmake --build build", undefined, []],
    ["cmake -E echo hi", undefined, []],
    ["mvn test", undefined, []],
    ["compgen -c", undefined, []],
    ["mongosh app", undefined, []],
    ["redis-cli get k", undefined, []],
    // Interpreters and REPLs keep their script (session-18 trial): `ipython *` allows `ipython -c`.
    ["ipython x.py", "ipython x.py *", []],
    ["ipython3 -c 'print(1)'", undefined, []],
    ["irb x.rb", "irb x.rb *", []],
    ["lua5.4 x.lua", "lua5.4 x.lua *", []],
    ["octave-cli x.m", "octave-cli x.m *", []],
    ["ansible-playbook site.yml", "ansible-playbook site.yml *", []],
    ["zig run x.zig", "zig run x.zig *", []],
    // make keeps its target (`make *` runs any recipe), go run its package, as an interpreter
    // keeps its script; none without one.
    ["make test", "make test *", []],
    ["make build/app.o", "make build/app.o *", []],
    ["make", undefined, []],
    ["make CC=gcc all", undefined, []],
    ["make -j4 test", undefined, []],
    ["go run ./cmd/server --port 8", "go run ./cmd/server *", []],
    ["go run main.go", "go run main.go *", []],
    ["go run -race .", undefined, []],
    ["go run", undefined, []],
    ["go test ./...", "go test *", []],
    // A script run by its path keeps the path as written, never the bare name.
    ["./x.sh --fast", "./x.sh *", []],
    ["./scripts/build.sh release", "./scripts/build.sh release *", []],
    ["bin/tool --help && ./x.sh", "bin/tool *", ["./x.sh"]],
    ["/usr/bin/git status", "git status *", []],
    // Writers (#5) and runners (#1–#3) get none.
    ["zip out.zip a.txt", undefined, []],
    ["gcc x.c", undefined, []],
    ["strip app", undefined, []],
    ["python3 -m json.tool in.json out.json", undefined, []],
    ["python3 -m json.tool in.json", "python3 -m json.tool *", []],
    ["curl --stderr err.txt https://example.invalid", undefined, []],
    ["xargs -0 rm", undefined, []],
    ["timeout -- 5 npm test", undefined, []],
    ["cmake -E env A=1 npm test", undefined, []],
    ["rg --pre cat x", undefined, []],
    ["pnpm eslint .", "pnpm eslint *", []],
    ["pnpm install", "pnpm install *", []],
    ["corepack pnpm install", "corepack pnpm install *", []],
  ])("%s → %s", (command, pattern, notCovered) => {
    expect(commandPrefix(command)).toEqual(
      pattern === undefined ? undefined : { pattern, notCovered },
    );
  });

  test("bash -c 'script' is judged by the script it runs", () => {
    expect(commandPrefix("bash -c 'npm test'")).toEqual({ pattern: "npm test *", notCovered: [] });
  });
});
