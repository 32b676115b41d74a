import type { JsonObject } from "../../src/events/events.js";
import {
  type PermissionPolicy,
  permissionDecider,
} from "../../src/permissions/permission-decision.js";
import type { AnyTool } from "../../src/tools/define-tool.js";

/**
 * The permission decision (src/permissions/permission-decision.ts) of a session in `cwd` that
 * allows every tool and hides `hiddenPlaces` (read at each decision: a place pushed onto its list
 * counts from then on): the answer judges one call of `tool` with `input`, parsed by the tool's
 * schema as the loop parses it.
 */
export function hiddenPlacesDecider(
  cwd: string,
  hiddenPlaces: NonNullable<PermissionPolicy["hiddenPlaces"]>,
  tool: AnyTool,
) {
  const policy: PermissionPolicy = {
    allowAllTools: true,
    allow: [],
    deny: [],
    folders: [],
    hiddenPlaces,
  };
  const decide = permissionDecider(cwd, () => policy);
  return (input: JsonObject) =>
    decide({
      tool,
      input: tool.input.parse(input),
      toolCall: { toolCallId: "c", name: tool.name, arguments: input },
    });
}
