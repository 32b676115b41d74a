/**
 * An esbuild plugin for `scripts/bundle.mjs`: pi-tui's Markdown component, and `marked` under it,
 * load with the modules that draw Markdown, not with everything that imports pi-tui (issue 26).
 *
 * `@mariozechner/pi-tui` publishes one index that re-exports every component; importing it runs
 * every module it names, the Markdown component's `marked` included, which builds its rules at
 * import. The interactive face then compiled and ran about 100 KB of Markdown code before drawing
 * its input box, although it draws Markdown only once a session's answer arrives (its transcript
 * loads with the session), and esbuild keeps a module that runs code at import in the chunk of
 * every importer. This plugin bundles pi-tui's index without its `Markdown` re-export and gives
 * `src/cli/markdown.ts`, the one module that draws Markdown, the component's own file. pi-tui's
 * code is unchanged. A pi-tui whose index no longer re-exports the component that way, or a
 * module other than markdown.ts importing `Markdown` from pi-tui, fails the build.
 */

import { readFile } from "node:fs/promises";

const PI_TUI_INDEX = /[\\/]node_modules[\\/]@mariozechner[\\/]pi-tui[\\/]dist[\\/]index\.js$/;
const MARKDOWN_EXPORT = 'export { Markdown } from "./components/markdown.js";\n';
/** The one module of turnloop that imports `Markdown` from pi-tui. */
const MARKDOWN_IMPORTER = /[\\/]src[\\/]cli[\\/]markdown\.ts$/;

export const piTuiMarkdownApart = {
  name: "pi-tui-markdown-apart",
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^@mariozechner\/pi-tui$/ }, async (args) => {
      if (!MARKDOWN_IMPORTER.test(args.importer) || args.pluginData?.resolvingIndex === true) {
        return undefined;
      }
      const index = await pluginBuild.resolve(args.path, {
        importer: args.importer,
        resolveDir: args.resolveDir,
        kind: args.kind,
        pluginData: { resolvingIndex: true },
      });
      if (index.errors.length > 0) {
        return { errors: index.errors };
      }
      return { path: index.path.replace(/index\.js$/, "components/markdown.js") };
    });
    pluginBuild.onLoad({ filter: PI_TUI_INDEX }, async ({ path }) => {
      const source = await readFile(path, "utf8");
      if (!source.includes(MARKDOWN_EXPORT)) {
        throw new Error(`${path}: pi-tui's index no longer re-exports Markdown as expected`);
      }
      return { contents: source.replace(MARKDOWN_EXPORT, ""), loader: "js" };
    });
  },
};
