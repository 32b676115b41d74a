/**
 * The ids of events a face derives from a stored event (Copilot's `assistant.reasoning` and
 * `assistant.idle` from a stored `assistant.message`): the same on every read of the log, where a
 * random id would be drawn anew each time they are sent.
 */

import { uuidText } from "./random-id.js";

/**
 * The masks of {@link derivedId}, one per event a face derives from another: 16 bytes whose
 * version nibble (byte 6's high half) and variant bits (byte 8's two high bits) are zero.
 */
const DERIVED_ID_MASKS = {
  "assistant.reasoning": "5f1c2b7e9a4d0e3b1c6a8f2d4e7b9c01",
  "assistant.idle": "a3e97d15c2f80b6e2d94e1a7f03c5b68",
} as const;

/** What an id is derived for: the type of the event a face sends beside the source event. */
export type DerivedIdPurpose = keyof typeof DERIVED_ID_MASKS;

const UUID_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The id of an event a face derives from the event `sourceId` (Copilot's `assistant.reasoning`
 * from a stored `assistant.message`), the same each time it is derived, in every process and on
 * every read of the log: `sourceId`'s bytes XOR the purpose's mask, so a version 4 UUID stays
 * one (the Copilot SDK's event `id`, "UUID v4"), one purpose's ids never meet another's and a
 * derived id meets a random one only by chance (2^-122). An id not in UUID form (a log of another
 * producer) gets `-<purpose>` appended.
 */
export function derivedId(sourceId: string, purpose: DerivedIdPurpose): string {
  if (!UUID_FORM.test(sourceId)) {
    return `${sourceId}-${purpose}`;
  }
  const bytes = Buffer.from(sourceId.replaceAll("-", ""), "hex");
  const mask = Buffer.from(DERIVED_ID_MASKS[purpose], "hex");
  for (let index = 0; index < bytes.length; index++) {
    bytes[index] = (bytes[index] ?? 0) ^ (mask[index] ?? 0);
  }
  return uuidText(bytes.toString("hex"));
}
