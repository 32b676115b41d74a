// Session 35 (bench/notes/server35.md): node bench/notes/server35-owners.mjs <server.cpuprofile> [rows]
// Count busy samples of a V8 cpuprofile from the first sample under runSendJob; give each
// to its nearest src/ frame (source maps) and inclusive to named src files.
// With --callers (session 39, bench/notes/server39.md): the nearest frame with its line and the
// sample's own (leaf) function, so a native call (a write, a thread-pool submission) names its
// caller's line.
import { readFileSync } from "node:fs";
import { mapOf } from "./bundle-maps.mjs";

const callers = process.argv.includes("--callers");
const [profilePath, rows] = process.argv.slice(2).filter((one) => one !== "--callers");
const profile = JSON.parse(readFileSync(profilePath, "utf8"));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) {
  for (const c of n.children ?? []) {
    parent.set(c, n.id);
  }
}
const srcCache = new Map();
function srcOf(frame) {
  const key = `${frame.url}:${frame.lineNumber}:${frame.columnNumber}`;
  if (srcCache.has(key)) {
    return srcCache.get(key);
  }
  let result = null;
  if (frame.url.includes("/dist/")) {
    const map = mapOf(frame.url);
    if (map) {
      const pos = map.originalPositionFor({
        line: frame.lineNumber + 1,
        column: frame.columnNumber,
      });
      if (pos.source?.includes("src/") && !pos.source.includes("node_modules")) {
        const line = callers ? `:${pos.line}` : "";
        result = `${pos.source.replace(/.*src\//, "")}${line} ${pos.name ?? frame.functionName}`;
      } else if (pos.source) {
        result =
          "pkg:" +
          pos.source
            .replace(/.*node_modules\//, "")
            .split("/")
            .slice(0, 1)
            .join("/");
      }
    }
  }
  srcCache.set(key, result);
  return result;
}
let started = false;
const self = new Map(),
  nearest = new Map(),
  layer = new Map(),
  incl = new Map();
let busy = 0;
const add = (m, k) => m.set(k, (m.get(k) ?? 0) + 1);
for (const id of profile.samples) {
  const node = nodes.get(id);
  const stack = [];
  for (let at = id; at !== undefined; at = parent.get(at)) {
    stack.push(nodes.get(at).callFrame);
  }
  if (!started) {
    if (stack.some((f) => f.functionName === "runSendJob")) {
      started = true;
    } else {
      continue;
    }
  }
  const name = node.callFrame.functionName;
  if (name === "(idle)" || name === "(root)") {
    continue;
  }
  busy++;
  add(self, `${name || "(anon)"} ${node.callFrame.url.replace(/.*\//, "")}`);
  let near = null;
  let pkg = null;
  const seen = new Set();
  for (const f of stack) {
    const s = srcOf(f);
    if (s && !s.startsWith("pkg:")) {
      if (!near) {
        near = s;
      }
      const file = s.split(" ")[0].split(":")[0];
      if (!seen.has(file)) {
        seen.add(file);
        add(incl, file);
      }
    } else if (s && !pkg && !near) {
      pkg = s;
    }
  }
  if (name === "(garbage collector)") {
    near = "(gc)";
  } else if (name === "(program)") {
    near = "(program)";
  }
  const leaf = callers && !near?.startsWith("(") ? ` <- ${name || "(anon)"}` : "";
  add(
    nearest,
    near
      ? `${near}${leaf}`
      : pkg
        ? `no src: ${pkg}`
        : `no src: ${node.callFrame.url.replace(/.*\//, "") || name}`,
  );
  add(layer, near?.includes("/") ? `${near.split("/")[0]}/` : near ? near.split(" ")[0] : "no src");
}
const top = (m, n) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${((100 * v) / busy).toFixed(1).padStart(5)}% ${v} ${k}`)
    .join("\n");
console.log("busy", busy);
console.log(`== layer\n${top(layer, 25)}`);
console.log(`== nearest src frame\n${top(nearest, Number(rows ?? 45))}`);
console.log(`== inclusive src file\n${top(incl, 40)}`);
console.log(`== self\n${top(self, 25)}`);
