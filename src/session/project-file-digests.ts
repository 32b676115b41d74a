/**
 * What a project's trust records of its files (config-paths.ts `trustProject`, `projectTrust`):
 * loaded by `import()` when a trust is given or checked, never on the way to a first request.
 */

import { join } from "node:path";
import { errorCode } from "../events/errors.js";
import { normalAbsolutePath } from "../tools/sandbox/policy.js";

const promises = () => process.getBuiltinModule("node:fs").promises;

/**
 * Each file a trust covers, by its path relative to `project`: the `projectFiles` (config-paths.ts `PROJECT_FILES`), read as
 * the config is (tools/project-file.ts), then the project files their stdio MCP servers run
 * (tools/sandbox/server-programs.ts `serverProgramPaths`, read against `cwd` and `project`):
 * each the SHA-256 of its bytes (hex), `absent` or `unreadable` ({@link fileDigest} for programs).
 */
export async function projectFileDigests(
  project: string,
  cwd: string,
  home: string,
  projectFiles: readonly string[],
): Promise<Record<string, string>> {
  // Loaded here, not before `acp` answers `initialize` (issue 26).
  const [{ CONFIG_FILE_MAX_BYTES, readProjectFile }, { serverProgramPaths }] = await Promise.all([
    import("../tools/project-file.js"),
    import("../tools/sandbox/server-programs.js"),
  ]);
  const configDigest = (name: string): string => {
    const file = readProjectFile(join(project, name), {
      maxBytes: CONFIG_FILE_MAX_BYTES,
      overLimit: "refuse",
      project: { folder: project, turnloopHome: home },
    });
    if (file.kind !== "read") {
      return file.kind === "missing" ? "absent" : "unreadable";
    }
    const digest = process.getBuiltinModule("node:crypto").createHash("sha256");
    return digest.update(file.bytes).digest("hex");
  };
  const programs = serverProgramPaths(
    projectFiles.map((name) => join(project, name)),
    [normalAbsolutePath(cwd), project],
  )
    .filter((path) => path.startsWith(`${project}/`))
    .map((path) => path.slice(project.length + 1))
    .filter((name) => !projectFiles.includes(name));
  const digests = await Promise.all([
    ...projectFiles.map((name) => [name, configDigest(name)] as const),
    ...[...new Set(programs)].map(
      async (name) => [name, await fileDigest(join(project, name))] as const,
    ),
  ]);
  return Object.fromEntries(digests);
}

/** Files larger than this (bytes) are not read for a trust's digest: 64 MiB. */
const MAX_DIGESTED_BYTES = 64 * 1024 * 1024;

/** What {@link projectFileDigests} records of the file at `path`. */
async function fileDigest(path: string): Promise<string> {
  try {
    const stats = await promises().stat(path);
    if (!stats.isFile()) {
      return "not a regular file";
    }
    if (stats.size > MAX_DIGESTED_BYTES) {
      return `${stats.size} bytes, modified ${stats.mtime.toISOString()}`;
    }
    const bytes = await promises().readFile(path);
    const digest = process.getBuiltinModule("node:crypto").createHash("sha256");
    return digest.update(bytes).digest("hex");
  } catch (error) {
    return errorCode(error) === "ENOENT" ? "absent" : "unreadable";
  }
}
