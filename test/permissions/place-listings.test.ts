import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { viewTool } from "../../src/tools/index.js";
import { existenceChecksDuring } from "../support/counted-lstats.js";
import { hiddenPlacesDecider } from "../support/hidden-places-decider.js";
import { useTemporaryDirectory } from "../tools/tool-context.js";

// The hidden places' existence read by folder (src/tools/sandbox/place-listings.ts): a folder
// holding several places is listed once per call, and only the places its listing does not rule
// out or name are looked at (`existsSync`: no `Stats` object made); the decisions are those of a look at
// every place, and a place made between two calls counts, as does a place added to the list.

let directory = "";
useTemporaryDirectory((each) => {
  directory = each;
});

describe("the hidden places' existence, read by folder", () => {
  it("looks at only the places a listing does not rule out, and decides as before", async () => {
    // A home of seven places (two exist: a folder and a link to the vault; `.SSH` exists only in
    // another case, which a case-folding file system would find), two places below a folder the
    // home lacks, one below a folder it has, and the session's own folder elsewhere.
    const home = join(directory, "home");
    const vault = join(directory, "vault");
    await mkdir(join(home, ".ssh"), { recursive: true });
    await writeFile(join(home, ".ssh", "id"), "key");
    await mkdir(join(home, ".config"));
    await mkdir(vault);
    await writeFile(join(vault, "token"), "t0ken");
    await symlink(vault, join(home, ".aws"));
    const inHome = [".ssh", ".aws", ".SSH", ".gnupg", ".netrc", ".kube", ".docker"];
    const below = [".pip/pip.conf", ".gem/credentials", ".config/gh"];
    const places = [...inHome, ...below].map((name) => join(home, name));
    const own = join(directory, "logs", "s1");
    await mkdir(own, { recursive: true });
    const decide = hiddenPlacesDecider(directory, { places, open: own }, viewTool);
    await writeFile(join(directory, "notes.md"), "notes");
    const kinds: string[] = [];
    const view = async (path: string) => {
      const decision = await decide({ path });
      kinds.push(decision.kind === "deny" ? (decision.reason.split(":")[0] ?? "") : decision.kind);
    };
    const { seen: looked } = await existenceChecksDuring(async () => {
      await view(join(directory, "notes.md"));
    });
    await view(join(vault, "token"));
    await view(join(home, ".ssh", "id"));
    await mkdir(join(home, ".kube"));
    await writeFile(join(home, ".kube", "config"), "cluster");
    await view(join(home, ".kube", "config"));
    // The plan made from the list's text is made again when the list changes in place.
    places.push(join(home, ".later"));
    await mkdir(join(home, ".later"));
    await writeFile(join(home, ".later", "notes"), "later");
    await view(join(home, ".later", "notes"));
    expect({ looked, kinds }).toEqual({
      // `.ssh`, `.aws` and `.SSH` are named by the home's listing: resolved without a look first.
      looked: [join(home, ".config/gh"), own],
      kinds: [
        "allow",
        `${home}/.aws is hidden from the agent`,
        `${home}/.ssh is hidden from the agent`,
        `${home}/.kube is hidden from the agent`,
        `${home}/.later is hidden from the agent`,
      ],
    });
  });
});

describe("the hidden places of one turn of the event loop", () => {
  it("are read once for every session's calls judged in that turn; a link made after it counts at the next call", async () => {
    // Two sessions of one server (one list of places per run: session/sandbox-setup.ts), each
    // with its own folder; `~/.aws` is made a link to the vault between the two turns.
    const home = join(directory, "home");
    const vault = join(directory, "vault");
    await mkdir(join(home, ".ssh"), { recursive: true });
    await mkdir(vault);
    await writeFile(join(vault, "token"), "t0ken");
    await writeFile(join(directory, "notes.md"), "notes");
    const places = [".ssh", ".aws", ".gnupg", ".netrc", ".kube"].map((name) => join(home, name));
    const owns = ["s1", "s2"].map((name) => join(directory, "logs", name));
    const sessions = owns.map((own) =>
      hiddenPlacesDecider(directory, { places, open: own }, viewTool),
    );
    const turn = (path: string) =>
      existenceChecksDuring(() =>
        Promise.all(
          sessions.map(async (decide) => {
            const decision = await decide({ path });
            return decision.kind === "deny" ? (decision.reason.split(":")[0] ?? "") : decision.kind;
          }),
        ),
      );
    // Each turn starts as a server's calls do: in the loop's I/O phase, after a file's answer.
    await mkdir(owns[0] ?? "", { recursive: true });
    const first = await turn(join(vault, "token"));
    await symlink(vault, join(home, ".aws"));
    const second = await turn(join(vault, "token"));
    expect({ first, second }).toEqual({
      // `.ssh` and `.aws`, named by the home's listing, are resolved without a look first.
      first: { result: ["allow", "allow"], seen: owns },
      second: {
        result: [`${home}/.aws is hidden from the agent`, `${home}/.aws is hidden from the agent`],
        seen: owns,
      },
    });
  });
});
