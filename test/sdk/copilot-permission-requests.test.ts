import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join, sep } from "node:path";
import type { CopilotClient, PermissionRequest } from "@github/copilot-sdk";
import { beforeAll, describe, expect, test } from "vitest";
import { callingTools } from "../support/replies.js";
import { fixtureForFile, startCopilotClient } from "./support.js";

/**
 * What an app written for the official `@github/copilot-sdk` gets in `onPermissionRequest` for a
 * command and a file write (reference §4.3, the SDK's `PermissionRequestShell` and
 * `PermissionRequestWrite`): the programs turnloop's own parser finds, not the first word.
 */

const fixture = fixtureForFile();
let client: CopilotClient;
beforeAll(async () => {
  // Not --yolo: every call is asked about.
  client = await startCopilotClient(fixture, []);
});

/** The requests an approving handler is asked, for one prompt whose reply makes `calls`. */
async function askedFor(calls: Parameters<typeof callingTools>): Promise<PermissionRequest[]> {
  const asked: PermissionRequest[] = [];
  const session = await client.createSession({
    onPermissionRequest: (request) => {
      asked.push(request);
      // Denied, and the prompt goes on (a `reject` would end it before the model's answer).
      return { kind: "user-not-available" };
    },
  });
  fixture.model.enqueue(callingTools(...calls), { text: "done" });
  await session.sendAndWait({ prompt: "go" });
  await session.disconnect();
  return asked;
}

/** Copilot's `shell` fields of a request (the common ones left out). */
function shellFields(request: PermissionRequest | undefined) {
  if (request?.kind !== "shell") {
    return request;
  }
  const { fullCommandText, commands, commandSegments, possiblePaths, possibleUrls } = request;
  const { hasWriteFileRedirection, canOfferSessionApproval, warning } = request;
  return {
    ...{ fullCommandText, commands, commandSegments, possiblePaths, possibleUrls },
    ...{ hasWriteFileRedirection, canOfferSessionApproval, warning },
  };
}

const run = (command: string) => ({ identifier: command, readOnly: false });
/** The warning names the parser's reasons (permissions/shell-commands.ts words them). */
const unreadable = expect.stringMatching(
  /^turnloop cannot fully read this command \(.+\): it may run programs and touch files not listed here$/,
);

describe("the shell request names every program the command runs", () => {
  test("lists, pipes, VAR=x prefixes, wrappers, redirections, URLs, and a command the parser cannot read", async () => {
    const commands = [
      "echo hi > out.txt && rm -rf /tmp/nothing",
      "git status | sh",
      "X=1 sudo nice rm -f nothing2",
      "curl --output=/tmp/page https://example.org/x < in.txt",
      "$CMD foo",
      "echo hi &&",
    ];
    const asked = await askedFor(
      commands.map((command, index) => [`call_${index}`, "bash", { command }]),
    );
    expect(asked.map(shellFields)).toEqual([
      {
        fullCommandText: commands[0],
        commands: [run("echo"), run("rm")],
        commandSegments: [
          { identifier: "echo", fullCommandText: "echo hi" },
          { identifier: "rm", fullCommandText: "rm -rf /tmp/nothing" },
        ],
        possiblePaths: ["hi", "/tmp/nothing", "out.txt"],
        possibleUrls: [],
        hasWriteFileRedirection: true,
        canOfferSessionApproval: true,
        warning: undefined,
      },
      {
        fullCommandText: commands[1],
        commands: [run("git"), run("sh")],
        commandSegments: [
          { identifier: "git", fullCommandText: "git status" },
          { identifier: "sh", fullCommandText: "sh" },
        ],
        possiblePaths: ["status"],
        possibleUrls: [],
        hasWriteFileRedirection: false,
        // `sh` runs what it reads on stdin: the parser cannot tell what.
        canOfferSessionApproval: false,
        warning: unreadable,
      },
      {
        fullCommandText: commands[2],
        commands: [run("rm")],
        // The variable stays in the segment (trial finding 4), the wrappers do not.
        commandSegments: [{ identifier: "rm", fullCommandText: "X=1 rm -f nothing2" }],
        possiblePaths: ["nothing2"],
        possibleUrls: [],
        hasWriteFileRedirection: false,
        canOfferSessionApproval: true,
        warning: undefined,
      },
      {
        fullCommandText: commands[3],
        commands: [run("curl")],
        commandSegments: [
          { identifier: "curl", fullCommandText: "curl --output=/tmp/page https://example.org/x" },
        ],
        possiblePaths: ["/tmp/page", "in.txt"],
        possibleUrls: [{ url: "https://example.org/x" }],
        // `--output=` writes a file as `>` would (permissions/shell-side-effects.ts).
        hasWriteFileRedirection: true,
        canOfferSessionApproval: true,
        warning: undefined,
      },
      {
        fullCommandText: commands[4],
        commands: [run("$CMD")],
        commandSegments: [{ identifier: "$CMD", fullCommandText: "$CMD foo" }],
        possiblePaths: ["foo"],
        possibleUrls: [],
        hasWriteFileRedirection: false,
        canOfferSessionApproval: false,
        warning: unreadable,
      },
      {
        fullCommandText: commands[5],
        // No program found: the whole text, which no allowlist of program names holds.
        commands: [run("echo hi &&")],
        commandSegments: [],
        possiblePaths: [],
        possibleUrls: [],
        hasWriteFileRedirection: false,
        canOfferSessionApproval: false,
        warning: unreadable,
      },
    ]);
  });
});

