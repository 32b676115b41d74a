// The source map of a bundle script a V8 profile names by `file://` URL (its `.map` beside it), as
// a `source-map-js` consumer, read once; null when the script has none. Used by
// server35-owners.mjs and server41-owners.mjs.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(new URL("../../package.json", import.meta.url));
const { SourceMapConsumer } = require("source-map-js");
const maps = new Map();

/** @param {string} url a profile frame's script URL. */
export function mapOf(url) {
  if (!maps.has(url)) {
    const file = `${url.replace("file://", "")}.map`;
    maps.set(
      url,
      existsSync(file) ? new SourceMapConsumer(JSON.parse(readFileSync(file, "utf8"))) : null,
    );
  }
  return maps.get(url);
}
