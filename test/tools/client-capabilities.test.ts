import { access, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bashTool } from "../../src/tools/bash.js";
import type {
  CommandRequest,
  CommandResult,
  CommandRunner,
} from "../../src/tools/command-runner.js";
import { createTool } from "../../src/tools/create.js";
import type { ClientCapabilities } from "../../src/tools/define-tool.js";
import { editTool } from "../../src/tools/edit.js";
import { viewTool } from "../../src/tools/view.js";
import { knownFile, makeContext, runTool, useTemporaryDirectory } from "./tool-context.js";

let directory = "";
useTemporaryDirectory((path) => {
  directory = path;
});

/**
 * A command runner that answers from a script, standing in for a client's terminal: what the
 * `bash` tool asks of the port and how it words each kind of result.
 */
class ScriptedRunner implements CommandRunner {
  readonly description = "scripted terminal";
  readonly stopDescription = "the client stopped it";
  readonly requests: Array<Omit<CommandRequest, "signal" | "onOutput"> & { command: string }> = [];

  constructor(private readonly answer: (request: CommandRequest) => Promise<CommandResult>) {}

  run(command: string, request: CommandRequest): Promise<CommandResult> {
    const { signal: _signal, onOutput: _onOutput, ...rest } = request;
    this.requests.push({ command, ...rest });
    return this.answer(request);
  }
}

/** An editor standing in for an ACP client: open buffers by path. */
class FakeEditor implements ClientCapabilities {
  readonly buffers = new Map<string, string>();
  readonly calls: string[] = [];

  async readTextFile(path: string): Promise<string> {
    this.calls.push(`read ${path}`);
    const text = this.buffers.get(path);
    if (text === undefined) {
      throw new Error(`no buffer for ${path}`);
    }
    return text;
  }

  async writeTextFile(path: string, content: string): Promise<void> {
    this.calls.push(`write ${path}`);
    this.buffers.set(path, content);
  }
}

