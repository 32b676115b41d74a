import type * as acp from "@agentclientprotocol/sdk";
import { pathText, TYPE_WORDS } from "../protocol/plain-problems.js";

/** JSON-RPC 2.0 §5.1: invalid method parameters. */
const INVALID_PARAMS = -32602;

/** Where a problem is: the keys and array indexes from the params down to the field. */
export type FieldPath = Array<string | number>;

/** One problem of a request's params: its field and what was expected there, in words. */
export interface ParamsProblem {
  path: FieldPath;
  /** `expected a string`, `expected one of "http", "sse", not "ws"`. */
  message: string;
}

/**
 * The requests read and not answered yet (id → method and params), so that every `-32602` the
 * agent sends says which request and which field, in words, whoever made it:
 * - the ACP SDK's own (it checks params with zod inside its handler, SDK 2.4.0
 *   `core/jsonrpc.js` `errorToResult`, and answers `{message: "Invalid params", data: <zod's
 *   format() tree>}`): the tree becomes one sentence per field
 *   (`session/new: mcpServers[0].name: expected a string`) and `data` becomes
 *   `{method, problems: [{path, message}]}`;
 * - turnloop's own (src/acp/errors.ts `invalidParams`, `<field>: <what was expected>`): the method
 *   is put before the message and into `data.method`.
 * The code stays `-32602`. Other messages pass unchanged.
 */
export class OpenRequests {
  readonly #requests = new Map<string | number, { method: string; params: unknown }>();

  /** Notes an incoming request (a message with a `method` and an id); ignores anything else. */
  read(message: unknown): void {
    const { id, method, params } = message as { id?: unknown; method?: unknown; params?: unknown };
    if (typeof method === "string" && (typeof id === "string" || typeof id === "number")) {
      this.#requests.set(id, { method, params });
    }
  }

  /**
   * The message to write for `message`: an answer forgets its request, and a `-32602` answer
   * is said in words (see {@link OpenRequests}); anything else is returned as it is.
   */
  answer(message: acp.AnyMessage): acp.AnyMessage {
    if ("method" in message || !("id" in message)) {
      return message;
    }
    const id = message.id;
    const request =
      typeof id === "string" || typeof id === "number" ? this.#requests.get(id) : undefined;
    if (request !== undefined && (typeof id === "string" || typeof id === "number")) {
      this.#requests.delete(id);
    }
    if (!("error" in message) || message.error.code !== INVALID_PARAMS) {
      return message;
    }
    return { ...message, error: plainInvalidParams(message.error, request) };
  }
}

/** A `-32602` error object said in words for the request it answers (see {@link OpenRequests}). */
export function plainInvalidParams(
  error: acp.ErrorResponse,
  request: { method: string; params: unknown } | undefined,
): acp.ErrorResponse {
  const prefix = request === undefined ? "" : `${request.method}: `;
  const method = request === undefined ? {} : { method: request.method };
  if (isIssueTree(error.data)) {
    const problems = treeProblems(error.data, request?.params);
    const text = problems.map(
      (problem) => `${pathText(problem.path) || "params"}: ${problem.message}`,
    );
    return {
      code: error.code,
      message: `${prefix}${text.join("; ") || "invalid params"}`,
      data: { ...method, problems },
    };
  }
  const own = error.message.replace(/^Invalid params(: )?/, "") || "invalid params";
  const data =
    typeof error.data === "object" && error.data !== null && !Array.isArray(error.data)
      ? { ...method, ...error.data }
      : error.data === undefined
        ? method
        : { ...method, details: error.data };
  return { code: error.code, message: `${prefix}${own}`, data };
}

/** zod's `format()` tree: `{_errors: string[], <key>: <tree>…}`. */
interface IssueTree {
  _errors: string[];
  [key: string]: unknown;
}

function isIssueTree(value: unknown): value is IssueTree {
  return (
    typeof value === "object" &&
    value !== null &&
    Array.isArray((value as { _errors?: unknown })._errors)
  );
}

/** A field zod complained about: its distinct messages, how many, and the value given. */
interface Leaf {
  path: FieldPath;
  messages: string[];
  /** zod's complaints about the field: one per union alternative that complained. */
  complaints: number;
  given: unknown;
}

/**
 * The problems of a zod tree, one per field. A union's alternatives are merged in the tree, each
 * adding its own complaints; of the fields beside each other, the ones most alternatives complain
 * about are kept (see {@link reduceUnion}).
 */
export function treeProblems(tree: IssueTree, params: unknown): ParamsProblem[] {
  const leaves: Leaf[] = [];
  collect(tree, [], params, leaves);
  return reduce(leaves).map((leaf) => ({ path: leaf.path, message: expectation(leaf) }));
}

function collect(tree: IssueTree, path: FieldPath, given: unknown, into: Leaf[]): void {
  if (tree._errors.length > 0) {
    into.push({
      path,
      messages: [...new Set(tree._errors)],
      complaints: tree._errors.length,
      given,
    });
  }
  for (const [key, child] of Object.entries(tree)) {
    if (key === "_errors" || !isIssueTree(child)) {
      continue;
    }
    // zod's tree keys array items by their index's text.
    const step =
      /^(0|[1-9]\d*)$/.test(key) && (Array.isArray(given) || given === undefined)
        ? Number(key)
        : key;
    collect(child, [...path, step], valueAt(given, step), into);
  }
}

