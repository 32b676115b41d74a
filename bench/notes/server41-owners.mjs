// Session 41 (bench/notes/server41.md):
//   node bench/notes/server41-owners.mjs <server.cpuprofile | server.heapprofile> [rows]
// Gives each busy sample of a V8 CPU profile (from the first sample under runSendJob, as
// server35-owners.mjs) or each sampled allocation of a sampling heap profile (bench/
// scale-headless.mjs --allocations, collected objects included) to the owner of its own code: the
// first frame from the leaf up that has a script (a native call such as `fdatasync` goes to the
// JavaScript that called it), named through the bundle's source maps: ours (src/), the AI SDK, a
// package, Node's web streams, Node's fs, other Node internals; `(garbage collector)` and
// `(program)` as V8 names them. Then ours by function (src/ file, the line of the function's
// start, its name): a CPU profile's samples whose leaf frame is itself ours (our JavaScript's own
// time, not the natives it calls), a heap profile's bytes allocated by our code itself and, by
// the nearest src/ frame of every allocation, what of ours made Node or a package allocate.
import { readFileSync } from "node:fs";
import { mapOf } from "./bundle-maps.mjs";

const [profilePath, rows = "15"] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(profilePath, "utf8"));
const owners = new Map();

function ownerOfUrl(frame) {
  const url = frame.url;
  if (url.includes("/dist/")) {
    const pos = mapOf(url)?.originalPositionFor({
      line: frame.lineNumber + 1,
      column: frame.columnNumber,
    });
    if (pos?.source?.includes("src/") && !pos.source.includes("node_modules")) {
      const file = pos.source.replace(/.*src\//, "");
      return { owner: "ours", name: `${file}:${pos.line} ${frame.functionName || "(anon)"}` };
    }
    if (pos?.source) {
      const parts = pos.source.replace(/.*node_modules\//, "").split("/");
      const name = parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
      return { owner: name.startsWith("@ai-sdk") ? "AI SDK" : `package ${name}`, name };
    }
    return { owner: "ours (unmapped)", name: url };
  }
  if (url.startsWith("node:internal/webstreams")) {
    return { owner: "web streams", name: url };
  }
  if (url === "node:fs" || url.startsWith("node:internal/fs")) {
    return { owner: "node:fs", name: url };
  }
  if (url.startsWith("node:")) {
    return { owner: "node, other", name: url };
  }
  return { owner: url === "" ? "native" : "other", name: url || frame.functionName };
}

/** The owner of a frame's code (cached by position). */
function ownerOf(frame) {
  const key = `${frame.url}:${frame.lineNumber}:${frame.columnNumber}`;
  if (!owners.has(key)) {
    owners.set(key, ownerOfUrl(frame));
  }
  return owners.get(key);
}

/** The first frame from the leaf (last) up that has a script, or undefined. */
function leafWithScript(stack) {
  for (let index = stack.length - 1; index >= 0; index--) {
    if (stack[index].url !== "") {
      return stack[index];
    }
  }
  return undefined;
}

const add = (map, key, value = 1) => map.set(key, (map.get(key) ?? 0) + value);

function table(map, total, count, unit) {
  return [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(
      ([key, value]) => `${((100 * value) / total).toFixed(1).padStart(5)}% ${unit(value)} ${key}`,
    )
    .join("\n");
}

function cpuProfile() {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) {
      parent.set(child, node.id);
    }
  }
  const stackOf = (id) => {
    const stack = [];
    for (let at = id; at !== undefined; at = parent.get(at)) {
      stack.unshift(nodes.get(at).callFrame);
    }
    return stack;
  };
  const byOwner = new Map();
  const nodeOther = new Map();
  const ours = new Map();
  let busy = 0;
  let started = false;
  for (const id of profile.samples) {
    const stack = stackOf(id);
    started ||= stack.some((frame) => frame.functionName === "runSendJob");
    const name = stack.at(-1).functionName;
    if (!started || name === "(idle)" || name === "(root)") {
      continue;
    }
    busy++;
    if (name === "(garbage collector)" || name === "(program)") {
      add(byOwner, name);
      continue;
    }
    const leaf = leafWithScript(stack);
    const owner = leaf === undefined ? { owner: `native (${name})` } : ownerOf(leaf);
    add(byOwner, owner.owner);
    if (owner.owner === "node, other") {
      add(nodeOther, owner.name);
    }
    if (owner.owner === "ours" && leaf === stack.at(-1)) {
      add(ours, owner.name);
    }
  }
  const samples = (value) => String(value);
  console.log(`busy samples ${busy}`);
  console.log(`== owner of the leaf's code\n${table(byOwner, busy, 20, samples)}`);
  console.log(`== node, other, by script\n${table(nodeOther, busy, 12, samples)}`);
  console.log(
    `== self time of ours (leaf frame in src/)\n${table(ours, busy, Number(rows), samples)}`,
  );
}

function heapProfile() {
  const byOwner = new Map();
  const ours = new Map();
  const nearest = new Map();
  let total = 0;
  const walk = (node, stack) => {
    const here = [...stack, node.callFrame];
    const bytes = node.selfSize ?? 0;
    if (bytes > 0) {
      total += bytes;
      const leaf = leafWithScript(here);
      const owner = leaf === undefined ? { owner: "native" } : ownerOf(leaf);
      add(byOwner, owner.owner, bytes);
      if (owner.owner === "ours") {
        add(ours, owner.name, bytes);
      }
      const near = here.findLast((frame) => frame.url !== "" && ownerOf(frame).owner === "ours");
      if (near !== undefined) {
        const via = owner.owner === "ours" ? "" : ` -> ${owner.owner}`;
        add(nearest, `${ownerOf(near).name}${via}`, bytes);
      }
    }
    for (const child of node.children ?? []) {
      walk(child, here);
    }
  };
  walk(profile.head, []);
  const mebibytes = (value) => `${(value / 1048576).toFixed(1).padStart(6)} MiB`;
  console.log(`sampled ${mebibytes(total)}`);
  console.log(`== owner of the allocating code\n${table(byOwner, total, 12, mebibytes)}`);
  console.log(`== allocated by ours itself\n${table(ours, total, Number(rows), mebibytes)}`);
  console.log(
    `== nearest src/ frame of every allocation (-> whose code allocated)\n${table(nearest, total, Number(rows), mebibytes)}`,
  );
}

if (profile.head !== undefined) {
  heapProfile();
} else {
  cpuProfile();
}
