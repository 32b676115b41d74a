// Run by test/tools/file-identity.test.ts with `node --import tsx`, as another user (setpriv): runs
// the tool argv[3] (`edit` or `create`) with the argument object argv[4] (JSON) in the folder
// argv[2], then prints `{ "isError": …, "content": … }`: what the model reads.
import { join } from "node:path";
import { createTool } from "../../src/tools/create.js";
import type { ToolContext, ToolResult } from "../../src/tools/define-tool.js";
import { editTool } from "../../src/tools/edit.js";
import { KnownFiles } from "../../src/tools/tool-support.js";
import { localCommands, localSecrets } from "../support/commands.js";

const [cwd = ".", toolName = "edit", args = "{}"] = process.argv.slice(2);
const context: ToolContext = {
  cwd,
  sessionDirectory: join(cwd, ".session"),
  toolCallId: "call_1",
  signal: new AbortController().signal,
  commands: localCommands(),
  secrets: localSecrets(),
  knownFiles: new KnownFiles(),
};
const given = JSON.parse(args) as Record<string, unknown>;
let result: ToolResult;
if (toolName === "create") {
  result = await createTool.execute(createTool.input.parse(given), context);
} else {
  result = await editTool.execute(editTool.input.parse(given), context);
}
process.stdout.write(JSON.stringify({ isError: result.isError, content: result.content }));
