import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { chatMessages } from "../support/fake-model-server.js";
import { test } from "../support/fixtures.js";
import { requireSandbox } from "../support/sandbox.js";

// Session 27's trial: an untrusted project's `.turnloop/config.json` could set
// `sandbox.tmpfsSizeMiB` to any size, and each sandboxed command got a /tmp that large, taken from
// the machine's memory. Every sandbox key is now held by one rule (src/session/project-holds.ts
// `SANDBOX_WIDTH`): a project's value wider than the user's, or than the default, waits for
// trust; a narrower one applies. Real `turnloop -p` children, real bubblewrap; the size is what
// `df` reads in the sandbox.

const sandboxWorks = await requireSandbox();

/** What a command that only reads /tmp is told after its exit line (src/tools/sandbox/private-temporary.ts). */
const PRIVATE_TMP =
  "Note: in the sandbox /tmp outside the workspace is the command's own, empty /tmp, not this machine's: files there are not visible to sandboxed commands. To read them, the user can add their folder with --add-dir <folder> or put them in the workspace.";
/** Prints the size of the sandbox's /tmp in KiB. */
const TMP_SIZE = "df -k --output=size /tmp | tail -1 | tr -d ' '";

describe.runIf(sandboxWorks)("an untrusted project's sandbox.tmpfsSizeMiB", () => {
  test.for([
    {
      size: 999_999,
      shown: `${1024 * 1024}`,
      warning: "not applying sandbox.tmpfsSizeMiB",
    },
    { size: 16, shown: `${16 * 1024}`, warning: undefined },
  ])(
    "$size MiB: /tmp is $shown KiB",
    async ({ size, shown, warning }, { cli, model, repository }) => {
      await mkdir(join(repository, ".turnloop"));
      const path = join(repository, ".turnloop", "config.json");
      await writeFile(path, JSON.stringify({ sandbox: { tmpfsSizeMiB: size } }));
      model.enqueue(
        {
          toolCalls: [
            { id: "call_1", name: "bash", arguments: JSON.stringify({ command: TMP_SIZE }) },
          ],
        },
        { text: "Done." },
      );
      const result = await cli(["-p", "how big is /tmp", "--permission-mode", "auto"]);
      expect(result.code, result.stderr).toBe(0);
      const tool = chatMessages(model, -1).find((message) => message.role === "tool");
      expect(tool?.content).toBe(`${shown}\n<exited with exit code 0>\n${PRIVATE_TMP}`);
      expect(result.stderr.split("\n").filter((line) => line.includes("warning"))).toEqual(
        warning === undefined
          ? []
          : [
              `turnloop: warning: ${path}: ${warning}: this project is not trusted, and this key loosens permissions, sends data elsewhere or changes what a run may spend; run \`turnloop mcp trust\` in it to trust the whole project config`,
            ],
      );
    },
  );
});
