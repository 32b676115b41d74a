import { mkdir, mkdtemp, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionHost } from "../../src/session/host.js";
import { resolveRunConfig } from "../../src/session/run-config.js";
import { defaultFaceOptions } from "./face-options.js";
import { removeTree } from "./remove-tree.js";

/** A session host in a fresh temporary folder: `root/project` its folder, `root/home` its home. */
export interface TemporaryHost {
  host: SessionHost;
  /** Closes every session of the host and removes `root`. */
  remove(): Promise<void>;
}

/** Makes a {@link TemporaryHost} under the system's temporary folder, named `prefix…`. */
export async function temporaryHost(prefix: string): Promise<TemporaryHost> {
  const root = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  const cwd = join(root, "project");
  await mkdir(cwd);
  const host = new SessionHost({
    home: join(root, "home"),
    env: {},
    config: resolveRunConfig(defaultFaceOptions(cwd), {}),
  });
  return {
    host,
    remove: async () => {
      await host.closeAll();
      await removeTree(root);
    },
  };
}
