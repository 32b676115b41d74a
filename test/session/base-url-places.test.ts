import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { parseCommand } from "../../src/cli/arguments.js";
import { createProvider } from "../../src/llm/models.js";
import { configuredFace } from "../../src/session/face-config.js";
import { ModelHost } from "../../src/session/host-models.js";
import { startFakeModelServer } from "../support/fake-model-server.js";
import type { FakeModelServer } from "../support/fake-model-types.js";
import { removeTree } from "../support/remove-tree.js";

// One rule per wire for what a base URL may be, wherever it is given (`--base-url`,
// `TURNLOOP_BASE_URL`, a config profile's `baseUrl`, the vendor's variable): Anthropic's and
// Ollama's may be the host alone or end in /v1 (turnloop adds the /v1 they lack), the OpenAI
// wires' are used as given. Trial 42 F2: `--base-url http://host` and a profile's host-only
// `baseUrl` on Anthropic's wire asked `http://host/messages`, though the 404's hint said the host
// alone works; F12: `OLLAMA_HOST=http://host/v1` asked `/v1/v1/chat/completions`.
// In-process, each wire × form × place goes the way `-p` takes it: the command line parsed
// (cli/arguments.ts), the face's config resolved with the user's config.json and the environment
// (session/face-config.ts), the model resolved by the host (session/host-models.ts), one request
// of its provider to the fake model, which records the path asked. What `-p` does with it is one
// path for every place: test/cli/base-url-rules.test.ts, one case a wire end to end.

const WIRES = [
  { model: "anthropic:claude-sonnet-4-5", type: "anthropic", variable: "ANTHROPIC_BASE_URL" },
  { model: "ollama:qwen3", type: "ollama", variable: "OLLAMA_HOST" },
  { model: "openai-chat:gpt-4.1", type: "openai-chat", variable: "OPENAI_BASE_URL" },
];

let model: FakeModelServer;
let root: string;

beforeAll(async () => {
  model = await startFakeModelServer();
  root = await realpath(await mkdtemp(join(tmpdir(), "turnloop-base-url-")));
  await mkdir(join(root, "home"));
});

afterAll(async () => {
  await model.close();
  await removeTree(root);
});

/** The path of the one request `-p hi` with `args` makes in `env`, the user's config in `home`. */
async function pathAsked(args: string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const command = parseCommand([...args, "-p", "hi"], root);
  if (command.kind !== "prompt") {
    throw new Error(`not a prompt: ${command.kind}`);
  }
  const configured = await configuredFace(command.options, env);
  if (!configured.ok) {
    throw new Error(configured.message);
  }
  const resolved = new ModelHost(configured.config, configured.env).resolveModel();
  if (!resolved.ok) {
    throw new Error(resolved.message);
  }
  const provider = createProvider(resolved.configuration, { retry: { maxRetries: 0 } });
  const before = model.requests.length;
  model.enqueue({ text: "ok" });
  const request = { system: "", messages: [{ role: "user" as const, content: "hi" }], tools: [] };
  const ends = [];
  for await (const event of provider.stream(request, new AbortController().signal)) {
    if (event.type === "done" || event.type === "error") {
      ends.push(event.type);
    }
  }
  expect(ends).toEqual(["done"]);
  return model.requests[before]?.path;
}

test("each wire's base URL rule holds for a flag, TURNLOOP_BASE_URL, a profile and the vendor's variable", async () => {
  const home = join(root, "home");
  const seen = [];
  for (const wire of WIRES) {
    for (const form of ["", "/v1"]) {
      const url = `${model.url}${form}`;
      await writeFile(
        join(home, "config.json"),
        JSON.stringify({ providers: { lab: { type: wire.type, baseUrl: url, apiKeyEnv: "KEY" } } }),
      );
      const places: Record<string, { args: string[]; env: Record<string, string> }> = {
        "--base-url": { args: ["--model", wire.model, "--base-url", url], env: {} },
        TURNLOOP_BASE_URL: { args: ["--model", wire.model], env: { TURNLOOP_BASE_URL: url } },
        profile: { args: ["--model", `lab:${wire.model.split(":")[1]}`], env: { KEY: "k" } },
        [wire.variable]: { args: ["--model", wire.model], env: { [wire.variable]: url } },
      };
      for (const [place, { args, env }] of Object.entries(places)) {
        const path = await pathAsked(args, {
          HOME: home,
          TURNLOOP_HOME: home,
          OPENAI_API_KEY: "sk-test",
          ANTHROPIC_API_KEY: "sk-test",
          ...env,
        });
        seen.push({ wire: wire.type, form, place, path });
      }
    }
  }
  const expected = WIRES.flatMap((wire) =>
    ["", "/v1"].flatMap((form) =>
      ["--base-url", "TURNLOOP_BASE_URL", "profile", wire.variable].map((place) => ({
        wire: wire.type,
        form,
        place,
        path: {
          anthropic: "/v1/messages",
          ollama: "/v1/chat/completions",
          // Used as given: a host alone asks the host's /chat/completions.
          "openai-chat": form === "" ? "/chat/completions" : "/v1/chat/completions",
        }[wire.type],
      })),
    ),
  );
  expect(seen).toEqual(expected);
});
