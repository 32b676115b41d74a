import { readFile } from "node:fs/promises";
import { decodeFileBytes } from "./text-decoding.js";
import { statIfExists } from "./tool-support.js";

/** Images larger than this (bytes) are not read: providers refuse them (Anthropic caps at 5 MB). */
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** Image media types models accept as input. */
const MODEL_IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** An image file ready to be sent to a model as image content. */
export interface ImageData {
  /** `image/png`, `image/jpeg`, `image/gif` or `image/webp`. */
  mimeType: string;
  /** The file's bytes, base64-encoded. */
  data: string;
}

/**
 * Reads the file at `path` (absolute) as an image when its magic bytes say PNG, JPEG, GIF or WebP
 * (the extension is not trusted). Answers `undefined` for anything else, a missing path, or an
 * image over 5 MB. Rejects only on read errors other than a missing file (EACCES …).
 */
export async function readImage(path: string): Promise<ImageData | undefined> {
  const stats = statIfExists(path);
  if (stats === undefined || !stats.isFile() || stats.size > MAX_IMAGE_BYTES) {
    return undefined;
  }
  const bytes = await readFile(path);
  const decoded = decodeFileBytes(bytes);
  if (decoded.kind !== "binary" || decoded.mediaType === undefined) {
    return undefined;
  }
  if (!MODEL_IMAGE_TYPES.has(decoded.mediaType)) {
    return undefined;
  }
  return { mimeType: decoded.mediaType, data: bytes.toString("base64") };
}
