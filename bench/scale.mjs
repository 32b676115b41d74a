/**
 * The chaos bench of issue 22 (`npm run bench -- scale [--sessions N]`, default 1,000): 4 worker
 * processes (the SDK server) on one PostgreSQL database and the fake model (3 tool turns per
 * prompt); one worker killed with SIGKILL a third of the way in, another frozen with SIGSTOP past
 * its 10 s lease at half-way and then resumed. Then it checks, from the database: every session
 * finished; each session's sequence numbers contiguous from 1; every `tool.execution_start` with
 * exactly one `tool.execution_complete`; epochs never going back along a session (the frozen
 * worker's late appends were refused); and a subscriber in this process (a worker owning no
 * session) saw every persisted event once, in order. The same sessions' figures on one worker
 * with the file store are measured beside them. The section is appended to bench/RESULTS.md.
 */

import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeModelProcess } from "./fake-model.mjs";
import { installCleanup, onSignalCleanup } from "./scale-cleanup.mjs";
import { startDatabase } from "./scale-database.mjs";
import { measureStore } from "./scale-store.mjs";
import { driveSessions, startWorkers, stopWorkers } from "./scale-workers.mjs";
import { BENCH_MODEL, createScenarioRepository } from "./scenario.mjs";
import { percentile } from "./statistics.mjs";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const dist = join(root, "dist");
const cliPath = join(dist, "cli", "main.js");
const LEASE_MS = 10_000;
const TOOL_TURNS = 3;
const LANES = 6;

/** A line on stderr with SCALE_DEBUG set. @param {string} line */
const progress = (line) =>
  process.env.SCALE_DEBUG === undefined ? undefined : process.stderr.write(`scale: ${line}\n`);

/** @param {string[]} argv */
function parseArguments(argv) {
  const at = argv.indexOf("--sessions");
  const sessions = at === -1 ? 1000 : Number(argv[at + 1]);
  if (!Number.isInteger(sessions) || sessions < 8) {
    process.stderr.write("usage: npm run bench -- scale [--sessions N]  (N ≥ 8)\n");
    process.exit(64);
  }
  return { sessions };
}

/** Runs the sessions on 4 PostgreSQL workers with the kill and the freeze. */
async function chaosRun(context, database, sessions) {
  const env = { ...context.env, TURNLOOP_DATABASE_URL: database.url };
  const workers = await startWorkers({ cliPath, dist, cwd: context.repo, env, count: 4 });
  progress("workers started");
  const { PostgresSessionStore } = await import(join(dist, "session", "postgres", "store.js"));
  const subscriber = new PostgresSessionStore({ url: database.url, home: context.home });
  /** @type {Map<string, Array<{seq: number, id: string}>>} */
  const seen = new Map();
  const subscriptions = [];
  const events = { killedAt: 0, frozenAt: 0, thawedAt: 0 };
  const [, killed, frozen] = workers;
  try {
    const result = await driveSessions(workers, {
      sessions,
      lanes: LANES,
      isFree: async (sessionId) => (await subscriber.holder(sessionId)) === undefined,
      onCreated: async (sessionId) => {
        const list = [];
        seen.set(sessionId, list);
        subscriptions.push(
          await subscriber.subscribe(sessionId, 1, (event, seq) =>
            list.push({ seq, id: event.id }),
          ),
        );
      },
      chaos: async (finished) => {
        progress(`${finished} finished`);
        if (events.killedAt === 0 && finished >= sessions / 3) {
          events.killedAt = performance.now();
          killed.usable = false;
          killed.child.kill("SIGKILL");
        }
        if (events.frozenAt === 0 && finished >= sessions / 2) {
          events.frozenAt = performance.now();
          frozen.usable = false;
          frozen.child.kill("SIGSTOP");
          setTimeout(() => {
            events.thawedAt = performance.now();
            frozen.child.kill("SIGCONT");
          }, LEASE_MS + 3000);
        }
      },
    });
    // The thawed worker finds its leases lost; give its refused appends time to be tried.
    while (events.frozenAt !== 0 && events.thawedAt === 0) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
    for (const subscription of subscriptions) {
      await subscription.readNow();
    }
    const checks = await check(database.url, result, seen, sessions);
    await reportStall(database.url, result.stalled);
    const firstFrom = (worker, mustWait) =>
      result.takeovers.find(
        (takeover) => takeover.from === worker.index && (!mustWait || takeover.waited),
      )?.at;
    return {
      ...result,
      checks,
      killTakeoverMs: (firstFrom(killed, false) ?? Number.NaN) - events.killedAt,
      // Only a session the frozen worker still held counts: one whose lease it had already let go
      // (an idle lease) is taken over at once, which says nothing about the lease's expiry.
      freezeTakeoverMs: (firstFrom(frozen, true) ?? Number.NaN) - events.frozenAt,
      workers: workers.map(({ index, stderr }) => ({ index, stderr })),
      frozenRefusals: result.lostErrors.filter(
        (error) => error.worker === frozen.index && /lease[^\n]*was lost/i.test(error.message),
      ).length,
    };
  } finally {
    await Promise.all(subscriptions.map((subscription) => subscription.close()));
    await subscriber.close();
    await stopWorkers(workers);
  }
}

