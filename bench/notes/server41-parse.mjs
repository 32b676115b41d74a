// Session 41 (bench/notes/server41.md): node bench/notes/server41-parse.mjs
// CPU per call of mvdan-sh's NewParser, of a new parser's parse of a short command, and of one
// kept parser's parse (3,000 calls each after 300 to warm up).
import { createRequire } from "node:module";

const require = createRequire(new URL("../../package.json", import.meta.url));
const { syntax } = require("mvdan-sh");
const calls = 3000;

function time(label, call) {
  for (let index = 0; index < 300; index++) {
    call(index);
  }
  const start = process.cpuUsage();
  for (let index = 0; index < calls; index++) {
    call(index);
  }
  const used = process.cpuUsage(start);
  console.log(`${label}: ${((used.user + used.system) / calls).toFixed(1)} µs`);
}

time("NewParser", () => syntax.NewParser());
time("NewParser and Parse", (index) =>
  syntax.NewParser().Parse(`npx vitest run test/a${index}.test.ts`, ""),
);
const parser = syntax.NewParser();
time("a kept parser's Parse", (index) => parser.Parse(`npx vitest run test/a${index}.test.ts`, ""));
