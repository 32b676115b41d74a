import type { EventInput } from "../events/events.js";
import type { Provider } from "../llm/provider.js";
import { type History, UNDECODABLE_IMAGES_WARNING } from "./history.js";
import type { ToolCallOutcome } from "./tool-calls.js";

/**
 * What the user is told when images they gave or a tool produced are not sent to the model
 * (issue 27 item 5: never dropped silently), or other attachments of a prompt (an image of a type
 * models do not take, audio, a binary file): one `session.warning` (`warningType: "images"`),
 * which every face shows. The model itself gets a note in their place (llm/convert.ts, and the
 * face's own for other attachments: acp/prompt-content.ts).
 */

/** The warning for a prompt's images the model does not take; `undefined` when it takes them. */
export function promptImagesNotice(
  provider: Provider,
  images: ReadonlyArray<{ mimeType: string }> | undefined,
): EventInput | undefined {
  if (images === undefined || images.length === 0 || provider.imageInput?.user !== false) {
    return undefined;
  }
  const attached =
    images.length === 1
      ? `the attached image (${types(images)}) was`
      : `the ${images.length} attached images (${types(images)}) were`;
  return warning(
    `${provider.id} takes no images: ${attached} not sent to it; it was told of them instead.`,
  );
}

/** The warning for tool results' images the model does not take; `undefined` when there are none. */
export function toolImagesNotice(
  provider: Provider,
  outcomes: readonly ToolCallOutcome[],
): EventInput | undefined {
  if (provider.imageInput?.toolResults !== false) {
    return undefined;
  }
  const withImages = outcomes.filter((outcome) => !outcome.isError && outcome.images?.length);
  const images = withImages.flatMap((outcome) => outcome.images ?? []);
  if (images.length === 0) {
    return undefined;
  }
  const tools = [...new Set(withImages.map((outcome) => outcome.toolCall.name))].join(", ");
  const counted =
    images.length === 1
      ? `the image from ${tools} (${types(images)}) was`
      : `the ${images.length} images from ${tools} (${types(images)}) were`;
  return warning(
    `${provider.id} takes no images in tool results: ${counted} not sent to it; the result tells it so.`,
  );
}

/**
 * The warning for attachments of a prompt the model got only a note of (`items`: each as the face
 * words it, e.g. `an audio clip (audio/wav)`); `undefined` when there are none.
 */
export function notSentNotice(items: readonly string[] | undefined): EventInput | undefined {
  if (items === undefined || items.length === 0) {
    return undefined;
  }
  const told = items.length === 1 ? "it was told of it" : "it was told of them";
  return warning(`Not sent to the model: ${items.join("; ")}; ${told} instead.`);
}

/**
 * The warning, said once per session (History `undecodableImages`, folded from the log), for
 * images of earlier prompts whose data does not decode (a log an earlier version wrote): the model
 * gets a note in their place, so the session goes on; `undefined` when there are none or the user
 * was told.
 */
export function undecodableImagesNotice(history: History): EventInput | undefined {
  const { count, warned } = history.undecodableImages;
  if (count === 0 || warned) {
    return undefined;
  }
  const images =
    count === 1 ? "An image of an earlier prompt is" : `${count} images of earlier prompts are`;
  return {
    type: "session.warning",
    data: {
      warningType: UNDECODABLE_IMAGES_WARNING,
      message: `${images} not valid base64, which the model's API refuses: not sent; the model is told of ${count === 1 ? "it" : "them"} instead.`,
    },
  };
}

function types(images: ReadonlyArray<{ mimeType: string }>): string {
  return [...new Set(images.map((image) => image.mimeType))].join(", ");
}

function warning(message: string): EventInput {
  return { type: "session.warning", data: { warningType: "images", message } };
}
