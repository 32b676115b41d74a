import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect } from "vitest";
import { CLI_PATH } from "../support/cli.js";
import { test } from "../support/fixtures.js";
import { toolResultsThroughCli } from "../support/one-command.js";

/**
 * The search tools read `.gitignore` files through the `ignore` package, loaded on a search's first
 * use. The CLI runs the bundle as code-cache scripts (scripts/code-cache-scripts.mjs), where a
 * chunk's default export must stay the chunk's own: an ordinary repository (one `.gitignore`) made
 * every `glob` and every `view` of a folder fail with "….ignore is not a function".
 */

test.override({ git: true });

describe("the search tools in a repository with .gitignore files, through the built CLI", () => {
  test("glob, view of a folder and grep leave ignored files out, at the root and deeper", async ({
    cli,
    model,
    repository,
  }) => {
    await writeFile(join(repository, ".gitignore"), "*.log\n");
    await mkdir(join(repository, "src", "generated"), { recursive: true });
    await writeFile(join(repository, "src", ".gitignore"), "generated/\n");
    await writeFile(join(repository, "package.json"), '{ "name": "kept" }\n');
    await writeFile(join(repository, "debug.log"), "kept? no\n");
    await writeFile(join(repository, "src", "index.ts"), "export const kept = 1;\n");
    await writeFile(join(repository, "src", "generated", "out.ts"), "export const kept = 0;\n");
    const { results, stdout } = await toolResultsThroughCli({ cli, model }, [
      ["glob", { pattern: "*" }],
      ["glob", { pattern: "src/**/*.ts" }],
      ["view", { path: "." }],
      ["grep", { pattern: "kept", output_mode: "files_with_matches" }],
    ]);
    expect(results[0]?.split("\n").sort()).toEqual(["./package.json"]);
    expect(results[1]).toBe("./src/index.ts");
    expect(results[2]).toBe("package.json\nsrc/\nsrc/index.ts");
    expect(results[3]?.split("\n").sort()).toEqual(["package.json", "src/index.ts"]);
    expect(stdout).toBe("Done.\n");
  });

  test("no script of the bundle imports another chunk as if it were CommonJS", () => {
    // esbuild's node mode (`__toESM(require("./x.js"), 1)`) makes the whole chunk the default
    // export; every chunk was an ES module, so its requires of the others must honour `__esModule`.
    const scripts = join(dirname(CLI_PATH), "scripts");
    const inputs = Object.keys(
      JSON.parse(readFileSync(join(dirname(CLI_PATH), "chunks", "inputs.json"), "utf8")) as object,
    );
    const nodeMode = inputs.flatMap((file) =>
      [
        ...readFileSync(join(scripts, file), "utf8").matchAll(
          /__toESM\(require\("(\.[^"]+)"\),1\)/g,
        ),
      ].map((match) => `${file} → ${match[1]}`),
    );
    expect(inputs.length).toBeGreaterThan(10);
    expect(nodeMode).toEqual([]);
  });
});
