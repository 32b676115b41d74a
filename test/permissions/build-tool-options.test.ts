import { describe, expect, test } from "vitest";
import { parseRules } from "../../src/permissions/permission-decision.js";
import { bashDecisions, type Decision, denyRm } from "./bash-decision.js";

/**
 * Session 19's brief, #1 and #2: a prefix grant (`bash(go test *)`, `bash(npm test *)`) covered
 * calls whose options write a file or folder they name, run a program, or build another
 * module's code. Such calls need the exact rule or a question, as the other writers do; the
 * ordinary calls of the same programs stay covered. go's flags match by exact name (one dash or
 * two, `-f=v` or `-f v`): `-cover` is not `-coverprofile`, `-mod=mod` not `-modfile`.
 */
const decide = bashDecisions("build-tool-options");

function underRule(rule: string): (command: string) => Promise<Decision> {
  return (command) => decide(command, { allow: parseRules([rule]) });
}

describe("go's flags that write, run or build other code (#1)", () => {
  const goTest = underRule("bash(go test *)");
  test.each<string>([
    "go test -coverprofile=c.out ./...",
    "go test -coverprofile c.out ./...",
    "go test --coverprofile=c.out ./...",
    "go test -cpuprofile cpu.out",
    "go test -memprofile=mem.out",
    "go test -blockprofile b.out",
    "go test -mutexprofile=m.out",
    "go test -trace t.out",
    "go test -outputdir /tmp/d -cpuprofile c",
    "go test -o /tmp/t.test",
    "go test -c ./pkg",
    "go test -pkgdir /tmp/p ./...",
    "go test -test.coverprofile=c.out",
    "go test -test.cpuprofile c.out",
    "go test ./... -args -test.memprofile=m.out",
    "go test ./... -coverprofile=c.out",
    "go test -gcflags=-cpuprofile=/tmp/p ./...",
    "go test -ldflags '-tmpdir /tmp/x' ./...",
    // Round 3, session 20: fuzzing writes the failing inputs it finds to testdata/fuzz.
    "go test -fuzz=FuzzParse ./pkg",
    "go test -fuzz FuzzParse -fuzztime 10s ./pkg",
    "go test --fuzz=. ./pkg",
    "go test ./pkg -args -test.fuzz=FuzzParse",
  ])("%j writes: asked under bash(go test *)", async (command) => {
    expect(await goTest(command)).toBe("asked");
  });
  test.each<string>([
    "go test -exec /tmp/x.sh ./...",
    "go test --exec=/tmp/x.sh ./...",
    "go test -toolexec=/tmp/x.sh ./...",
    "go test -vettool /tmp/x ./...",
    "go test -C /tmp/other ./...",
    "go test -C=/tmp/other ./...",
    "go test -modfile=/tmp/go.mod ./...",
    "go test -modfile /tmp/go.mod ./...",
    "go test -overlay=/tmp/o.json ./...",
    "go test -pgo=/tmp/p.pprof ./...",
    "go test -ldflags=-extld=/tmp/x.sh ./...",
  ])("%j runs a program or other code: asked under bash(go test *)", async (command) => {
    expect(await goTest(command)).toBe("asked");
  });
  test.each<[string, string]>([
    ["bash(go build *)", "go build -o /tmp/app ."],
    ["bash(go build *)", "go build -pkgdir=/tmp/p ./..."],
    ["bash(go build *)", "go build -C /tmp/other ."],
    ["bash(go build *)", "go build -overlay /tmp/o.json ."],
    ["bash(go vet *)", "go vet -vettool=/tmp/x ./..."],
    ["bash(go vet *)", "go vet -modfile=/tmp/go.mod ./..."],
    ["bash(go run ./cmd/x *)", "go run -exec /tmp/x.sh ./cmd/x"],
    ["bash(go run ./cmd/x *)", "go run ./cmd/x -cpuprofile=/tmp/p"],
    ["bash(go install *)", "go install -toolexec /tmp/x ./..."],
    ["bash(go install *)", "go install -C /tmp/other ./..."],
    ["bash(go list *)", "go list -json -modfile=/tmp/go.mod ./..."],
    ["bash(go list *)", "go list -json -overlay=/tmp/o.json ./..."],
    ["bash(go list *)", "go list -C /tmp/other -json ./..."],
    ["bash(go env *)", "go env -w GOFLAGS=-toolexec=/tmp/x"],
    ["bash(go env *)", "go env -u GOFLAGS"],
    ["bash(go tool *)", "go tool cover -html=c.out -o /tmp/c.html"],
  ])("under %s, %j is asked", async (rule, command) => {
    expect(await underRule(rule)(command)).toBe("asked");
  });
  test.each<string>([
    "go test ./...",
    "go test -cover ./...",
    "go test -covermode=atomic -coverpkg=./... ./...",
    "go test -mod=mod ./...",
    "go test -mod vendor ./...",
    "go test -race -count=1 -run TestX -v ./...",
    "go test -json ./...",
    "go test -memprofilerate=1 -bench=. ./...",
    "go test -pgo=auto ./...",
    "go test -pgo=off ./...",
    "go test -o /dev/null ./...",
    "go test -tags integration -timeout 5m ./...",
    "go test -ldflags='-s -w -X main.v=1' ./...",
    "go test -gcflags=all=-N ./...",
    "go test ./... -args -test.v",
    "go test -fuzztime=10s -fuzzminimizetime 1s ./...",
  ])("%j stays covered by bash(go test *)", async (command) => {
    expect(await goTest(command)).toBe("allowed");
  });
  test.each<[string, string]>([
    ["bash(go list *)", "go list -json ./..."],
    ["bash(go list *)", "go list -m -json all"],
    ["bash(go env *)", "go env GOPATH"],
    ["bash(go vet *)", "go vet ./..."],
    ["bash(go build *)", "go build ./..."],
  ])("under %s, %j is allowed", async (rule, command) => {
    expect(await underRule(rule)(command)).toBe("allowed");
  });
  test("the exact rule covers a writing call", async () => {
    const command = "go test -coverprofile=c.out ./...";
    expect(await underRule(`bash(${command})`)(command)).toBe("allowed");
  });
  test.each<[string, Decision]>([
    ["go test -exec rm ./...", "denied"],
    ["go test -C /tmp/other ./...", "asked"],
    ["go test -coverprofile=c.out ./...", "allowed"],
    ["go test -cover ./...", "allowed"],
  ])("under --allow-all-tools --deny-tool 'bash(rm *)', %j is %s", async (command, expected) => {
    expect(await decide(command, denyRm)).toBe(expected);
  });
});

