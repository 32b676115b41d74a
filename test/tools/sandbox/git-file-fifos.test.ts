import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { fifoMaker } from "../../support/fifos.js";
import { test } from "../../support/fixtures.js";
import { type ToolCallSpec, toolResultsThroughCli } from "../../support/one-command.js";
import { requireSandbox } from "../../support/sandbox.js";

/*
 * The git files the sandbox reads to find the places a repository's config sends git to
 * (src/tools/sandbox/configured-places.ts: the repository's config and the files it includes,
 * `config.worktree`, the user's `~/.gitconfig`, a linked worktree's `.git` file and its
 * `commondir`) were read with `readFileSync`: a FIFO in any of them blocked turnloop's main thread
 * for good, while it built a command's sandbox or judged an edit under `auto` (in server mode,
 * every session). Each is now read as a repository's file (tools/project-file.ts): a FIFO is
 * refused at once. Each case: the built CLI under `-p --permission-mode auto`, a real FIFO, real
 * bubblewrap; the command runs, the edit is made, the run ends. Skipped (and said so) where
 * bubblewrap cannot run, never in CI.
 */

const sandboxWorks = await requireSandbox();

test.override({ git: true });

/** FIFOs made by a test, released after it (a reader blocked on one ends). */
const makeFifo = fifoMaker();

/**
 * Where each case puts its FIFO, given the repository and the home folder (`HOME`); the folder
 * (relative to the repository) whose `notes.txt` the model creates, in the repository that file
 * names.
 */
const places: [string, (repository: string, home: string) => Promise<void>, string][] = [
  [
    "the repository's .git/config",
    async (repository) => {
      await rm(join(repository, ".git", "config"));
      makeFifo(join(repository, ".git", "config"));
    },
    ".",
  ],
  [
    "a file the repository's config includes",
    async (repository) => {
      await writeFile(join(repository, ".git", "config"), "[include]\n\tpath = ../shared.conf\n");
      makeFifo(join(repository, "shared.conf"));
    },
    ".",
  ],
  [
    "the repository's config.worktree",
    async (repository) => makeFifo(join(repository, ".git", "config.worktree")),
    ".",
  ],
  ["the user's ~/.gitconfig", async (_repository, home) => makeFifo(join(home, ".gitconfig")), "."],
  [
    "a linked worktree's commondir",
    async (repository) => {
      const gitFolder = join(repository, ".git", "worktrees", "linked");
      await mkdir(gitFolder, { recursive: true });
      await mkdir(join(repository, "linked"));
      await writeFile(join(repository, "linked", ".git"), `gitdir: ${gitFolder}\n`);
      makeFifo(join(gitFolder, "commondir"));
    },
    "linked",
  ],
  [
    "a .git entry that is itself a FIFO",
    async (repository) => {
      await mkdir(join(repository, "nested"));
      makeFifo(join(repository, "nested", ".git"));
    },
    "nested",
  ],
];

describe.runIf(sandboxWorks)("a FIFO where git's files are", () => {
  test.for(places)(
    "%s: the command runs and the edit is made, at once",
    async ([, plant, folder], { cli, model, repository, home }) => {
      await plant(repository, home);
      const calls: ToolCallSpec[] = [
        ["bash", { command: `cd ${folder} && echo ran` }],
        ["create", { path: join(folder, "notes.txt"), file_text: "x\n" }],
      ];
      // Through -p, which exits 0 (else this throws).
      const { stdout, stderr, results } = await toolResultsThroughCli({ cli, model }, calls, [
        "--permission-mode",
        "auto",
      ]);
      // No warning either (stderr's other lines are the progress, with times).
      const warnings = stderr.split("\n").filter((line) => line.startsWith("turnloop:"));
      expect({ stdout, warnings, results }).toEqual({
        stdout: "Done.\n",
        warnings: [],
        results: [
          "ran\n<exited with exit code 0>",
          `Created file ${join(repository, folder, "notes.txt")} with 2 characters`,
        ],
      });
    },
  );
});