/** Only the members named, as a client that offers part of the capabilities would. */
function only(editor: FakeEditor, ...members: Array<keyof ClientCapabilities>): ClientCapabilities {
  const client: ClientCapabilities = {};
  for (const member of members) {
    Object.assign(client, { [member]: editor[member].bind(editor) });
  }
  return client;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe("tools use the client's files, and the runner they are given for commands", () => {
  it("view reads UTF-8 text through the client (unsaved changes) but decodes legacy files from disk", async () => {
    const editor = new FakeEditor();
    const path = join(directory, "a.ts");
    await writeFile(path, "saved\n");
    editor.buffers.set(path, "unsaved\nchange\n");
    const context = makeContext(directory, { client: editor });
    expect((await runTool(viewTool, { path: "a.ts" }, context)).content).toBe(
      "1. unsaved\n2. change",
    );
    await writeFile(join(directory, "old.txt"), Buffer.from("caf\xe9\n", "latin1"));
    const legacy = await runTool(viewTool, { path: "old.txt" }, context);
    expect(legacy.content).toBe(
      "1. café\n[The file is not valid UTF-8; it was decoded as windows-1252 (Latin-1).]",
    );
    expect(editor.calls).toEqual([`read ${path}`]);
  });

  it("edit reads and writes a UTF-8 file through the client, leaving the disk to it", async () => {
    const editor = new FakeEditor();
    const path = join(directory, "a.ts");
    await writeFile(path, "const a = 1;\n");
    editor.buffers.set(path, "const a = 1;\nconst b = 2;\n");
    const result = await runTool(
      editTool,
      { path: "a.ts", old_str: "const b = 2;", new_str: "const b = 3;" },
      makeContext(directory, { client: editor }),
    );
    expect(result.content).toBe(
      `File ${path} updated with changes.\n\n@@ -1,2 +1,2 @@\n const a = 1;\n-const b = 2;\n+const b = 3;`,
    );
    expect(editor.buffers.get(path)).toBe("const a = 1;\nconst b = 3;\n");
    expect(editor.calls).toEqual([`read ${path}`, `write ${path}`]);
    expect(await readFile(path, "utf8")).toBe("const a = 1;\n");
  });

  it("edit reads from disk and writes through the client when only writing is offered", async () => {
    const editor = new FakeEditor();
    const path = join(directory, "a.txt");
    await writeFile(path, "x = 1\n");
    const context = makeContext(directory, { client: only(editor, "writeTextFile") });
    await runTool(editTool, { path, old_str: "1", new_str: "2" }, context);
    expect(editor.calls).toEqual([`write ${path}`]);
    expect(editor.buffers.get(path)).toBe("x = 2\n");
  });

  it("edit keeps windows-1252, UTF-16 and byte-order-marked files on disk, away from the client", async () => {
    const editor = new FakeEditor();
    const context = makeContext(directory, { client: editor });
    const legacy = join(directory, "legacy.txt");
    await writeFile(legacy, Buffer.from("caf\xe9 = 1\n", "latin1"));
    await runTool(editTool, { path: legacy, old_str: "1", new_str: "2" }, context);
    expect(await readFile(legacy)).toEqual(Buffer.from("caf\xe9 = 2\n", "latin1"));
    const marked = join(directory, "marked.txt");
    await writeFile(marked, Buffer.from("\uFEFFvalue = 1\n"));
    await runTool(editTool, { path: marked, old_str: "1", new_str: "2" }, context);
    expect(await readFile(marked, "utf8")).toBe("\uFEFFvalue = 2\n");
    expect(editor.calls).toEqual([]);
  });

  it("create writes through the client and still makes the folders", async () => {
    const editor = new FakeEditor();
    const path = join(directory, "docs", "new.md");
    const result = await runTool(
      createTool,
      { path: "docs/new.md", file_text: "# New\n" },
      makeContext(directory, { client: only(editor, "readTextFile", "writeTextFile") }),
    );
    expect(result).toEqual({
      content: `Created file ${path} with 6 characters`,
      isError: false,
      knownFile: knownFile(path, "# New\n"),
      fileChange: { path, oldText: null, newText: "# New\n" },
    });
    expect(editor.buffers.get(path)).toBe("# New\n");
    expect(await exists(join(directory, "docs"))).toBe(true);
    expect(await exists(path)).toBe(false);
  });

  it("bash hands the command to the session's runner, with the timeout in milliseconds", async () => {
    const runner = new ScriptedRunner(async () => ({
      exitCode: 2,
      signal: null,
      output: "hello\n",
      truncated: false,
    }));
    const env = { PATH: "/usr/bin", PAGER: "cat" };
    const context = makeContext(directory, {
      toolCallId: "call_9",
      commands: { runner, env },
      secrets: [{ name: "SOME_TOKEN", value: "token-value-1234" }],
    });
    const result = await runTool(bashTool, { command: "echo hello; exit 2", timeout: 5 }, context);
    expect(result).toEqual({
      content: "hello\n<exited with exit code 2>",
      isError: false,
      exitCode: 2,
    });
    await runTool(bashTool, { command: "true" }, context);
    expect(runner.requests).toEqual([
      {
        command: "echo hello; exit 2",
        cwd: directory,
        env,
        timeoutMs: 5_000,
        savePath: join(directory, ".session", "tool-outputs", "call_9.txt"),
        secrets: [{ name: "SOME_TOKEN", value: "token-value-1234" }],
        toolCallId: "call_9",
      },
      {
        command: "true",
        cwd: directory,
        env,
        timeoutMs: 120_000,
        savePath: join(directory, ".session", "tool-outputs", "call_9.txt"),
        secrets: [{ name: "SOME_TOKEN", value: "token-value-1234" }],
        toolCallId: "call_9",
      },
    ]);
  });

  it("bash words a stop with the runner's own description, and a start failure as its reason", async () => {
    const stops = ["timeout", "cancelled"] as const;
    const results = [];
    for (const stopped of stops) {
      const runner = new ScriptedRunner(async () => ({
        exitCode: null,
        signal: null,
        output: "partial",
        truncated: false,
        stopped,
      }));
      const context = makeContext(directory, { commands: { runner, env: {} } });
      results.push(await runTool(bashTool, { command: "sleep 9", timeout: 0.05 }, context));
    }
    const failing = new ScriptedRunner(async () => ({
      exitCode: null,
      signal: null,
      output: "",
      truncated: false,
      startError: "Could not start the command: no terminal",
    }));
    const context = makeContext(directory, { commands: { runner: failing, env: {} } });
    results.push(await runTool(bashTool, { command: "true" }, context));
    expect(results).toEqual([
      { content: "partial\nCommand timed out after 0.05 s; the client stopped it.", isError: true },
      { content: "partial\nCommand cancelled; the client stopped it.", isError: true },
      { content: "Could not start the command: no terminal", isError: true },
    ]);
  });

  it("bash reports a command ended by a signal without an exit code", async () => {
    const runner = new ScriptedRunner(async () => ({
      exitCode: null,
      signal: "SIGSEGV",
      output: "end",
      truncated: false,
    }));
    const context = makeContext(directory, { commands: { runner, env: {} } });
    expect(await runTool(bashTool, { command: "crash" }, context)).toEqual({
      content: "end\n<exited after signal SIGSEGV>",
      isError: false,
    });
  });

  it("a failing client becomes an error result, not an exception", async () => {
    const editor = new FakeEditor();
    await writeFile(join(directory, "closed.txt"), "text\n");
    const result = await runTool(
      editTool,
      { path: "closed.txt", old_str: "text", new_str: "other" },
      makeContext(directory, { client: editor }),
    );
    expect(result).toEqual({
      content: `edit failed: no buffer for ${join(directory, "closed.txt")}`,
      isError: true,
    });
  });
});
