/**
 * A model server whose event stream carries an event that is not JSON, or JSON of a shape the
 * wire does not have: the user is told what the server sent wrong, once. JSON of another shape
 * fails the run (exit 1) without a retry: the server would send it again. The AI SDK's parse
 * error already holds its cause's message; it was printed twice ("… Error message: X: X").
 * An event that is not JSON was torn on its way (trial of round 3, session 39, F1): it is a
 * network failure, sent again as a stream that broke off is, and when every attempt fails the
 * prompt kept in the session is named with how to try again, as for other network failures.
 */

import { describe, expect } from "vitest";
import { printedSessionId, test } from "../support/fixtures.js";

describe("-p against a model stream with a malformed event", () => {
  test.for([
    [
      "not the wire's shape",
      'data: {"id":"c1","choices":[{"index":0,"delta":{"content":5}}]}\n\n',
      'turnloop: the model server sent a stream event the wire does not have (choices.0.delta.content: Invalid input: expected string, received number): {"id":"c1","choices":[{"index":0,"delta":{"content":5}}]}',
    ],
    // `choices` absent or null is a keep-alive (case 15); any other non-array was taken as one
    // too, and the reply that never came was retried as a broken stream.
    [
      "choices an object",
      'data: {"id":"c1","choices":{}}\n\n',
      'turnloop: the model server sent a stream event the wire does not have (choices: Invalid input: expected array, received object): {"id":"c1","choices":{}}',
    ],
    [
      "choices a number",
      'data: {"id":"c1","choices":3}\n\n',
      'turnloop: the model server sent a stream event the wire does not have (choices: Invalid input: expected array, received number): {"id":"c1","choices":3}',
    ],
  ] as const)("%s: said once, no retry, exit 1", async ([_name, event, said], { cli, model }) => {
    model.enqueue({ raw: [event, "data: [DONE]\n\n"] });
    const result = await cli(["-p", "hello"]);
    expect(result.code).toBe(1);
    expect(model.requests).toHaveLength(1);
    expect(result.stdout).toBe("");
    expect(result.stderr.split("\n").filter((line) => line.startsWith("turnloop:"))).toEqual([
      said,
    ]);
  });

  const NOT_JSON = "data: {not json\n\n";
  const NOT_JSON_SAID =
    "turnloop: the model server sent a stream event that is not JSON (Expected property name or '}' in JSON at position 1): {not json";
  const RETRY_ONCE = { TURNLOOP_MAX_RETRIES: "1", TURNLOOP_RETRY_BASE_DELAY_MS: "5" };

  test("not JSON: sent again, and the answer of the next attempt is the prompt's", async ({
    cli,
    model,
  }) => {
    model.enqueue({ raw: [NOT_JSON, "data: [DONE]\n\n"] }, { text: "Hello." });
    const result = await cli(["-p", "hello"], { env: RETRY_ONCE });
    expect([result.code, result.stdout, model.requests.length]).toEqual([0, "Hello.\n", 2]);
  });

  test("not JSON at every attempt: said once with how to try the kept prompt again, exit 1", async ({
    cli,
    model,
  }) => {
    const torn = { raw: [NOT_JSON, "data: [DONE]\n\n"] };
    model.enqueue(torn, torn);
    const result = await cli(["-p", "hello"], { env: RETRY_ONCE });
    const sessionId = printedSessionId(result.stderr);
    expect({
      code: result.code,
      requests: model.requests.length,
      // The wait is the base delay's 5 ms, jittered: whole milliseconds (events/durations.ts).
      said: result.stderr
        .split("\n")
        .filter((line) => line.startsWith("turnloop:"))
        .map((line) => line.replace(/^(turnloop: warning: retrying in )\d+ ms /, "$1N ms ")),
    }).toEqual({
      code: 1,
      requests: 2,
      said: [
        NOT_JSON_SAID.replace("turnloop: ", "turnloop: warning: retrying in N ms (attempt 1): "),
        NOT_JSON_SAID,
        `turnloop: the prompt is kept in the session: to try again, turnloop -p --resume ${sessionId} "continue"`,
      ],
    });
  });
});
