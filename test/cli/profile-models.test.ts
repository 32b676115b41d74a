import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { type CliFixtures, printedSessionId, test } from "../support/fixtures.js";

// Any model of a config profile, `<profile>:<model>`, runs on that profile's endpoint with the
// key its `apiKeyEnv` names, and keeps the profile's name in the session (README, "Config
// files"). Before, only the profile's configured `model` did: `/model lab:other` was an unknown
// model, and a session started with `--model lab:other` was stored as `openai-compatible:other`,
// so a resume lost the profile's endpoint and ran on the configured model instead.

const FROM_FILE = { TURNLOOP_MODEL: "", TURNLOOP_BASE_URL: "" };
const KEYS = { LAB_KEY: "lab-secret-111111", HOME_KEY: "home-secret-222222" };

/** Each request a server got: its path, its key, and the model named in its body. */
const sent = (server: FakeModelServer) =>
  server.requests.map(({ path, headers, body }) => [
    path,
    headers.authorization,
    (body as { model?: string }).model,
  ]);

/** The config: `lab` (configured, `lab:fake-model`) at `lab`, `home` at `home`. */
async function writeProfiles(file: string, lab: FakeModelServer, home: FakeModelServer) {
  await writeFile(
    file,
    JSON.stringify({
      model: "lab:fake-model",
      providers: {
        lab: { type: "openai-compatible", baseUrl: `${lab.url}/v1`, apiKeyEnv: "LAB_KEY" },
        home: { type: "openai-compatible", baseUrl: `${home.url}/v1`, apiKeyEnv: "HOME_KEY" },
      },
    }),
  );
}

test("-p --model lab:other: lab's endpoint and key, the id kept in the log, listing and a resume; no key reaches another endpoint", async ({
  cli,
  home,
  model: lab,
}) => {
  const other = await startFakeModelServer();
  const vendor = await startFakeModelServer();
  try {
    await writeProfiles(join(home, "config.json"), lab, other);
    const env = {
      ...FROM_FILE,
      ...KEYS,
      OPENAI_API_KEY: "openai-secret-333333",
      OPENAI_BASE_URL: `${vendor.url}/v1`,
    };
    lab.enqueue({ text: "One." }, { text: "Two." });
    const first = await cli(["-p", "hi", "--model", "lab:big-model"], { env });
    expect([first.code, first.stdout]).toEqual([0, "One.\n"]);
    const id = printedSessionId(first.stderr);
    const again = await cli(["-p", "again", "--continue"], { env });
    expect([again.code, again.stdout, again.stderr]).toEqual([
      0,
      "Two.\n",
      expect.not.stringContaining("now uses"),
    ]);
    const listed = await cli(["sessions", "--json"], { env });
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ sessionId: id, model: "lab:big-model" }),
    ]);
    // Another profile's model and a provider's, in the same home: each its own endpoint and key.
    other.enqueue({ text: "Three." });
    vendor.enqueue({ text: "Four." });
    expect((await cli(["-p", "hi", "--model", "home:small"], { env })).code).toBe(0);
    expect((await cli(["-p", "hi", "--model", "openai:gpt-test"], { env })).code).toBe(0);

    expect(sent(lab)).toEqual([
      ["/v1/chat/completions", `Bearer ${KEYS.LAB_KEY}`, "big-model"],
      ["/v1/chat/completions", `Bearer ${KEYS.LAB_KEY}`, "big-model"],
    ]);
    expect(sent(other)).toEqual([["/v1/chat/completions", `Bearer ${KEYS.HOME_KEY}`, "small"]]);
    expect(sent(vendor)).toEqual([["/v1/responses", "Bearer openai-secret-333333", "gpt-test"]]);
  } finally {
    await Promise.all([other.close(), vendor.close()]);
  }
});

test("/model lab:other in the interactive face: the next prompt goes to lab with lab's key; /model openai:… to the vendor with its own", async ({
  cli,
  home,
  model: lab,
  loggedEvents,
}) => {
  const other = await startFakeModelServer();
  const vendor = await startFakeModelServer();
  try {
    await writeProfiles(join(home, "config.json"), lab, other);
    const env = {
      ...FROM_FILE,
      ...KEYS,
      OPENAI_API_KEY: "openai-secret-333333",
      OPENAI_BASE_URL: `${vendor.url}/v1`,
    };
    lab.enqueue({ text: "From lab." });
    vendor.enqueue({ text: "From the vendor." });
    const stdin =
      "/model lab:other\nfirst\n/model openai:gpt-test\nsecond\n/model lab:other\n/model\n";
    const result = await cli([], { env, stdin });
    expect(result.code, result.stderr).toBe(0);
    const id = printedSessionId(result.stdout);
    expect(result.stdout.split("\n")).toEqual([
      expect.stringMatching(/^turnloop in /),
      `model lab:fake-model · session ${id} · /help lists the commands`,
      // Each command's output under the command (interactive/command-output.ts).
      "> ",
      "/model lab:other",
      "  model: lab:other",
      "> From lab.",
      "> ",
      "/model openai:gpt-test",
      "  model: openai:gpt-test",
      "> From the vendor.",
      "> ",
      "/model lab:other",
      "  model: lab:other",
      "> ",
      "/model",
      "  model: lab:other",
      "  choices: lab:other, lab:fake-model",
      "> ",
      `session ${id}`,
      "",
    ]);
    expect(sent(lab)).toEqual([["/v1/chat/completions", `Bearer ${KEYS.LAB_KEY}`, "other"]]);
    expect(sent(vendor)).toEqual([["/v1/responses", "Bearer openai-secret-333333", "gpt-test"]]);
    expect(sent(other)).toEqual([]);
    const changes = (await loggedEvents(id)).flatMap((event) =>
      event.type === "session.model_change" ? [event.data] : [],
    );
    expect(changes).toEqual([
      { previousModel: "lab:fake-model", newModel: "lab:other" },
      { previousModel: "lab:other", newModel: "openai:gpt-test" },
      { previousModel: "openai:gpt-test", newModel: "lab:other" },
    ]);
  } finally {
    await Promise.all([other.close(), vendor.close()]);
  }
});

