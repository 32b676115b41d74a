/**
 * A model server whose event stream carries an event that is not JSON, or JSON of a shape the
 * wire does not have: the user is told what the server sent wrong, once, and the run fails
 * (exit 1) without a retry. The AI SDK's parse error already holds its cause's message; it was
 * printed twice ("… Error message: X: X").
 */

import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";

describe("-p against a model stream with a malformed event", () => {
  test.for([
    [
      "not JSON",
      "data: {not json\n\n",
      "turnloop: the model server sent a stream event that is not JSON (Expected property name or '}' in JSON at position 1): {not json",
    ],
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
});
