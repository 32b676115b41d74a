import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { type CliResult, cleanEnvironment, runCli, whenFileExists } from "../support/cli.js";
import { chatMessages } from "../support/fake-model-server.js";
import { printedSessionId, test } from "../support/fixtures.js";
import { createTestDatabase, postgresUnavailable, type TestDatabase } from "../support/postgres.js";

/**
 * The PostgreSQL store through the built CLI, beside the tests both stores share
 * (store-matrix.test.ts): a session moved between the stores keeps its bytes, and the database
 * URL's password is never printed, stored in a holder's record or seen by a command (issue 22).
 * The databases are dropped after the file (test/support/postgres.ts).
 */

/** Each test runs the CLI several times; on a loaded 2-core machine that takes a while. */
const MANY_RUNS = { timeout: 120_000 };

/**
 * A new test database, and its URL with `password` in it: the test server trusts every
 * connection, so any password is accepted and none is checked.
 */
async function databaseWithPassword(
  password: string,
): Promise<{ database: TestDatabase; url: URL }> {
  const database = await createTestDatabase();
  const url = new URL(database.url);
  url.password = password;
  return { database, url };
}

describe.skipIf(postgresUnavailable !== undefined)("moving sessions between stores", () => {
  test(
    "a session goes file → PostgreSQL → file with the same bytes",
    MANY_RUNS,
    async ({ home, repository, model, environment }) => {
      model.enqueue({ text: "Moved: ünïcödé ✓." });
      const database = await createTestDatabase();
      const fileEnvironment = environment();
      const run = (args: string[]) => runCli(args, { cwd: repository, env: fileEnvironment });
      const first = await run(["-p", "Move me."]);
      const sessionId = printedSessionId(first.stderr);
      const original = await readFile(join(home, "session-state", sessionId, "events.jsonl"));

      const exported = join(repository, "session.jsonl");
      await run(["sessions", "export", sessionId, "--format", "jsonl", "--out", exported]);
      const intoDatabase = await run(["sessions", "import", exported, "--store", database.url]);
      expect(intoDatabase.code).toBe(0);
      const again = await run(["sessions", "import", exported, "--store", database.url]);
      expect([again.code, again.stderr]).toEqual([
        1,
        `turnloop: a session ${sessionId} already exists in ${database.url}\n`,
      ]);
      await run(["sessions", "delete", sessionId]);
      const back = join(repository, "back.jsonl");
      await writeFile(back, "");
      const out = await run([
        ...["sessions", "export", sessionId.slice(0, 8), "--format", "jsonl"],
        ...["--out", back, "--store", database.url],
      ]);
      expect(out.code).toBe(0);
      expect((await run(["sessions", "import", back])).code).toBe(0);
      expect(await readFile(join(home, "session-state", sessionId, "events.jsonl"))).toEqual(
        original,
      );
    },
  );

  test("turnloop config shows the database URL without its password, and so do errors", async ({
    repository,
    environment: modelEnvironment,
  }) => {
    const { url } = await databaseWithPassword("s3cret-word");
    const environment = modelEnvironment({ TURNLOOP_DATABASE_URL: url.href });
    const config = await runCli(["config"], { cwd: repository, env: environment });
    url.password = "***";
    expect(config.stdout).toContain(
      `store                    ${url.href}    from TURNLOOP_DATABASE_URL`,
    );
    const wrongPort = new URL(url.href);
    wrongPort.password = "s3cret-word";
    wrongPort.port = "1";
    const listed = await runCli(["sessions", "--store", wrongPort.href], {
      cwd: repository,
      env: environment,
    });
    expect(listed.code).toBe(1);
    expect(listed.stderr).toMatch(/^turnloop: postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\//);
    expect(`${config.stdout}${config.stderr}${listed.stderr}`).not.toContain("s3cret-word");
  });

  test(
    "a session held through --store names its holder without the database password, in the refusal and in the database",
    MANY_RUNS,
    async ({ repository, model, environment: modelEnvironment }) => {
      const { database, url } = await databaseWithPassword("s3cret-word");
      const environment = modelEnvironment();
      const command = "echo started > started.txt; sleep 60";
      model.enqueue({
        toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }],
      });
      let whileHeld: Promise<[CliResult, unknown[]]> | undefined;
      let holderPid: number | undefined;
      const holder = await runCli(["-p", "hold it", "--allow-all-tools", "--store", url.href], {
        cwd: repository,
        env: environment,
        onStart: (child) =>
          whenFileExists(join(repository, "started.txt"), child, () => {
            holderPid = child.pid;
            const refused = runCli(["-p", "me too", "--continue"], {
              cwd: repository,
              env: { ...environment, TURNLOOP_DATABASE_URL: database.url },
            });
            const owners = database.pool
              .query<{ owner: unknown }>("SELECT owner FROM sessions")
              .then(({ rows }) => rows);
            whileHeld = Promise.all([refused, owners]).finally(() => child.kill("SIGINT"));
          }),
      });
      expect(holder.code).toBe(130);
      const [refusal, owners] = (await whileHeld) ?? [];
      const holderCommand = `turnloop -p hold it --allow-all-tools --store ${url.href.replace("s3cret-word", "***")}`;
      expect(owners).toEqual([{ owner: expect.objectContaining({ command: holderCommand }) }]);
      expect(refusal?.code).toBe(1);
      expect(refusal?.stderr).toContain(`(pid ${holderPid}, running: ${holderCommand}, since `);
      expect(JSON.stringify([refusal, owners])).not.toContain("s3cret-word");
    },
  );

  test(
    "a command never sees the database URL, and its password is redacted wherever it is printed",
    MANY_RUNS,
    async ({ repository, model, environment: modelEnvironment }) => {
      const { url } = await databaseWithPassword("s3cret-word-123");
      const command = 'echo "url=$TURNLOOP_DATABASE_URL"; echo "typed s3cret-word-123"';
      model.enqueue(
        { toolCalls: [{ id: "call_1", name: "bash", arguments: JSON.stringify({ command }) }] },
        { text: "done" },
      );
      const environment = modelEnvironment({ TURNLOOP_DATABASE_URL: url.href });
      const result = await runCli(["-p", "show it", "--allow-all-tools"], {
        cwd: repository,
        env: environment,
      });
      expect(result.code).toBe(0);
      const toolResult = chatMessages(model, -1).find((message) => message.role === "tool");
      expect(toolResult?.content).toBe(
        "url=\ntyped [redacted:TURNLOOP_DATABASE_URL]\n<exited with exit code 0>",
      );
      const exported = await runCli(
        ["sessions", "export", printedSessionId(result.stderr), "--format", "jsonl"],
        { cwd: repository, env: environment },
      );
      expect(exported.stdout).toContain("[redacted:TURNLOOP_DATABASE_URL]");
      expect(`${result.stdout}${result.stderr}${exported.stdout}`).not.toContain("s3cret-word-123");
    },
  );

  test("a database reached through a socket folder that does not exist is named in the error, not taken for a missing session", async ({
    home,
    repository,
  }) => {
    const socketFolder = join(repository, "no-socket-here");
    const url = `postgres://postgres:s3cret-word@localhost/turnloop?host=${socketFolder}`;
    const environment = cleanEnvironment({ TURNLOOP_HOME: home });
    const results = await Promise.all(
      [["sessions"], ["sessions", "show", "1204b085"]].map((args) =>
        runCli([...args, "--store", url], { cwd: repository, env: environment }),
      ),
    );
    const refusal = {
      code: 1,
      stdout: "",
      stderr: `turnloop: ${url.replace("s3cret-word", "***")}: connect ENOENT ${socketFolder}/.s.PGSQL.5432\n`,
    };
    expect(results.map(({ code, stdout, stderr }) => ({ code, stdout, stderr }))).toEqual([
      refusal,
      refusal,
    ]);
  });
});
