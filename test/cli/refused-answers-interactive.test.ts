/**
 * refused-answers.test.ts's full disk for the interactive terminal: the reply the store refused
 * stays on screen with one error line, a command's result the log refused says so on its line,
 * and the session goes on once the disk has room.
 */

import { describe, expect } from "vitest";
import { CAN_MOUNT, needingMount, useFullDisk } from "../support/full-disk.js";
import { tmuxMissing } from "../support/interactive-terminal.js";
import {
  ANSWER,
  FREE_BLOCKS,
  LOUD_CALL,
  refusedLog,
  UNRECORDED_WORDS,
} from "../support/storage-refusals.js";
import { interactiveTest } from "./interactive-support.js";

describe.runIf(CAN_MOUNT && !tmuxMissing())(
  needingMount("the interactive face on a disk too full for the model's answer"),
  () => {
    const disk = useFullDisk(512, false, { TURNLOOP_NO_CODE_CACHE: "1" });

    interactiveTest(
      "the reply stays on screen, one error line, and the next prompt is answered",
      async ({ fixture }) => {
        const terminal = await fixture.openReady([], { env: disk.env, columns: 400 });
        await disk.leave(FREE_BLOCKS);
        fixture.server.enqueue({ text: ANSWER });
        terminal.type("Say a lot");
        await terminal.waitFor(/the prompt was stopped/);
        await terminal.idle();
        const screen = await terminal.screen(400);
        expect(screen.match(/The end of the answer\./g)).toHaveLength(1);
        expect(screen.match(/could not be written/g)).toHaveLength(1);
        expect(screen).toMatch(new RegExp(refusedLog(disk.home)));
        await disk.free();
        fixture.server.enqueue({ text: "Hello again." });
        terminal.type("Say it again");
        await terminal.waitFor(/Hello again\./);
        await terminal.idle();
        terminal.key("C-d");
        expect((await terminal.exited()).code).toBe(0);
      },
    );

    interactiveTest(
      "a command's result the log refused: its line says the result is not in the log",
      async ({ fixture }) => {
        const terminal = await fixture.openReady(["--allow-all-tools"], {
          env: disk.env,
          columns: 200,
        });
        await disk.leave(FREE_BLOCKS);
        fixture.server.enqueue(LOUD_CALL, { text: "Never asked for." });
        terminal.type("go");
        await terminal.waitFor(/the prompt was stopped/);
        await terminal.idle();
        const rows = (await terminal.screen(200)).split("\n");
        const line = rows.findIndex((row) =>
          /^\s*✓ bash seq 1 8000\s+[\d.]+ (?:ms|s|min)$/.test(row),
        );
        // Trial 39 F3 on the screen: the call was drawn ✓ alone, as if its result were kept.
        expect(rows.slice(line, line + 2).map((row) => row.trim())).toEqual([
          expect.stringMatching(/^✓ bash seq 1 8000\s+[\d.]+ (?:ms|s|min)$/),
          `its ${UNRECORDED_WORDS}`,
        ]);
        terminal.key("C-d");
        expect((await terminal.exited()).code).toBe(0);
      },
    );
  },
);
