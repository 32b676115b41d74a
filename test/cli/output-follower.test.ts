import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OutputFollower } from "../../src/cli/output-follower.js";
import { CommandOutput } from "../../src/tools/command-output.js";

// The plain interactive face prints a running command's output from the runner's reports (the
// output so far: whole, or past the limit its head and tail around a line counting the line
// breaks cut). Here the reports come from the runner's own CommandOutput, at chosen points.

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "turnloop-follower-"));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** `line-NN\n` for each number from `from` to `to`: eight characters a line. */
function lines(from: number, to: number): string {
  return Array.from(
    { length: to - from + 1 },
    (_, index) => `line-${String(from + index).padStart(2, "0")}\n`,
  ).join("");
}

describe("a running command's output followed through its reports", () => {
  it("gives each whole line once; lines that scrolled out of the kept tail between two reports are counted", async () => {
    // 100 characters kept: a head of 40 (five lines) and a tail of 60.
    const output = new CommandOutput(100, join(directory, "saved.txt"), []);
    const follower = new OutputFollower();
    const append = (text: string) => output.append(Buffer.from(text), text);
    append(`${lines(1, 4)}line-0`);
    expect(follower.follow(output.preview())).toEqual(["line-01", "line-02", "line-03", "line-04"]);
    append(`5\n${lines(6, 30)}`);
    // The tail is lines 24 to 30: the last 60 characters from the first line that starts in them.
    expect(follower.follow(output.preview())).toEqual([
      "line-05",
      "[… 18 lines not shown …]",
      ...lines(24, 30).trimEnd().split("\n"),
    ]);
    append("line-31\nthe e");
    expect(follower.follow(output.preview())).toEqual(["line-31"]);
    // The same report again gives nothing new.
    expect(follower.follow(output.preview())).toEqual([]);
    append("nd");
    expect(follower.follow(output.preview())).toEqual([]);
    expect(follower.finish()).toEqual(["the end"]);
    expect(follower.finish()).toEqual([]);
    await output.finish();
  });

  it("an output cut inside one long line: nothing of it is given until a line break follows", async () => {
    const output = new CommandOutput(100, join(directory, "saved.txt"), []);
    const follower = new OutputFollower();
    const append = (text: string) => output.append(Buffer.from(text), text);
    append(`first\n${"x".repeat(300)}`);
    expect(output.preview()).toContain("\n[… output cut …]\n");
    expect(follower.follow(output.preview())).toEqual(["first", "[… 1 line not shown …]"]);
    append("\nafter\n");
    expect(follower.follow(output.preview())).toEqual(["after"]);
    expect(follower.finish()).toEqual([]);
    await output.finish();
  });
});
