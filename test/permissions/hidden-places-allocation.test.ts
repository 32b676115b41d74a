import { realpathSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
import { judgeHiddenPlaces } from "../../src/permissions/hidden-places.js";
import { bytesAllocatedIn } from "../support/heap-sampling.js";
import { useTemporaryDirectory } from "../tools/tool-context.js";

// Issue 26, 3d: the hidden places are read at the first call of a file tool in each turn of the
// event loop (a place made before the turn counts). What a place's text alone decides (its spelling, how a refusal names it) is made
// once per list of places, and whether a place is there is asked without a `Stats` object (an
// `lstat`'s, with its four `Date`s): together about 19 KiB of a view turn's 398
// (bench/notes/turn39.md). Its own file, so that no other test has made the judge's code hot first.

let directory = "";
useTemporaryDirectory((each) => {
  directory = each;
});

test("judging a call makes no spelling of a place per call, and no Stats of a place that exists", async () => {
  // Spelled as realpath spells it (a temporary folder can lie behind a link: /tmp on macOS).
  const base = realpathSync(directory);
  const home = join(base, "home");
  await mkdir(home);
  const inHome = [".ssh", ".aws", ".gnupg", ".netrc", ".kube", ".docker"];
  const places = [...inHome, ".config/gh"].map((name) => join(home, name));
  places.push(join(base, "vault"));
  const own = join(base, "logs", "s1");
  await mkdir(own, { recursive: true });
  await writeFile(join(base, "notes.md"), "notes");
  const hiddenPlaces = { places, open: own };
  const notes = join(base, "notes.md");
  const judge = (path: string) =>
    judgeHiddenPlaces(hiddenPlaces, "view", [path, path], [], base)?.refusal?.split(":")[0] ?? "";
  // V8 makes each function's feedback vector and baseline code within its first calls.
  const warmUp = () => {
    for (let call = 0; call < 40; call++) {
      judge(notes);
    }
  };
  const judgedMany = (refusals: string[]) => () => {
    for (let call = 0; call < 500; call++) {
      refusals.push(judge(notes));
    }
  };
  warmUp();
  const whileMissing: string[] = [];
  const spellingBytes = await bytesAllocatedIn("spellings", judgedMany(whileMissing));
  // Three places made: two folders (one in the home, listed; one elsewhere) and a folder below
  // one the home lacked before.
  await mkdir(join(home, ".ssh"));
  await writeFile(join(home, ".ssh", "id"), "key");
  await mkdir(join(home, ".config", "gh"), { recursive: true });
  await mkdir(join(base, "vault"));
  warmUp();
  const whilePresent: string[] = [];
  const lstatBytes = await bytesAllocatedIn("lstatSync", judgedMany(whilePresent));
  // A spelling per place was an object and a `~/…` text at every call; the few bytes a call left
  // are Node's own (the rest parameters of `existsSync`'s path check, hideStackFrames).
  expect({
    spellingsUnder16BytesACall: spellingBytes < 16 * whileMissing.length,
    lstatBytes,
    refused: [...new Set([...whileMissing, ...whilePresent])],
    ssh: judge(join(home, ".ssh", "id")),
    gh: judge(join(home, ".config", "gh", "hosts.yml")),
    vault: judge(join(base, "vault", "token")),
  }).toEqual({
    spellingsUnder16BytesACall: true,
    lstatBytes: 0,
    refused: [""],
    ssh: `${home}/.ssh is hidden from the agent`,
    gh: `${home}/.config/gh is hidden from the agent`,
    vault: `${base}/vault is hidden from the agent`,
  });
});