/**
 * After a stall, on stderr: each unfinished session's last stored event and holder, and what the
 * bench was waiting on for it.
 */
async function reportStall(url, stalled) {
  if (stalled.length === 0) {
    return;
  }
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const wait of stalled) {
      const label = wait.sessionId ?? `session number ${wait.index} (not created)`;
      let stored = "";
      if (wait.sessionId !== undefined) {
        const { rows } = await client.query(
          `SELECT e.seq, e.type, s.owner_id, s.lease_until > now() AS live FROM sessions s
           LEFT JOIN events e ON e.session_id = s.id WHERE s.id = $1 ORDER BY e.seq DESC LIMIT 1`,
          [wait.sessionId],
        );
        const [row] = rows;
        stored =
          row === undefined
            ? "; not stored"
            : `; last stored event ${row.seq} ${row.type}, held: ${row.live === true}`;
      }
      process.stderr.write(
        `scale: unfinished ${label}: worker ${wait.worker} waiting on ${wait.waitingOn}${stored}\n`,
      );
    }
  } finally {
    await client.end();
  }
}

/** The database's view of the run. */
async function check(url, result, seen, sessions) {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const query = async (text) => (await client.query(text)).rows;
    const gaps = await query(
      `SELECT session_id FROM events GROUP BY session_id
       HAVING min(seq) <> 1 OR max(seq) <> count(*)`,
    );
    const unmatched = await query(
      `SELECT s.id FROM (SELECT data::jsonb->'data'->>'toolCallId' AS id FROM events
         WHERE type = 'tool.execution_start') AS s
       LEFT JOIN (SELECT data::jsonb->'data'->>'toolCallId' AS id, count(*) AS n FROM events
         WHERE type = 'tool.execution_complete' GROUP BY 1) AS c ON c.id = s.id
       WHERE coalesce(c.n, 0) <> 1`,
    );
    const epochsBack = await query(
      `SELECT session_id FROM (SELECT session_id, epoch,
         lag(epoch) OVER (PARTITION BY session_id ORDER BY seq) AS before FROM events) AS e
       WHERE epoch < before GROUP BY session_id`,
    );
    const rows = await query(
      "SELECT session_id, seq, data::jsonb->>'id' AS id FROM events ORDER BY session_id, seq",
    );
    const stored = new Map();
    for (const row of rows) {
      const list = stored.get(row.session_id) ?? [];
      list.push({ seq: Number(row.seq), id: row.id });
      stored.set(row.session_id, list);
    }
    const subscriberMisses = result.ids.filter(
      (id) => JSON.stringify(seen.get(id)) !== JSON.stringify(stored.get(id)),
    );
    return {
      unfinished: sessions - result.finished.size,
      gaps: gaps.length,
      unmatched: unmatched.length,
      epochsBack: epochsBack.length,
      subscriberMisses: subscriberMisses.length,
      events: rows.length,
    };
  } finally {
    await client.end();
  }
}

