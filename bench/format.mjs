/**
 * Number formatting for RESULTS.md: durations, sizes, rates, with units and thousands separators.
 */

/**
 * A duration: "0.42 ms", "12.3 ms", "812 ms", "1.23 s".
 * @param {number} milliseconds
 * @returns {string}
 */
export function formatDuration(milliseconds) {
  if (!Number.isFinite(milliseconds)) {
    return "n/a";
  }
  const size = Math.abs(milliseconds);
  if (size >= 1000) {
    return `${(milliseconds / 1000).toFixed(2)} s`;
  }
  if (size >= 100) {
    return `${milliseconds.toFixed(0)} ms`;
  }
  if (size >= 10) {
    return `${milliseconds.toFixed(1)} ms`;
  }
  return `${milliseconds.toFixed(2)} ms`;
}

/**
 * A size in bytes: "812 B", "4.9 KiB", "102.4 MiB".
 * @param {number} bytes
 * @returns {string}
 */
export function formatBytes(bytes) {
  if (!Number.isFinite(bytes)) {
    return "n/a";
  }
  const size = Math.abs(bytes);
  if (size >= 1024 * 1024) {
    return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  }
  if (size >= 1024) {
    return `${(bytes / 1024).toFixed(1)} KiB`;
  }
  return `${bytes.toFixed(0)} B`;
}

/**
 * A rate: "3,060 /s".
 * @param {number} perSecond
 * @returns {string}
 */
export function formatRate(perSecond) {
  if (!Number.isFinite(perSecond)) {
    return "n/a";
  }
  return `${Math.round(perSecond).toLocaleString("en-US")} /s`;
}

/**
 * A value in the unit of its figure.
 * @param {number} value
 * @param {"ms" | "bytes" | "rate" | "bytes-per-turn"} unit
 * @returns {string}
 */
export function formatValue(value, unit) {
  switch (unit) {
    case "ms":
      return formatDuration(value);
    case "bytes":
      return formatBytes(value);
    case "rate":
      return formatRate(value);
    case "bytes-per-turn":
      return `${formatBytes(value)}/turn`;
  }
  return String(value);
}

/**
 * A ratio: "×2.3".
 * @param {number} ratio
 * @returns {string}
 */
export function formatRatio(ratio) {
  if (!Number.isFinite(ratio)) {
    return "—";
  }
  return `×${ratio >= 10 ? ratio.toFixed(0) : ratio.toFixed(1)}`;
}

/**
 * Text for one cell of a Markdown table: pipes escaped, line breaks as spaces.
 * @param {string} text
 * @returns {string}
 */
export function cell(text) {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}
