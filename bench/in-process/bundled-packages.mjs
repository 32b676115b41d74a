/**
 * The packages as turnloop's bundle runs them, for the in-process benchmarks: `@ai-sdk/provider-utils`
 * changed as scripts/bundle.mjs changes it (scripts/provider-utils-as-bundled.mjs: one stage
 * parsing the model's event stream instead of three web streams, turnloop's `HeaderList` for the
 * global `Headers`, the body's reader kept locked), and the provider packages changed as
 * scripts/providers-as-bundled.mjs changes them (their `TransformStream` turnloop's
 * `ValueTransform`). Without them a benchmark measured a request path the command does not run:
 * three more web stream stages per response (heap allocated per tool turn, figure 3d, 632 → 501 KiB
 * with them; bench/notes/turn19.md), and one more since bench/notes/turn40.md.
 *
 * They are written once into an overlay, a folder in the system's temporary folder named by the
 * hash of its content (so a later run of the same build reuses it): `dist/`, a copy of the
 * benchmarked `dist/`'s `.js` files (the bundle's `cli/chunks/` and `cli/scripts/` left out), and
 * `node_modules/`, links to every package of the `node_modules` that `dist/` resolves from, but the
 * changed packages, which are written there. Node resolves a linked package to its real path, so
 * the overlay's `dist/` and the changed packages share one instance of every other package.
 * Until session 45 this was done by module hooks (`node:module` `register`), which Node 20 runs on
 * a thread of their own: every module loaded after them, as the ones turnloop imports on a
 * session's first tool call, waited for that thread (27 of the first tool turn's 40–47 ms,
 * bench/notes/turn45.md), and the thread's heap counted in the memory figures.
 */