/** The same prompts on one worker with the file store (no chaos). */
async function fileRun(context, sessions) {
  const [worker] = await startWorkers({
    cliPath,
    dist,
    cwd: context.repo,
    env: context.env,
    count: 1,
  });
  try {
    return await driveSessions([worker], {
      sessions,
      lanes: LANES,
      onCreated: async () => undefined,
      isFree: async () => true,
      chaos: async () => undefined,
    });
  } finally {
    await stopWorkers([worker]);
  }
}

const fixed = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : "—");

function section({ command, sessions, load }, postgres, files, store) {
  const rate = (run) => run.finished.size / (run.wallMs / 1000);
  const p = (run, fraction) => fixed(percentile(run.promptMs, fraction));
  const { checks } = postgres;
  const ok = (count) => (count === 0 ? "yes" : `**no** (${count})`);
  return `
## Many workers: the chaos trial (issue 22)

\`${command}\` — ${sessions} sessions, each one prompt of ${TOOL_TURNS} tool turns and an answer
(4 model requests) against the fake model; 4 SDK-server workers on one PostgreSQL (lease
${LEASE_MS / 1000} s), ${LANES} sessions at a time per worker; one worker \`kill -9\`ed a third of
the way in, one SIGSTOPped at half-way for ${(LEASE_MS + 3000) / 1000} s, then SIGCONTed. Run
${new Date().toISOString()}, Node ${process.version}, ${cpus().length} cores shared with other work
(1-minute load average ${fixed(load.before, 2)} at the start, ${fixed(load.after, 2)} after the
PostgreSQL run).

| Figure | PostgreSQL, 4 workers + chaos | Files, 1 worker | Target |
| --- | --- | --- | --- |
| Sessions finished / asked for | ${postgres.finished.size} / ${sessions} | ${files.finished.size} / ${sessions} | all |
| Throughput, sessions/s | ${fixed(rate(postgres), 1)} | ${fixed(rate(files), 1)} | |
| Prompt (4 model turns) p50 / p99, ms | ${p(postgres, 0.5)} / ${p(postgres, 0.99)} | ${p(files, 0.5)} / ${p(files, 0.99)} | |
| Takeover after \`kill -9\`, ms (holder on this machine: its dead pid frees the lease at once) | ${fixed(postgres.killTakeoverMs)} | — | ≤ 15,000 |
| Takeover after SIGSTOP of a session the frozen worker held (its lease must lapse), ms | ${fixed(postgres.freezeTakeoverMs)} | — | ≤ 15,000 |
| Appended events/s, batched (${store.appendedEvents} events, 8 sessions × 25 per commit) | ${fixed(store.eventsPerSecond)} | — | ≥ 3,000 |
| Commit → subscriber on another worker, p50 / p99, ms (${store.wakeUpCommits} commits ${store.wakeUpSpacingMs} ms apart) | ${fixed(store.wakeUpP50, 1)} / ${fixed(store.wakeUpP99, 1)} | — | p99 ≤ 30 |

Checks (PostgreSQL run, ${checks.events} events): every session finished: ${ok(checks.unfinished)};
contiguous sequence numbers: ${ok(checks.gaps)}; every \`tool.execution_start\` with exactly one
completion: ${ok(checks.unmatched)}; no append of an older epoch after a newer one (the frozen
worker's late appends refused; ${postgres.frozenRefusals} of its prompts ended on "the writer lease … was lost"):
${ok(checks.epochsBack)}; a subscriber on a worker owning no session saw every persisted event
once, in order: ${ok(checks.subscriberMisses)}. Prompts that failed: ${postgres.failures.length}.
`;
}