describe("package managers' options that name a folder they write, and their settings (#2)", () => {
  test.each<[string, string]>([
    ["bash(npm test *)", "npm test --cache /tmp/c"],
    ["bash(npm test *)", "npm test --cache=/tmp/c"],
    ["bash(npm test *)", "npm test --cach=/tmp/c"],
    ["bash(npm test *)", "npm test --logs-dir /tmp/l"],
    ["bash(npm test *)", "npm --logs-dir=/tmp/l test"],
    ["bash(npm test *)", "npm test -C /tmp/other"],
    ["bash(npm test *)", "npm test --git=/tmp/x.sh"],
    ["bash(npm run *)", "npm run build --cache /tmp/c"],
    ["bash(npx tape *)", "npx --cache /tmp/c tape x"],
    ["bash(npm exec *)", "npm exec --prefix /tmp/other -- eslint"],
    ["bash(pnpm test *)", "pnpm test --store-dir /tmp/s"],
    ["bash(pnpm test *)", "pnpm test --cache-dir=/tmp/c"],
    ["bash(pnpm test *)", "pnpm test --modules-dir /tmp/m"],
    ["bash(pnpm test *)", "pnpm test --global-dir /tmp/g"],
    ["bash(pnpm test *)", "pnpm test --virtual-store-dir=/tmp/v"],
    ["bash(pnpm test *)", "pnpm test --state-dir /tmp/s"],
    ["bash(pnpm test *)", "pnpm test --store /tmp/s"],
    ["bash(pnpm test *)", "pnpm test -C /tmp/other"],
    ["bash(pnpm test *)", "pnpm test --config.script-shell=/tmp/x.sh"],
    ["bash(pnpm install *)", "pnpm install --lockfile-dir /tmp/l"],
    ["bash(yarn test *)", "yarn test --cache-folder /tmp/c"],
    ["bash(yarn test *)", "yarn test --modules-folder /tmp/m"],
    ["bash(yarn install *)", "yarn install --global-folder=/tmp/g"],
    ["bash(yarn test *)", "yarn test --cwd /tmp/other"],
    ["bash(npm config *)", "npm config set script-shell /tmp/x.sh"],
    ["bash(npm config *)", "npm config delete script-shell"],
    ["bash(npm config *)", "npm config edit"],
    ["bash(npm c *)", "npm c set script-shell=/tmp/x.sh"],
    ["bash(npm set *)", "npm set script-shell=/tmp/x.sh"],
    ["bash(npm pkg *)", "npm pkg set scripts.test='rm -rf x'"],
    ["bash(pnpm config *)", "pnpm config set store-dir /tmp/s"],
    ["bash(yarn config *)", "yarn config set cacheFolder /tmp/c"],
    // Round 3, session 20: bun's folder options, read as yarn's --cwd and pnpm's --cache-dir.
    ["bash(bun test *)", "bun test --cwd /tmp/other"],
    ["bash(bun run *)", "bun run --cwd=/tmp/other build"],
    ["bash(bun install *)", "bun install --cwd /tmp/other"],
    ["bash(bun install *)", "bun install --cache-dir /tmp/c"],
    ["bash(bun install *)", "bun install --cache-dir=/tmp/c"],
    ["bash(bun add *)", "bun add left-pad --cache-dir /tmp/c"],
  ])("under %s, %j is asked", async (rule, command) => {
    expect(await underRule(rule)(command)).toBe("asked");
  });
  test.each<[string, string]>([
    ["bash(npm test *)", "npm test"],
    ["bash(npm test *)", "npm test -- --coverage"],
    ["bash(npm test *)", "npm test -- --cache /tmp/c"],
    ["bash(npm test *)", "npm test --silent"],
    ["bash(npm run *)", "npm run build --if-present"],
    ["bash(pnpm test *)", "pnpm test --filter web"],
    ["bash(yarn test *)", "yarn test --watch"],
    ["bash(npm config *)", "npm config get registry"],
    ["bash(npm config *)", "npm config list"],
    ["bash(npm pkg *)", "npm pkg get name"],
    ["bash(npm exec *)", "npm exec -- eslint ."],
    ["bash(bun test *)", "bun test --watch"],
    ["bash(bun install *)", "bun install --frozen-lockfile"],
    ["bash(bun run *)", "bun run build -- --cwd /tmp/other"],
  ])("under %s, %j is allowed", async (rule, command) => {
    expect(await underRule(rule)(command)).toBe("allowed");
  });
});
