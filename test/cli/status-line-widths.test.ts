import { stripVTControlCharacters } from "node:util";
import { expect, test } from "vitest";
import { StatusLine } from "../../src/cli/interactive/status-line.js";
import { createTheme } from "../../src/cli/interactive/theme.js";
import { UsageTotals } from "../../src/session/usage-totals.js";

/**
 * What the status line keeps as the terminal narrows (README, "Status line"): first the provider
 * prefix goes, then the key help is cut from its end (down to room for `working 999s...`), then
 * the tokens (a one-off hint is kept whole before them); context and cost stay. Trial r3s46 F6
 * saw the tokens dropped at 100 to 150 columns while the key help kept its room. The model is
 * named one way at a width whatever the left shows.
 */
test("as the line narrows: the provider prefix, then the key help, then the tokens", () => {
  const usage = new UsageTotals();
  Object.assign(usage, {
    inputTokens: 32_000,
    outputTokens: 1_200,
    contextTokens: 2_000,
    cost: 0.0967,
    reportedRequests: 1,
    pricedRequests: 1,
  });
  const state = {
    model: "anthropic:claude-sonnet-4-5",
    mode: "auto" as const,
    sandbox: "workspace-write",
    usage,
    contextWindow: 200_000,
  };
  const idle = new StatusLine(createTheme(false), state);
  const hinted = new StatusLine(createTheme(false), {
    ...state,
    hint: "press Ctrl-C again to exit",
  });
  const widths = [170, 164, 163, 120, 100, 96, 95, 70, 60];
  const keys = "Enter send · Ctrl-J newline · / commands · @ file · ! shell · Ctrl-D exit";
  const whole =
    "anthropic:claude-sonnet-4-5 · auto · workspace-write · ctx 1% · 32k in 1.2k out · $0.0967";
  const noPrefix =
    "claude-sonnet-4-5 · auto · workspace-write · ctx 1% · 32k in 1.2k out · $0.0967";
  const noTokens = "claude-sonnet-4-5 · auto · workspace-write · ctx 1% · $0.0967";
  const shown = (line: StatusLine, width: number) =>
    stripVTControlCharacters(line.render(width)[0] ?? "");
  expect(widths.map((width) => shown(idle, width))).toEqual([
    `${keys}${" ".repeat(170 - 73 - 89)}${whole}`,
    `${keys}  ${whole}`,
    `${keys}${" ".repeat(163 - 73 - 79)}${noPrefix}`,
    `Enter send · Ctrl-J newline · / comm...  ${noPrefix}`,
    `Enter send · Ctr...  ${noPrefix}`,
    `Enter send ·...  ${noPrefix}`,
    `Enter send · Ctrl-J newline ·...  ${noTokens}`,
    `Ente...  ${noTokens}`,
    // Narrower than the right part alone: the line is cut at its end.
    " claude-sonnet-4-5 · auto · workspace-write · ctx 1% · $0...",
  ]);
  // A one-off hint (what to do next) is kept whole before the tokens: they go below 107 columns.
  expect(widths.map((width) => shown(hinted, width))).toEqual([
    `press Ctrl-C again to exit${" ".repeat(170 - 26 - 89)}${whole}`,
    `press Ctrl-C again to exit${" ".repeat(164 - 26 - 89)}${whole}`,
    `press Ctrl-C again to exit${" ".repeat(163 - 26 - 79)}${noPrefix}`,
    `press Ctrl-C again to exit${" ".repeat(120 - 26 - 79)}${noPrefix}`,
    `press Ctrl-C again to exit${" ".repeat(100 - 26 - 61)}${noTokens}`,
    `press Ctrl-C again to exit${" ".repeat(96 - 26 - 61)}${noTokens}`,
    `press Ctrl-C again to exit${" ".repeat(95 - 26 - 61)}${noTokens}`,
    `pres...  ${noTokens}`,
    " claude-sonnet-4-5 · auto · workspace-write · ctx 1% · $0...",
  ]);
});
