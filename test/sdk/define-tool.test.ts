/**
 * `defineTool` with schemas that are not turnloop's own zod: an app's own zod copy (here zod
 * 4.3, installed as `zod-other`), and plain JSON Schema, which the server checks with a JSON
 * Schema validator.
 */

import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, test } from "vitest";
import { z as appZod } from "zod-other";
import { approveAll, defineTool, type TurnloopClient } from "../../src/sdk/index.js";
import { callingTools } from "../support/replies.js";
import { fixtureForFile, requestMessages } from "./support.js";

const fixture = fixtureForFile();
let client: TurnloopClient;
beforeAll(async () => {
  client = await fixture.startedClient();
});

const invocation = {
  sessionId: "s",
  toolCallId: "c",
  toolName: "weather",
  arguments: {},
  signal: new AbortController().signal,
};

describe("defineTool", () => {
  test("an app's own zod copy: its JSON Schema is declared and its parse runs", async () => {
    const tool = defineTool("weather", {
      parameters: appZod.object({
        city: appZod.string().describe("City name"),
        days: appZod.number().int().default(1),
      }),
      handler: ({ city, days }) => `${city} for ${days} day(s)`,
    });
    expect(tool.parameters).toEqual({
      type: "object",
      properties: {
        city: { type: "string", description: "City name" },
        days: {
          type: "integer",
          default: 1,
          minimum: -9007199254740991,
          maximum: 9007199254740991,
        },
      },
      required: ["city"],
    });
    expect(await tool.handler({ city: "Oslo" }, invocation)).toBe("Oslo for 1 day(s)");
    await expect(async () => tool.handler({ city: 7 }, invocation)).rejects.toThrow(
      "invalid arguments for weather: city: Invalid input: expected string, received number",
    );
  });

  test("a schema that cannot describe itself as JSON Schema is refused with a way out", () => {
    const validateOnly = {
      "~standard": {
        version: 1 as const,
        vendor: "old-zod",
        validate: (value: unknown) => ({ value }),
      },
    };
    expect(() => defineTool("old", { parameters: validateOnly, handler: () => "" })).toThrow(
      "tool old: its old-zod schema cannot describe itself as JSON Schema; pass a JSON Schema object as parameters (with zod < 4.2: z.toJSONSchema(schema))",
    );
  });

  test("an app that passes JSON Schema does not load zod", () => {
    const hooks = `data:text/javascript,${encodeURIComponent(
      'export async function resolve(specifier, context, next) { if (specifier === "zod" || specifier.startsWith("zod/")) throw new Error("zod was loaded by " + context.parentURL); return next(specifier, context); }',
    )}`;
    const sdk = pathToFileURL(join(process.cwd(), "dist", "sdk", "index.js")).href;
    const script = `
      import { register } from "node:module";
      register(${JSON.stringify(hooks)});
      const { defineTool } = await import(${JSON.stringify(sdk)});
      const tool = defineTool("echo", { parameters: { type: "object" }, handler: (args) => args });
      console.log(JSON.stringify(tool.parameters));
    `;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe('{"type":"object"}\n');
    expect(run.status).toBe(0);
  });
});

describe("custom tools through the server", () => {
  test("arguments are checked against the declared JSON Schema before the app sees them", async () => {
    const seen: unknown[] = [];
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      tools: [
        defineTool("book", {
          parameters: {
            type: "object",
            properties: { seats: { type: "integer", minimum: 1 }, name: { type: "string" } },
            required: ["seats"],
          },
          handler: (args) => {
            seen.push(args);
            return "booked";
          },
        }),
        defineTool("weather", {
          parameters: appZod.object({ city: appZod.string() }),
          handler: ({ city }) => {
            seen.push(city);
            return `sunny in ${city}`;
          },
        }),
      ],
    });
    fixture.model.enqueue(
      callingTools(
        ["call_1", "book", { seats: 0, name: 5 }],
        ["call_2", "book", { seats: 2 }],
        ["call_3", "weather", { town: "Oslo" }],
        ["call_4", "weather", { city: "Oslo" }],
      ),
      { text: "Done." },
    );
    const reply = await session.sendAndWait({ prompt: "Book and check." }, 10_000);
    expect(reply?.data.content).toBe("Done.");
    expect(seen).toEqual([{ seats: 2 }, "Oslo"]);
    const results = requestMessages(fixture.model, -1)
      .filter((message) => message.role === "tool")
      .map((message) => [message.tool_call_id, message.content]);
    expect(results).toEqual([
      [
        "call_1",
        `Invalid arguments for 'book': ✖ must be >= 1 → at seats\n✖ must be string → at name (received {"seats":0,"name":5}).`,
      ],
      ["call_2", "booked"],
      [
        "call_3",
        `Invalid arguments for 'weather': ✖ must have required property 'city' (received {"town":"Oslo"}).`,
      ],
      ["call_4", "sunny in Oslo"],
    ]);
  });
});
