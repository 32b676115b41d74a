/**
 * Small statistics for benchmark samples: percentiles with linear interpolation between the
 * closest ranks, and a summary of a sample set.
 */

/**
 * The `fraction` percentile (0–1) of `values`, interpolated between the closest ranks.
 * @param {readonly number[]} values
 * @param {number} fraction
 * @returns {number} NaN for no values.
 */
export function percentile(values, fraction) {
  if (values.length === 0) {
    return Number.NaN;
  }
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * fraction;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const lowerValue = sorted[lower] ?? Number.NaN;
  const upperValue = sorted[upper] ?? Number.NaN;
  return lowerValue + (upperValue - lowerValue) * (position - lower);
}

/**
 * @typedef {object} Summary
 * @property {number} count
 * @property {number} min
 * @property {number} p10
 * @property {number} p50
 * @property {number} p90
 * @property {number} p99
 * @property {number} max
 * @property {number} mean
 */

/**
 * Count, extremes, mean and the 10th, 50th, 90th and 99th percentiles of `values`.
 * @param {readonly number[]} values
 * @returns {Summary}
 */
export function summarize(values) {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return {
    count: sorted.length,
    min: sorted[0] ?? Number.NaN,
    p10: percentile(sorted, 0.1),
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    max: sorted.at(-1) ?? Number.NaN,
    mean: sorted.length === 0 ? Number.NaN : total / sorted.length,
  };
}
