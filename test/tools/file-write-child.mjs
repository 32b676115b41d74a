// Run by test/tools/file-identity.test.ts with plain `node` on the built tools (dist/;
// child-tool-context.mjs), as another user (setpriv): runs the tool argv[3] (`edit` or `create`)
// with the argument object argv[4] (JSON) in the folder argv[2], then prints
// `{ "isError": …, "content": … }`: what the model reads.
import { createTool } from "../../dist/tools/create.js";
import { editTool } from "../../dist/tools/edit.js";
import { KnownFiles } from "../../dist/tools/tool-support.js";
import { childToolContext } from "./child-tool-context.mjs";

const [cwd = ".", toolName = "edit", args = "{}"] = process.argv.slice(2);
const context = childToolContext(cwd, new KnownFiles());
const tool = toolName === "create" ? createTool : editTool;
const result = await tool.execute(tool.input.parse(JSON.parse(args)), context);
process.stdout.write(JSON.stringify({ isError: result.isError, content: result.content }));
