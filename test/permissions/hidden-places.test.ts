import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type PermissionPolicy,
  parseRules,
  permissionDecider,
} from "../../src/permissions/permission-decision.js";
import { createTool, editTool, viewTool } from "../../src/tools/index.js";
import { threadPoolRequests } from "../support/thread-pool.js";
import { useTemporaryDirectory } from "../tools/tool-context.js";

// The hidden places' rule (src/permissions/hidden-places.ts) as the decider applies it, on real
// folders: the session's own folder (saved outputs, which turnloop tells the model to read) stays
// open to the reading tools only; a hidden place that is itself a link is hidden at both ends; a
// rule names a place only when its pattern lies inside it.

let directory = "";
useTemporaryDirectory((each) => {
  directory = each;
});

/** `logs` (TURNLOOP_HOME, with the session `s1` and an earlier one), `vault` and `keys -> vault`. */
async function layout(): Promise<{ logs: string; own: string; vault: string; keys: string }> {
  const logs = join(directory, "logs");
  const own = join(logs, "session-state", "s1");
  await mkdir(join(own, "tool-outputs"), { recursive: true });
  await writeFile(join(own, "tool-outputs", "call_1.txt"), "long output");
  await mkdir(join(logs, "session-state", "s0"));
  await writeFile(join(logs, "session-state", "s0", "events.jsonl"), "{}\n");
  const vault = join(directory, "vault");
  await mkdir(vault);
  await writeFile(join(vault, "token"), "t0ken");
  const keys = join(directory, "keys");
  await symlink(vault, keys);
  return { logs, own, vault, keys };
}

async function decisions(
  places: readonly string[],
  open: string,
  calls: ReadonlyArray<[tool: typeof viewTool, input: Record<string, string>]>,
  allow: readonly string[] = [],
): Promise<string[]> {
  const policy: PermissionPolicy = {
    allowAllTools: true,
    allow: parseRules(allow),
    deny: [],
    folders: [],
    hiddenPlaces: { places, open },
  };
  const decide = permissionDecider(directory, () => policy);
  const kinds = [];
  for (const [tool, input] of calls) {
    const toolCall = { toolCallId: "c", name: tool.name, arguments: input };
    const decision = await decide({ tool, input: tool.input.parse(input), toolCall });
    kinds.push(decision.kind === "deny" ? `deny: ${decision.reason.split(":")[0]}` : decision.kind);
  }
  return kinds;
}

