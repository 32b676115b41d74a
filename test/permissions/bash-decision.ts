import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import {
  type PermissionPolicy,
  parseRules,
  permissionDecider,
} from "../../src/permissions/permission-decision.js";
import { bashTool } from "../../src/tools/index.js";

/** What the permission rules decide for one bash call: run it, refuse it, or ask the user. */
export type Decision = "allowed" | "denied" | "asked";

/** `--allow-all-tools --deny-tool 'bash(rm *)'`. */
export const denyRm = { allowAllTools: true, deny: parseRules(["bash(rm *)"]) };

/**
 * A decider of bash calls in a fresh temporary workspace (named `turnloop-<name>-…`), made before
 * the file's tests and removed after them. Call at the top of a test file.
 */
export function bashDecisions(
  name: string,
): (command: string, policy: Partial<PermissionPolicy>) => Promise<Decision> {
  let cwd = "";
  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), `turnloop-${name}-`));
  });
  afterAll(async () => {
    await rm(cwd, { recursive: true, force: true });
  });
  return async (command, policy) => {
    const decider = permissionDecider(cwd, () => ({
      allowAllTools: false,
      allow: [],
      deny: [],
      folders: [],
      ...policy,
    }));
    const decision = await decider({
      tool: bashTool,
      input: { command },
      toolCall: { toolCallId: "call", name: "bash", arguments: { command } },
    });
    const names = { allow: "allowed", deny: "denied", ask: "asked" } as const;
    return names[decision.kind];
  };
}
