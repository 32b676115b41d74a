import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { build } from "esbuild";

/**
 * Bundles `module` alone with esbuild and `plugins` (the build plugins of scripts/, as
 * scripts/bundle.mjs runs them) into `<directory>/<name>.mjs`, re-exporting what it exports, so
 * a test can compare a package as shipped with what a plugin makes of it.
 * @returns the bundle's path.
 */
export async function bundledModule(
  directory: string,
  name: string,
  module: string,
  plugins: unknown[],
): Promise<string> {
  const entry = join(directory, `${name}-entry.js`);
  await writeFile(entry, `export * from ${JSON.stringify(module)};\n`);
  const output = join(directory, `${name}.mjs`);
  await build({
    entryPoints: [entry],
    outfile: output,
    bundle: true,
    format: "esm",
    platform: "node",
    plugins: plugins as never[],
    logLevel: "error",
  });
  return output;
}

/**
 * esbuild's plugin named `name` that loads `@ai-sdk/provider-utils`'s ES module through `rewrite`
 * (its text and path → the text bundled): a build script's change to it, tested against the
 * package as shipped (scripts/provider-utils-as-bundled.mjs).
 */
export function providerUtilsRewritten(
  name: string,
  rewrite: (text: string, path: string) => string,
) {
  return {
    name,
    setup(build: {
      onLoad(
        options: { filter: RegExp },
        load: (args: { path: string }) => Promise<{ contents: string; loader: "js" }>,
      ): void;
    }) {
      build.onLoad(
        { filter: /[\\/]node_modules[\\/]@ai-sdk[\\/]provider-utils[\\/]dist[\\/]index\.mjs$/ },
        async ({ path }) => ({
          contents: rewrite(await readFile(path, "utf8"), path),
          loader: "js",
        }),
      );
    },
  };
}
