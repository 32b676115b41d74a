import { mkdtemp, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeModelServer } from "./fake-model-server.js";
import type { FakeModelServer } from "./fake-model-types.js";
import { removeTree } from "./remove-tree.js";
import { makeHome } from "./test-home.js";

/** Where a face under test keeps its sessions and finds its model. */
export interface ModelPlace {
  /** The fake model server (`test/support/fake-model-server.ts`). */
  server: FakeModelServer;
  /** A temporary folder, the run's `TURNLOOP_HOME`. */
  home: string;
  /** A temporary folder (its real path) the sessions run in. */
  cwd: string;
}

/**
 * A fresh fake model server and two temporary folders named `turnloop-<name>-home-…`/`-cwd-…`,
 * the home with the run's warm code cache (test/support/test-home.ts).
 */
export async function openModelPlace(name: string): Promise<ModelPlace> {
  const server = await startFakeModelServer();
  const home = await makeHome(`turnloop-${name}-home-`);
  const cwd = await realpath(await mkdtemp(join(tmpdir(), `turnloop-${name}-cwd-`)));
  return { server, home, cwd };
}

/** Stops the server and removes both folders (a folder a test removed itself is no error). */
export async function closeModelPlace(place: ModelPlace): Promise<void> {
  await place.server.close();
  await removeTree(place.home);
  await removeTree(place.cwd);
}

/**
 * A {@link ModelPlace} opened later than it is made: a suite makes one at load time (so its tests
 * and helpers can name it) and opens it in `beforeEach` or `beforeAll`. Reading a field while it
 * is not open throws.
 */
export class LateModelPlace {
  private opened: ModelPlace | undefined;

  constructor(private readonly name: string) {}

  async open(): Promise<void> {
    this.opened = await openModelPlace(this.name);
  }

  /** Closes the place if it is open; the next {@link open} makes a fresh one. */
  async close(): Promise<void> {
    const place = this.opened;
    this.opened = undefined;
    if (place !== undefined) {
      await closeModelPlace(place);
    }
  }

  get place(): ModelPlace {
    if (this.opened === undefined) {
      throw new Error(`the ${this.name} fixture is used while it is not open (outside its tests)`);
    }
    return this.opened;
  }
  get server(): FakeModelServer {
    return this.place.server;
  }
  get home(): string {
    return this.place.home;
  }
  get cwd(): string {
    return this.place.cwd;
  }
}