describe("the hidden places in the permission decision", () => {
  it("keeps the session's own folder open to reading, not to writing", async () => {
    const { logs, own } = await layout();
    const saved = join(own, "tool-outputs", "call_1.txt");
    const answers = await decisions([logs], own, [
      [viewTool, { path: saved }],
      [editTool as typeof viewTool, { path: saved, old_str: "long", new_str: "x" }],
      [viewTool, { path: join(logs, "session-state", "s0", "events.jsonl") }],
      [createTool as typeof viewTool, { path: join(own, "events.jsonl"), file_text: "" }],
    ]);
    expect(answers).toEqual([
      "allow",
      `deny: ${logs} is hidden from the agent`,
      `deny: ${logs} is hidden from the agent`,
      `deny: ${logs} is hidden from the agent`,
    ]);
  });

  it("hides a place that is a link at the link and at its target", async () => {
    const { own, keys, vault } = await layout();
    const answers = await decisions([keys], own, [
      [viewTool, { path: join(keys, "token") }],
      [viewTool, { path: join(vault, "token") }],
    ]);
    expect(answers).toEqual([
      `deny: ${keys} is hidden from the agent`,
      `deny: ${keys} is hidden from the agent`,
    ]);
  });

  it("lets in only an allow rule of the tool whose pattern lies inside the place", async () => {
    const { own, vault } = await layout();
    const call: [typeof viewTool, Record<string, string>] = [
      viewTool,
      { path: join(vault, "token") },
    ];
    const denied = `deny: ${vault} is hidden from the agent`;
    const answers = await Promise.all(
      [
        [`view(${vault}/token)`],
        [`view(${vault}/*)`],
        ["view(**)"],
        ["view"],
        [`view(${directory}/*/token)`],
        [`grep(${vault}/**)`],
      ].map((allow) => decisions([vault], own, [call], allow)),
    );
    expect(answers).toEqual([["allow"], ["allow"], [denied], [denied], [denied], [denied]]);
  });

  it("reads places however they are spelled: a trailing /, a .. or a doubled /", async () => {
    // As TURNLOOP_HOME, XDG_RUNTIME_DIR or sandbox.hidden may spell them; the places are compared
    // with the paths as text once spelled as path.resolve spells them.
    const { logs, own, vault } = await layout();
    const answers = await decisions([`${logs}/`, `${directory}/elsewhere/../vault`], `${own}//`, [
      [viewTool, { path: join(own, "tool-outputs", "call_1.txt") }],
      [viewTool, { path: join(logs, "session-state", "s0", "events.jsonl") }],
      [viewTool, { path: join(vault, "token") }],
    ]);
    expect(answers).toEqual([
      "allow",
      `deny: ${logs} is hidden from the agent`,
      `deny: ${vault} is hidden from the agent`,
    ]);
  });

  it("reads places and paths in any spelling of theirs, and a neighbour sharing a prefix is not inside", async () => {
    const { own, vault } = await layout();
    const neighbour = `${vault}x`;
    await mkdir(neighbour);
    await writeFile(join(neighbour, "notes"), "open");
    const spelled = [`${vault}/`, `${directory}/logs/../vault/.`];
    const answers = await Promise.all(
      spelled.map((place) =>
        decisions([place], own, [
          [viewTool, { path: join(vault, "token") }],
          [viewTool, { path: `${directory}//vault/./token` }],
          [viewTool, { path: join(neighbour, "notes") }],
          [viewTool, { path: neighbour }],
        ]),
      ),
    );
    const denied = `deny: ${vault} is hidden from the agent`;
    expect(answers).toEqual([
      [denied, denied, "allow", "allow"],
      [denied, denied, "allow", "allow"],
    ]);
  });

  it("reads the places and the call's own paths on the calling thread: a call asks the thread pool nothing", async () => {
    // Each place that exists was a `realpath` in the thread pool, at every call, and so was the
    // call's own path: each costs the main thread about three times a synchronous one
    // (bench/notes/turn34.md, perf36.md).
    const { logs, own, vault, keys } = await layout();
    const policy: PermissionPolicy = {
      allowAllTools: true,
      allow: [],
      deny: [],
      folders: [],
      hiddenPlaces: { places: [logs, vault, keys, join(directory, "missing")], open: own },
    };
    const decide = permissionDecider(directory, () => policy);
    await writeFile(join(directory, "notes.md"), "notes");
    const input = { path: join(directory, "notes.md") };
    const call = () =>
      decide({
        tool: viewTool,
        input,
        toolCall: { toolCallId: "c", name: "view", arguments: input },
      });
    expect((await call()).kind).toBe("allow");
    let kind = "";
    const requests = await threadPoolRequests(async () => {
      kind = (await call()).kind;
    });
    expect({ kind, requests }).toEqual({ kind: "allow", requests: 0 });
  });

  it("reads the places at every call: a link made between two calls counts", async () => {
    const { own, vault } = await layout();
    const later = join(directory, "later");
    const calls: Array<[typeof viewTool, Record<string, string>]> = [
      [viewTool, { path: join(vault, "token") }],
    ];
    const policy: PermissionPolicy = {
      allowAllTools: true,
      allow: [],
      deny: [],
      folders: [],
      hiddenPlaces: { places: [later], open: own },
    };
    const decide = permissionDecider(directory, () => policy);
    const kinds: string[] = [];
    for (const made of [false, true]) {
      if (made) {
        await symlink(vault, later);
      }
      for (const [tool, input] of calls) {
        const decision = await decide({
          tool,
          input,
          toolCall: { toolCallId: "c", name: "view", arguments: input },
        });
        kinds.push(
          decision.kind === "deny" ? `deny: ${decision.reason.split(":")[0]}` : decision.kind,
        );
      }
    }
    expect(kinds).toEqual(["allow", `deny: ${later} is hidden from the agent`]);
  });
});
