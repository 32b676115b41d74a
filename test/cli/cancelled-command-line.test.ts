import { join } from "node:path";
import { expect } from "vitest";
import { whenFileExists } from "../support/cli.js";
import { test } from "../support/fixtures.js";

// Trial of round 3 session 36 (P1-5): `-p`'s line of a command cut by SIGTERM read
// `interrupted (4340 ms): t1`, the command's first output line standing where the reason goes.
// The line says what stopped it now, and the output is shown apart, under it.

test("-p: a command cut by SIGTERM says so on its line, its output under it", async ({
  cli,
  model,
  repository,
}) => {
  const command = "for i in 1 2 3 4; do echo t$i; done; touch printed; sleep 30";
  model.enqueue({
    toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
  });
  const run = await cli(["-p", "run it", "--allow-all-tools"], {
    onStart: (child) =>
      whenFileExists(join(repository, "printed"), child, () => child.kill("SIGTERM")),
  });
  const lines = run.stderr
    .replace(/ \([\d.]+ (?:ms|s|min)\)/, " (N ms)")
    .split("\n")
    .filter((line) => !/ · session /.test(line));
  expect({ code: run.code, lines }).toEqual({
    code: 143,
    lines: [
      `⊘ bash ${command} interrupted (N ms): cancelled by SIGTERM; its process group was killed`,
      "    t1",
      "    t2",
      "    t3",
      "    t4",
      "cancelled by SIGTERM",
      "",
    ],
  });
});