import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import {
  copyFile,
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rename,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { providerUtilsAsBundled } from "../../scripts/provider-utils-as-bundled.mjs";
import { valueTransformAsTransformStream } from "../../scripts/providers-as-bundled.mjs";

/** The changed packages: their entry (the module the ES import loads) and its change. */
const CHANGED = {
  "@ai-sdk/provider-utils": (source, path) =>
    providerUtilsAsBundled(source, path, {
      headerList: "../../../../dist/llm/http-headers.js",
      sseEventTransform: "../../../../dist/llm/sse-event-transform.js",
    }),
  "@ai-sdk/openai-compatible": changedProvider,
  "@ai-sdk/openai": changedProvider,
  "@ai-sdk/anthropic": changedProvider,
};

/** @param {string} source @param {string} path */
function changedProvider(source, path) {
  return valueTransformAsTransformStream(source, path, "../../../../dist/llm/value-transform.js");
}

/** The bundle's own output in `dist/cli/`, which no in-process benchmark loads. */
const BUNDLE_FOLDERS = [join("cli", "chunks") + sep, join("cli", "scripts") + sep];

/**
 * Makes (or finds) the overlay for `dist`.
 * @param {string} dist absolute path of the benchmarked `dist/`
 * @returns {Promise<string>} absolute path of the overlay's `dist/`, to import turnloop from
 * @throws when no `node_modules` holds the changed packages, when a changed package holds a
 *   `node_modules` of its own, or when a change no longer applies (scripts/*-as-bundled.mjs)
 */
export async function distWithBundledPackages(dist) {
  const nodeModules = nodeModulesOf(dist);
  const hash = createHash("sha256");
  const distFiles = [];
  for (const file of (await readdir(dist, { recursive: true })).sort()) {
    if (file.endsWith(".js") && !BUNDLE_FOLDERS.some((folder) => file.startsWith(folder))) {
      distFiles.push(file);
      hash
        .update(`${file}\0`)
        .update(await readFile(join(dist, file)))
        .update("\0");
    }
  }
  const changed = [];
  for (const [name, change] of Object.entries(CHANGED)) {
    const folder = await realpath(join(nodeModules, name));
    if (existsSync(join(folder, "node_modules"))) {
      throw new Error(
        `${folder}: a package of its own in node_modules; the overlay cannot change it`,
      );
    }
    const manifest = await readFile(join(folder, "package.json"), "utf8");
    const entry = join(folder, "dist", "index.mjs");
    const source = change(await readFile(entry, "utf8"), entry);
    changed.push({ name, folder, source });
    hash.update(`${name}\0${manifest}\0${source}\0`);
  }
  const links = await packageLinks(nodeModules, new Set(Object.keys(CHANGED)));
  for (const [name, target] of links) {
    hash.update(`${name}\0${target}\0`);
  }
  const overlay = join(tmpdir(), `turnloop-bench-packages-${hash.digest("hex").slice(0, 20)}`);
  if (!existsSync(overlay)) {
    await writeOverlay(overlay, { dist, distFiles, changed, links });
  }
  return join(overlay, "dist");
}

/**
 * Imports a package as the overlay's `dist/` resolves it.
 * @param {string} overlayDist what {@link distWithBundledPackages} returned
 * @param {string} specifier a package name
 */
export async function importPackage(overlayDist, specifier) {
  const url = pathToFileURL(join(overlayDist, "..", "import-package.js")).href;
  return (await import(url)).importPackage(specifier);
}

/** The first `node_modules` from `dist` up, as Node looks for a package from a module in `dist/`. */
function nodeModulesOf(dist) {
  for (let folder = dist; ; folder = dirname(folder)) {
    if (existsSync(join(folder, "node_modules", "@ai-sdk", "provider-utils"))) {
      return join(folder, "node_modules");
    }
    if (dirname(folder) === folder) {
      throw new Error(`no node_modules with @ai-sdk/provider-utils above ${dist}`);
    }
  }
}

/**
 * Each package of `nodeModules` but the `changed` ones, and the real folder it is linked to:
 * a scope holding a changed package is listed package by package.
 * @param {string} nodeModules
 * @param {Set<string>} changed
 * @returns {Promise<[string, string][]>}
 */
async function packageLinks(nodeModules, changed) {
  const links = [];
  for (const name of (await readdir(nodeModules)).sort()) {
    if (name.startsWith(".")) {
      continue;
    }
    const scoped = [...changed].some((changedName) => changedName.startsWith(`${name}/`));
    const names = scoped
      ? (await readdir(join(nodeModules, name))).sort().map((inner) => `${name}/${inner}`)
      : [name];
    for (const linked of names.filter((each) => !changed.has(each))) {
      links.push([linked, await realpath(join(nodeModules, linked))]);
    }
  }
  return links;
}

/**
 * Writes the overlay into a folder of its own, then renames it into place: a run beside it finds
 * either no overlay or a whole one (and when two write it at once, the second's is dropped).
 */
async function writeOverlay(overlay, { dist, distFiles, changed, links }) {
  const building = await mkdtemp(`${overlay}-building-`);
  try {
    await writeFile(join(building, "package.json"), '{"type":"module"}\n');
    await writeFile(
      join(building, "import-package.js"),
      "/** Imports a package as the overlay's dist/ resolves it. */\n" +
        "export function importPackage(specifier) {\n  return import(specifier);\n}\n",
    );
    for (const file of distFiles) {
      await mkdir(dirname(join(building, "dist", file)), { recursive: true });
      await copyFile(join(dist, file), join(building, "dist", file));
    }
    for (const [name, target] of links) {
      const link = join(building, "node_modules", name);
      await mkdir(dirname(link), { recursive: true });
      await symlink(target, link);
    }
    for (const { name, folder, source } of changed) {
      const copy = join(building, "node_modules", name);
      await mkdir(copy, { recursive: true });
      await copyFile(join(folder, "package.json"), join(copy, "package.json"));
      await cp(join(folder, "dist"), join(copy, "dist"), { recursive: true });
      await writeFile(join(copy, "dist", "index.mjs"), source);
    }
    await rename(building, overlay);
  } catch (error) {
    await rm(building, { recursive: true, force: true });
    if (!existsSync(overlay)) {
      throw error;
    }
  }
}
