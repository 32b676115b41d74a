import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { DEFAULT_HIDDEN_PATHS } from "../../../src/tools/sandbox/policy.js";

/*
 * README's "Sandbox" says which places are hidden from sandboxed commands and turnloop's file
 * tools by default, one by one: that list is src/tools/sandbox/policy.ts `DEFAULT_HIDDEN_PATHS`,
 * the same places in the same order, so that a place added to one is added to the other (the
 * trial of round 3 session 34 took README's list for the code's).
 */

it("README's list of hidden places is the code's, in its order", () => {
  const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
  const start = readme.indexOf("Hidden even from reading:");
  const end = readme.indexOf("`TURNLOOP_HOME`", start);
  expect([start, end].every((index) => index !== -1)).toBe(true);
  const listed = [...readme.slice(start, end).matchAll(/`~\/([^`]+)`/g)].map((match) => match[1]);
  expect(listed).toEqual(DEFAULT_HIDDEN_PATHS);
});
