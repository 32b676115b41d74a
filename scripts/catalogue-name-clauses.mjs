/**
 * Writes `src/llm/catalogue-name-clauses.ts`: every model-name test in the model catalogue
 * (`@pydantic/genai-prices`), collected from its providers' and models' `match` clauses, so
 * that turnloop can tell a model the catalogue cannot know without loading the catalogue
 * (issue 26). Run it after updating the package: `node scripts/catalogue-name-clauses.mjs`;
 * test/llm/model-catalogue.test.ts fails until the file agrees with the installed catalogue.
 */

import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const catalogue = createRequire(import.meta.url)("@pydantic/genai-prices");
const packageVersion = JSON.parse(
  readFileSync("node_modules/@pydantic/genai-prices/package.json", "utf8"),
).version;
const providers = await catalogue.waitForUpdate();

/** @type {Record<"equals" | "startsWith" | "endsWith" | "contains" | "regex", Set<string>>} */
const tests = {
  equals: new Set(),
  startsWith: new Set(),
  endsWith: new Set(),
  contains: new Set(),
  regex: new Set(),
};

/**
 * Collects the tests of one clause, an `or` or `and` of tests (the catalogue has no negation),
 * so that a name no collected test accepts is a name the clause rejects. An `and` accepts only
 * names every part accepts, so its parts other than regular expressions suffice (the catalogue's
 * `and`s pair a prefix with a regular expression that accepts nearly every name).
 */
function collect(clause) {
  if (clause === undefined) {
    return;
  }
  const all = clause.and ?? [];
  const selective = all.filter((part) => typeof part.regex !== "string");
  for (const part of [...(clause.or ?? []), ...(selective.length > 0 ? selective : all)]) {
    collect(part);
  }
  const pairs = [
    ["equals", clause.equals],
    ["startsWith", clause.starts_with],
    ["endsWith", clause.ends_with],
    ["contains", clause.contains],
  ];
  for (const [kind, text] of pairs) {
    if (typeof text === "string") {
      tests[kind].add(text.toLowerCase());
    }
  }
  if (typeof clause.regex === "string") {
    tests.regex.add(clause.regex);
  }
}

for (const provider of providers) {
  collect(provider.model_match);
  for (const model of provider.models) {
    collect(model.match);
  }
}

// One line per kind, the texts separated by spaces (no name or expression has one): the file
// stays a few lines long, and a change to the catalogue shows as a changed line per kind.
const lines = Object.entries(tests).map(([kind, texts]) => {
  const list = [...texts].sort();
  if (list.some((text) => text.includes(" "))) {
    throw new Error(`a ${kind} test of the catalogue holds a space: change the separator`);
  }
  return `  ${kind}: ${JSON.stringify(list.join(" "))},`;
});
const file = "src/llm/catalogue-name-clauses.ts";
writeFileSync(
  file,
  `/**
 * Every model-name test in the model catalogue (\`@pydantic/genai-prices\` ${packageVersion}): the
 * texts its providers' and models' \`match\` clauses compare a lower-cased model name with, and
 * their regular expressions, each kind as one string of space-separated texts. Written by
 * scripts/catalogue-name-clauses.mjs (an \`and\` clause is represented by its parts other than
 * regular expressions); do not edit. test/llm/model-catalogue.test.ts checks it against the
 * installed catalogue.
 */
export const CATALOGUE_NAME_CLAUSES: Readonly<
  Record<"equals" | "startsWith" | "endsWith" | "contains" | "regex", string>
> = {
${lines.join("\n")}
};
`,
);
execFileSync("npx", ["biome", "format", "--write", file], { stdio: "inherit" });
