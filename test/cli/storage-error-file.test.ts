import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";
import { CAN_MOUNT, needingMount, useFullDisk } from "../support/full-disk.js";

// Trial 47 F8: a disk that filled during a command: the call's result could not be written to
// events.jsonl (the prompt was stopped, and the log's `session.error` names events.jsonl), then
// the prompt's last commit failed on the listing's metadata.json, and -p's JSON error named
// that file instead. The prompt's error is now the one the log records.

describe.runIf(CAN_MOUNT)(needingMount("a disk that fills during a command"), () => {
  const disk = useFullDisk(512, false, { TURNLOOP_NO_CODE_CACHE: "1" });

  test("-p json: the error names the file the log's session.error names", async ({
    cli,
    model,
  }) => {
    // Its output (saved as it comes) first, then the disk filled: the result cannot be logged.
    const command = `head -c 60000 /dev/zero | base64 -w 100; cat /dev/zero > ${join(disk.home, "filler")} 2>/dev/null; true`;
    model.enqueue(
      { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
      { text: "Done." },
    );
    const result = await cli(["-p", "run", "--allow-all-tools", "--output-format", "json"], {
      env: disk.env,
    });
    const { error, session_id } = JSON.parse(result.stdout) as {
      error?: { type: string; message: string };
      session_id: string;
    };
    const [folder = ""] = await readdir(join(disk.home, "session-state"));
    const log = await readFile(join(disk.home, "session-state", folder, "events.jsonl"), "utf8");
    const logged = log
      .split("\n")
      .filter((line) => line.includes('"type":"session.error"'))
      .map((line) => JSON.parse(line) as { data: { message: string } });
    expect({ code: result.code, session_id, type: error?.type }).toEqual({
      code: 1,
      session_id: folder,
      type: "storage",
    });
    expect(error?.message).toMatch(/\/events\.jsonl could not be written \(ENOSPC/);
    // Where the log holds its error (a line that fitted the log's last page), it is the same.
    expect(logged.map((event) => event.data.message)).toEqual(
      logged.length === 0 ? [] : [error?.message],
    );
  });
});
