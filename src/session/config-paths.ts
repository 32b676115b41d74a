import { join } from "node:path";
import { errorCode } from "../events/errors.js";

// Not an ES module import, whose facade loads Node's file streams before the interactive face's
// input box (issue 26; scripts/pi-tui-builtins-direct.mjs has the figures).
const { statSync } = process.getBuiltinModule("node:fs");

/**
 * Where the config files are, and whether there is one to read, without their schema: zod, which
 * checks them (config.ts), loads only when a file is there (issue 26: most runs have none, and
 * the interactive face draws its input box after the files are checked).
 */

/** Where the user's and the project's config files are. */
export function configPaths(home: string, cwd: string): { user: string; project: string } {
  return { user: join(home, "config.json"), project: join(cwd, ".turnloop", "config.json") };
}

/** A config file that cannot be used; the message names the file and the field. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/**
 * Whether reading the config files has anything to check: false only when neither path exists
 * (what `loadConfig` takes for no file). A path that cannot be looked at for another reason
 * (a permission, a file where a folder should be) counts as there, so that reading it reports
 * the error as before.
 */
export function configFilesPresent(home: string, cwd: string): boolean {
  const { user, project } = configPaths(home, cwd);
  return [user, project].some((path) => {
    try {
      statSync(path);
      return true;
    } catch (error) {
      return errorCode(error) !== "ENOENT";
    }
  });
}