function valueAt(value: unknown, step: string | number): unknown {
  if (typeof value !== "object" || value === null) {
    return undefined;
  }
  return Object.hasOwn(value, step) ? (value as Record<string, unknown>)[step] : undefined;
}

/** The leaves grouped by the object they sit in, each group reduced ({@link reduceUnion}). */
function reduce(leaves: Leaf[]): Leaf[] {
  const groups = new Map<string, Leaf[]>();
  for (const leaf of leaves) {
    const parent = JSON.stringify(leaf.path.slice(0, -1));
    groups.set(parent, [...(groups.get(parent) ?? []), leaf]);
  }
  const kept = new Set<Leaf>();
  for (const group of groups.values()) {
    const parent = group[0]?.path.slice(0, -1) ?? [];
    const deeper = leaves.some(
      (leaf) => leaf.path.length > parent.length + 1 && startsWith(leaf.path, parent),
    );
    for (const leaf of reduceUnion(group, deeper)) {
      kept.add(leaf);
    }
  }
  return leaves.filter((leaf) => kept.has(leaf));
}

function startsWith(path: FieldPath, prefix: FieldPath): boolean {
  return prefix.every((step, index) => path[index] === step);
}

/**
 * The fields of one object worth saying. Outside a union each field has one complaint, and all
 * are kept. In a union zod merges every alternative's complaints, and which one was meant is
 * unknown, so:
 * - when a discriminator (a field whose complaints all read `expected "<value>"`) was left out
 *   or given a string none of them names, and problems deeper down exist, that alternative was picked and
 *   those deeper problems (its nested object's) are the ones said;
 * - otherwise the fields the most alternatives complain about are kept: an `mcpServers` entry
 *   without `name` (every alternative wants a `name`, only some a `url`), a content block of an
 *   unknown `type` (every alternative wants another `type`).
 */
function reduceUnion(group: Leaf[], deeper: boolean): Leaf[] {
  if (group.every((leaf) => leaf.complaints === 1)) {
    return group;
  }
  const picked = group.some((leaf) => {
    const values = literals(leaf.messages);
    // Also a discriminator left out, when problems deeper down show which alternative was meant:
    // an `mcpServers` entry with `command` and a bad `env` value is a stdio server, which has no
    // `type` (trial 37 F9: the HTTP shape's `url`, `headers` and `type` were said first).
    return (
      values !== undefined &&
      (leaf.given === undefined ||
        (typeof leaf.given === "string" && !values.includes(JSON.stringify(leaf.given))))
    );
  });
  if (picked && deeper) {
    return [];
  }
  const most = Math.max(...group.map((leaf) => leaf.complaints));
  return group.filter((leaf) => leaf.complaints === most);
}

const INVALID_TYPE = /^Invalid input: expected (\w+), received \w+$/;
const ONE_VALUE = /^Invalid input: expected (.+)$/;
const ONE_OF = /^Invalid option: expected one of (.+)$/;

/** The values a field's complaints expect (`"http"`, `"sse"`), when every complaint expects one. */
function literals(messages: readonly string[]): string[] | undefined {
  const values: string[] = [];
  for (const message of messages) {
    const one = INVALID_TYPE.test(message) ? null : ONE_VALUE.exec(message);
    const many = ONE_OF.exec(message);
    if (one?.[1] !== undefined) {
      values.push(one[1]);
    } else if (many?.[1] !== undefined) {
      values.push(...many[1].split("|"));
    } else {
      return undefined;
    }
  }
  return [...new Set(values)];
}

/**
 * What a field's complaints expect, in words, and what kind of value was given when one was:
 * `expected a string`, `expected a string, not a number`, `expected one of "http", "sse", not
 * "ws"`. Only a discriminator's string is shown: other values may be secrets (an MCP server's
 * `env` and `headers`). zod's English messages (its `en` locale) are read; one not recognised
 * is said as it is.
 */
function expectation(leaf: Leaf): string {
  const values = literals(leaf.messages);
  if (values !== undefined) {
    const shown =
      typeof leaf.given === "string" && leaf.given.length <= 40
        ? JSON.stringify(leaf.given)
        : kindOf(leaf.given);
    const given = leaf.given === undefined ? "" : `, not ${shown}`;
    return `expected ${values.length === 1 ? values[0] : `one of ${values.join(", ")}`}${given}`;
  }
  const types = leaf.messages.map((message) => INVALID_TYPE.exec(message)?.[1]);
  if (types.every((type) => type !== undefined)) {
    const words = [...new Set(types.map((type) => TYPE_WORDS[type] ?? type))];
    const given = leaf.given === undefined ? "" : `, not ${kindOf(leaf.given)}`;
    return `expected ${words.join(" or ")}${given}`;
  }
  const said = leaf.messages.map((message) => message.replace(ZOD_HEAD, ""));
  return [...new Set(said)].join("; ");
}

const ZOD_HEAD =
  /^(Invalid input|Too small|Too big|Invalid option|Invalid string|Invalid number): /;

/** A value's kind in words: `a number`, `null`, `an array`. */
function kindOf(value: unknown): string {
  if (value === null) {
    return "null";
  }
  if (Array.isArray(value)) {
    return "an array";
  }
  return typeof value === "object" || typeof value === "undefined"
    ? "an object"
    : `a ${typeof value}`;
}
