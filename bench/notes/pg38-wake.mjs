// bench/notes/pg38.md: node bench/notes/pg38-wake.mjs <old build>/dist <new build>/dist [rounds]
// The chaos trial's store figures (bench/scale-store.mjs `measureStore`: append rate, commit →
// subscriber wake-up p50/p99 over 200 commits 60 ms apart) of two builds, paired: each round runs
// both, in alternating order, each in a process of its own, on one database (fsync on).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startDatabase } from "../scale-database.mjs";

const [oldDist, newDist, roundsText = "4"] = process.argv.slice(2);
const storeModule = fileURLToPath(new URL("../scale-store.mjs", import.meta.url));
const database = await startDatabase();
const home = mkdtempSync(join(tmpdir(), "pg38-wake-"));
const measure = (dist) =>
  JSON.parse(
    execFileSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { measureStore } = await import(${JSON.stringify(storeModule)});
         console.log(JSON.stringify(await measureStore(${JSON.stringify(dist)}, ${JSON.stringify(database.url)}, ${JSON.stringify(home)})));`,
      ],
      { encoding: "utf8" },
    ),
  );
try {
  for (let round = 0; round < Number(roundsText); round++) {
    const order = round % 2 === 0 ? ["old", "new"] : ["new", "old"];
    for (const name of order) {
      const { wakeUpP50, wakeUpP99, eventsPerSecond } = measure(name === "old" ? oldDist : newDist);
      console.log(
        `${round} ${name} p50 ${wakeUpP50.toFixed(2)} ms p99 ${wakeUpP99.toFixed(2)} ms append ${Math.round(eventsPerSecond)}/s`,
      );
    }
  }
} finally {
  await database.stop();
  rmSync(home, { recursive: true, force: true });
}
