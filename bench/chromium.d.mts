/** See chromium.mjs. */
export const CHROMIUM_PATH: string;
export const CHROMIUM_FLAGS: readonly string[];