describe("what the shell does before the program runs (trial findings 3, 4, 15, 20)", () => {
  test("a variable stays in its segment; a command the gate cannot read carries the warning", async () => {
    const commands = [
      "GIT_EXTERNAL_DIFF=./evil git diff",
      "env GIT_PAGER=./evil git log",
      "hash -p /usr/bin/rm ls; ls x",
      "git {-c,core.fsmonitor=./evil} status",
      "git log -1 --outpu*",
    ];
    const asked = await askedFor(
      commands.map((command, index) => [`call_v${index}`, "bash", { command }]),
    );
    expect(
      asked.map((request) => [
        request.kind === "shell" && request.commandSegments,
        request.kind === "shell" && request.canOfferSessionApproval,
        request.kind === "shell" && request.warning,
      ]),
    ).toEqual([
      [
        [{ identifier: "git", fullCommandText: "GIT_EXTERNAL_DIFF=./evil git diff" }],
        false,
        unreadable,
      ],
      [[{ identifier: "git", fullCommandText: "GIT_PAGER=./evil git log" }], false, unreadable],
      [
        [
          { identifier: "hash", fullCommandText: "hash -p /usr/bin/rm ls" },
          { identifier: "ls", fullCommandText: "ls x" },
        ],
        false,
        unreadable,
      ],
      [
        [{ identifier: "git", fullCommandText: "git -c core.fsmonitor=./evil status" }],
        false,
        unreadable,
      ],
      [[{ identifier: "git", fullCommandText: "git log -1 --outpu*" }], false, unreadable],
    ]);
  });
});

describe("the shell request names what a package runner runs and git's options that run one", () => {
  test("npx rm: both programs listed; git clone -u: a warning, no session approval (session-16 trial, 4)", async () => {
    const commands = ["npx rm -f nothing3", "git clone -qu 'rm x' /tmp/nothing4 c"];
    const asked = await askedFor(
      commands.map((command, index) => [`call_${index}`, "bash", { command }]),
    );
    expect(asked.map(shellFields)).toMatchObject([
      {
        commands: [run("npx"), run("rm")],
        commandSegments: [
          { identifier: "npx", fullCommandText: "npx rm -f nothing3" },
          { identifier: "rm", fullCommandText: "rm -f nothing3" },
        ],
        canOfferSessionApproval: true,
        warning: undefined,
      },
      {
        commands: [run("git")],
        canOfferSessionApproval: false,
        warning: expect.stringContaining("git clone -qu runs a program"),
      },
    ]);
  });
});

describe("the write request shows the change", () => {
  test("create: newFileContents and a diff from /dev/null; edit: a diff of the file as it is", async () => {
    const created = join(fixture.cwd, "new.txt");
    const edited = join(fixture.cwd, "old.txt");
    await writeFile(edited, "one\ntwo\nthree\n");
    const asked = await askedFor([
      ["call_c", "create", { path: "new.txt", file_text: "alpha\nbeta\n" }],
      ["call_e", "edit", { path: "old.txt", old_str: "two", new_str: "2" }],
      ["call_z", "create", { path: "empty.txt", file_text: "" }],
      ["call_s", "create", { path: "old.txt", file_text: "one\ntwo\nthree\n", overwrite: true }],
    ]);
    const writes = asked.map((request) =>
      request.kind === "write"
        ? [request.fileName, request.diff, request.newFileContents, request.canOfferSessionApproval]
        : request.kind,
    );
    expect(writes).toEqual([
      [
        created,
        `--- /dev/null\n+++ ${created}\n@@ -0,0 +1,2 @@\n+alpha\n+beta\n`,
        "alpha\nbeta\n",
        true,
      ],
      [
        edited,
        `--- ${edited}\n+++ ${edited}\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n`,
        undefined,
        true,
      ],
      // Nothing differs (session-18 brief #5): no hunk, not `@@ -0,0 +0,0 @@`.
      [
        join(fixture.cwd, "empty.txt"),
        `--- /dev/null\n+++ ${join(fixture.cwd, "empty.txt")}\n`,
        "",
        true,
      ],
      [edited, `--- ${edited}\n+++ ${edited}\n`, "one\ntwo\nthree\n", true],
    ]);
    // All were denied: nothing was written.
    expect(await readFile(edited, "utf8")).toBe("one\ntwo\nthree\n");
  });
});