async function main() {
  const { sessions } = parseArguments(process.argv.slice(2));
  installCleanup();
  const temp = mkdtempSync(join(tmpdir(), "turnloop-scale-"));
  const removeTemp = async () => rmSync(temp, { recursive: true, force: true });
  const forgetTemp = onSignalCleanup(removeTemp);
  try {
    const repo = join(temp, "repo");
    createScenarioRepository(repo);
    mkdirSync(join(temp, "user-home"), { recursive: true });
    const model = await startFakeModelProcess({ toolTurns: TOOL_TURNS, answerDeltas: 8 });
    const forgetModel = onSignalCleanup(() => model.close());
    try {
      const database = await startDatabase();
      const forgetDatabase = onSignalCleanup(() => database.stop());
      try {
        await measure(temp, model, database, sessions);
      } finally {
        forgetDatabase();
        await database.stop();
      }
    } finally {
      forgetModel();
      await model.close();
    }
  } finally {
    forgetTemp();
    await removeTemp();
  }
}

/**
 * Writes `text` between the `keep:scale` markers of `results` (bench/report.mjs keeps such
 * sections when it rewrites the file): in place of the previous run's, else at the end.
 */
function writeSection(results, text) {
  const block = `<!-- keep:scale -->\n${text.trim()}\n<!-- /keep:scale -->\n`;
  const before = readFileSync(results, "utf8");
  const pattern = /<!-- keep:scale -->[\s\S]*?<!-- \/keep:scale -->\n?/;
  if (pattern.test(before)) {
    writeFileSync(
      results,
      before.replace(pattern, () => block),
    );
  } else {
    appendFileSync(results, `${before.endsWith("\n") ? "" : "\n"}${block}`);
  }
}

/** The three measures, the section written to bench/RESULTS.md, the exit code. */
async function measure(temp, model, database, sessions) {
  const home = join(temp, "home");
  const context = {
    repo: join(temp, "repo"),
    home,
    env: {
      PATH: process.env.PATH,
      HOME: join(temp, "user-home"),
      TURNLOOP_HOME: home,
      TURNLOOP_MODEL: BENCH_MODEL,
      TURNLOOP_BASE_URL: model.baseUrl,
    },
  };
  process.stderr.write(`scale: ${sessions} sessions on 4 PostgreSQL workers, with chaos…\n`);
  const loadBefore = loadavg()[0];
  const postgres = await chaosRun(context, database, sessions);
  process.stderr.write("scale: store figures…\n");
  const store = await measureStore(dist, database.url, home);
  process.stderr.write(`scale: ${sessions} sessions on 1 file-store worker…\n`);
  const files = await fileRun(
    { ...context, env: { ...context.env, TURNLOOP_HOME: join(temp, "files") } },
    sessions,
  );
  const command = `npm run bench -- scale --sessions ${sessions}`;
  const load = { before: loadBefore, after: loadavg()[0] };
  const text = section({ command, sessions, load }, postgres, files, store);
  process.stdout.write(text);
  writeSection(join(root, "bench", "RESULTS.md"), text);
  const failed = Object.entries(postgres.checks).filter(
    ([name, count]) => name !== "events" && count !== 0,
  );
  process.exitCode = failed.length > 0 || postgres.failures.length > 0 ? 1 : 0;
  if (process.env.SCALE_DEBUG !== undefined) {
    for (const worker of postgres.workers) {
      process.stderr.write(`--- worker ${worker.index} stderr:\n${worker.stderr.slice(-3000)}\n`);
    }
  }
  for (const failure of postgres.failures.slice(0, 5)) {
    process.stderr.write(
      `scale: a prompt failed: ${failure instanceof Error ? failure.message : String(failure)}\n`,
    );
  }
}

await main();
