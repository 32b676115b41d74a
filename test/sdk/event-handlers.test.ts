import { describe, expect, test } from "vitest";
import type { WireEvent } from "../../src/protocol/wire-event.js";
import { fixtureForFile } from "./support.js";

/**
 * Which of an app's event handlers `session.on` calls while handlers come and go in the middle of
 * a streamed reply: every event goes to the handlers subscribed when it arrives, those of its
 * type first, then the ones for every event, each in the order subscribed; a handler subscribed
 * or unsubscribed by a handler takes effect from the next event on.
 */

const fixture = fixtureForFile();
const pieces = ["d1 ", "d2 ", "d3 ", "d4 ", "d5 ", "d6 "];

describe("session.on while a reply streams", () => {
  test("each event reaches the handlers subscribed when it arrived, in their order", async () => {
    const client = await fixture.startedClient();
    const session = await client.createSession();
    const calls: string[] = [];
    /** `name` and the delta's text, or the event's type. */
    const note = (name: string, event: WireEvent) =>
      calls.push(
        `${name} ${event.type === "assistant.message_delta" ? event.data.deltaContent.trim() : event.type}`,
      );
    const late = (event: WireEvent) => note("late", event);
    const all = session.on((event) => {
      note("all", event);
      if (event.type === "assistant.message_delta" && event.data.deltaContent === "d2 ") {
        session.on(late);
      } else if (event.type === "assistant.message_delta" && event.data.deltaContent === "d3 ") {
        stopTyped();
      }
    });
    const stopTyped = session.on("assistant.message_delta", (event) => note("typed", event));
    session.on("assistant.message_delta", (event) => {
      note("second", event);
      if (event.data.deltaContent === "d4 ") {
        all();
      }
    });
    fixture.model.enqueue({ text: pieces });
    await session.sendAndWait({ prompt: "Count." });
    const deltaCalls = calls.filter((call) => /^\w+ d\d$/.test(call));
    expect(deltaCalls).toEqual([
      "typed d1",
      "second d1",
      "all d1",
      "typed d2",
      "second d2",
      "all d2",
      "typed d3",
      "second d3",
      "all d3",
      "late d3",
      "second d4",
      "all d4",
      "late d4",
      "second d5",
      "late d5",
      "second d6",
      "late d6",
    ]);
    expect(calls.at(-1)).toBe("late session.idle");
  });
});