describe("the write request shows the change the tool would make", () => {
  // The question's diff came from the server's own UTF-8 read of the file: a windows-1252 or
  // UTF-16 file the tool decodes showed as replacement characters, and an edit of it as a diff of
  // old_str and new_str alone, as if it did not match. It now comes from the tool's check.
  test("an edit and an overwrite of files in windows-1252 and UTF-16, as the tool decodes them", async () => {
    const latin = join(fixture.cwd, "latin.txt");
    const wide = join(fixture.cwd, "wide.txt");
    await writeFile(latin, Buffer.from("one\ncaf\xe9\nthree\n", "latin1"));
    await writeFile(
      wide,
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("été\n", "utf16le")]),
    );
    const asked = await askedFor([
      ["call_l", "edit", { path: "latin.txt", old_str: "café", new_str: "cafe" }],
      ["call_w", "create", { path: "wide.txt", file_text: "hiver\n", overwrite: true }],
    ]);
    const diffs = asked.map((request) => (request.kind === "write" ? request.diff : request.kind));
    expect(diffs).toEqual([
      `--- ${latin}\n+++ ${latin}\n@@ -1,3 +1,3 @@\n one\n-café\n+cafe\n three\n`,
      `--- ${wide}\n+++ ${wide}\n@@ -1,1 +1,1 @@\n-été\n+hiver\n`,
    ]);
  });
});

describe("the write request's diff applies with GNU patch", () => {
  test("create, edit, and an edit that leaves the file with no line: patch --dry-run accepts each", async () => {
    await writeFile(join(fixture.cwd, "kept.txt"), "one\ntwo\nthree\n");
    await writeFile(join(fixture.cwd, "emptied.txt"), "x\ny\n");
    const asked = await askedFor([
      ["call_p1", "create", { path: "made.txt", file_text: "alpha\nbeta\n" }],
      ["call_p2", "edit", { path: "kept.txt", old_str: "two", new_str: "2" }],
      ["call_p3", "edit", { path: "emptied.txt", old_str: "x\ny\n", new_str: "" }],
    ]);
    const diffs = asked.flatMap((request) => (request.kind === "write" ? [request.diff] : []));
    expect(diffs).toHaveLength(3);
    expect(diffs[2]).toContain("@@ -1,2 +0,0 @@");
    // The diffs name absolute paths, which patch ignores: strip them down to the file's name.
    const strip = `-p${fixture.cwd.split(sep).length}`;
    const checked = diffs.map((diff) => {
      const run = spawnSync("patch", [strip, "--dry-run", "--batch"], {
        cwd: fixture.cwd,
        input: diff,
        encoding: "utf8",
      });
      return [run.status, run.stdout.trim()];
    });
    expect(checked).toEqual([
      [0, "checking file made.txt"],
      [0, "checking file kept.txt"],
      [0, "checking file emptied.txt"],
    ]);
  });
});

describe("permission.completed says who denied a call", () => {
  test("no user to ask (user-not-available) is Copilot's could-not-request kind, not the user's denial", async () => {
    const kinds: string[] = [];
    const session = await client.createSession({
      onPermissionRequest: () => ({ kind: "user-not-available" }),
    });
    session.on((event) => {
      if (event.type === "permission.completed") {
        kinds.push(event.data.result.kind);
      }
    });
    fixture.model.enqueue(callingTools(["call_n", "bash", { command: "echo hi" }]), {
      text: "done",
    });
    await session.sendAndWait({ prompt: "go" });
    await session.disconnect();
    expect(kinds).toEqual(["denied-no-approval-rule-and-could-not-request-from-user"]);
  });
});
