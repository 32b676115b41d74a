import { writeFile } from "node:fs/promises";
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