test("a resume of a session whose profile is no longer in the config: exit 64 naming the profile, nothing written", async ({
  cli,
  home,
  model: lab,
}) => {
  const { env, id, log, before } = await sessionOfRemovedProfile(cli, home, lab);
  for (const args of [
    ["-p", "again", "--resume", id],
    ["-p", "again", "--continue"],
  ]) {
    const resumed = await cli(args, { env });
    expect([resumed.code, resumed.stdout, resumed.stderr]).toEqual([
      64,
      "",
      `turnloop: the session's model home:kept names the config profile "home", which no config file here defines (providers.home): add it back to resume on its endpoint with its key, or resume with another model (--model <provider>:<model>).\n`,
    ]);
  }
  expect(await readFile(log, "utf8")).toBe(before);
  expect(lab.requests.length).toBe(1);
});

test("/resume of a session whose profile is no longer in the config: refused naming the profile, the session open stays, nothing written", async ({
  cli,
  home,
  model: lab,
}) => {
  const { env, id, log, before } = await sessionOfRemovedProfile(cli, home, lab);
  lab.enqueue({ text: "Two." });
  const result = await cli([], { env, stdin: `/resume ${id}\nsecond\n` });
  expect(result.code, result.stderr).toBe(0);
  const current = printedSessionId(result.stdout);
  expect(result.stdout.split("\n")).toEqual([
    expect.stringMatching(/^turnloop in /),
    `model lab:fake-model · session ${current} · /help lists the commands`,
    "> ",
    `/resume ${id}`,
    `  cannot resume: the session's model home:kept names the config profile "home", which no config file here defines (providers.home): add it back to resume on its endpoint with its key, or resume with another model (--model <provider>:<model>).`,
    "> Two.",
    "> ",
    `session ${current}`,
    "",
  ]);
  expect(await readFile(log, "utf8")).toBe(before);
  expect(sent(lab)).toEqual([
    ["/v1/chat/completions", `Bearer ${KEYS.HOME_KEY}`, "kept"],
    ["/v1/chat/completions", `Bearer ${KEYS.LAB_KEY}`, "fake-model"],
  ]);
});

// Session 43: the interactive `--resume` of such a session refused (exit 64), where ACP and the
// server open it and say why at the first prompt. It opens it now, says why as a notice, refuses a
// prompt (nothing sent or stored) until `/model` switches to a model that runs here.
test("interactive --resume of a session whose profile is no longer in the config: opened, the reason said, /model switches and runs", async ({
  cli,
  home,
  model: lab,
}) => {
  const { env, id, log, before } = await sessionOfRemovedProfile(cli, home, lab);
  lab.enqueue({ text: "Two." });
  const result = await cli(["--resume", id], {
    env,
    stdin: "first try\n/model lab:fake-model\nsecond\n",
  });
  expect(result.code, result.stderr).toBe(0);
  const problem = `the session's model home:kept names the config profile "home", which no config file here defines (providers.home): add it back to resume on its endpoint with its key, or resume with another model (--model <provider>:<model>).`;
  const note = `${problem} Nothing is sent until /model <provider>:<model> switches this session to a model that runs here (/model lists the choices).`;
  expect(result.stdout.split("\n")).toEqual([
    expect.stringMatching(/^turnloop in /),
    `model home:kept · session ${id} · /help lists the commands`,
    "> hi",
    "One.",
    "[stop: end_turn]",
    "",
    expect.stringMatching(/^— resumed /),
    note,
    `> ${note}`,
    "> ",
    "/model lab:fake-model",
    "  model: lab:fake-model",
    "> Two.",
    "> ",
    `session ${id}`,
    "",
  ]);
  const after = await readFile(log, "utf8");
  expect(after.startsWith(before)).toBe(true);
  expect(after).not.toContain("first try");
  expect(after).toContain('"previousModel":"home:kept","newModel":"lab:fake-model"');
  expect(sent(lab)).toEqual([
    ["/v1/chat/completions", `Bearer ${KEYS.HOME_KEY}`, "kept"],
    ["/v1/chat/completions", `Bearer ${KEYS.LAB_KEY}`, "fake-model"],
  ]);
});

/**
 * A session run on `home:kept` (profile `home`), then the config rewritten without `home`: the
 * configured model (lab's) still runs, and is not put in its place. The log's text as it was.
 */
async function sessionOfRemovedProfile(
  cli: CliFixtures["cli"],
  home: string,
  lab: FakeModelServer,
) {
  const file = join(home, "config.json");
  await writeProfiles(file, lab, lab);
  const env = { ...FROM_FILE, ...KEYS };
  lab.enqueue({ text: "One." });
  const first = await cli(["-p", "hi", "--model", "home:kept"], { env });
  expect(first.code).toBe(0);
  const id = printedSessionId(first.stderr);
  const log = join(home, "session-state", id, "events.jsonl");
  const before = await readFile(log, "utf8");
  await writeFile(
    file,
    JSON.stringify({
      model: "lab:fake-model",
      providers: {
        lab: { type: "openai-compatible", baseUrl: `${lab.url}/v1`, apiKeyEnv: "LAB_KEY" },
      },
    }),
  );
  return { env, id, log, before };
}
