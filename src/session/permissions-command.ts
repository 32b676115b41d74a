/**
 * `/permissions` (issue 24 item 1): the rules in force for the session and where each comes from
 * (the session's "always" answers, the config files, the flags), a relative path rule with the
 * folder it is read against; `/permissions remove N` drops a session grant; `/permissions save`
 * adds the session's allow grants to the project's `.turnloop/config.json` (`permissions.allow`),
 * their paths rewritten relative to the project's folder, so later sessions anywhere in the
 * project have them.
 */

import { access, readFile, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { errorCode, errorMessage, makeFolders } from "../events/errors.js";
import { reanchoredRuleText } from "../permissions/permission-mode.js";
import type { PermissionRule } from "../permissions/permission-rules.js";
import { withoutByteOrderMark } from "../tools/text-decoding.js";
import type { CommandDefinition, CommandOutcome } from "./commands.js";
import type { SessionHost } from "./host.js";
import type { Session } from "./session.js";

const failed = (text: string): CommandOutcome => ({ kind: "text", text, error: true });

/**
 * The rules each session saved to its project's config during this run, with the file: the run
 * config was read at start, so without this a saved rule would not show among the config's rules.
 * `rules` maps a grant's text to the text saved (its path relative to the project's folder).
 */
const savedThisRun = new WeakMap<Session, { path: string; rules: Map<string, string> }>();

export const PERMISSIONS_COMMAND: CommandDefinition = {
  name: "permissions",
  description: "The permission rules in force and where each comes from; remove or save grants",
  input: { hint: "remove N | save (optional)" },
  terminalOnly: false,
  run: async ({ host, session, argument }) => {
    const [verb = "", ...rest] = argument.split(/\s+/);
    switch (verb) {
      case "":
        return { kind: "text", text: permissionsText(host, session) };
      case "remove":
        return removeGrant(session, rest.join(" "));
      case "save":
        return saveGrants(host, session);
      default:
        return failed(
          `unknown /permissions "${verb}"; use /permissions, /permissions remove N or /permissions save`,
        );
    }
  },
};

/** The session's grants, numbered (allow first), with their decision. */
function numberedGrants(
  session: Session,
): Array<{ decision: "allow" | "deny"; rule: PermissionRule }> {
  return [
    ...session.grants.allow.map((rule) => ({ decision: "allow" as const, rule })),
    ...session.grants.deny.map((rule) => ({ decision: "deny" as const, rule })),
  ];
}

function permissionsText(host: SessionHost, session: Session): string {
  const grants = numberedGrants(session);
  const lines = ['session grants (from "always" answers):'];
  if (grants.length === 0) {
    lines.push("  none");
  }
  grants.forEach(({ decision, rule }, index) => {
    lines.push(`  ${index + 1}. ${decision} ${rule.text}`);
  });
  const config = host.configOf(session);
  const rules = [
    ...config.allow.map((rule) => ({ decision: "allow", ...rule })),
    ...config.deny.map((rule) => ({ decision: "deny", ...rule })),
  ];
  lines.push("rules from the config files and flags:");
  if (rules.length === 0 && (savedThisRun.get(session)?.rules.size ?? 0) === 0) {
    lines.push("  none");
  }
  for (const rule of rules) {
    const anchor = rule.anchor === undefined ? "" : `, paths relative to ${rule.anchor}`;
    lines.push(`  ${rule.decision} ${rule.value}  (from ${rule.source}${anchor})`);
  }
  const saved = savedThisRun.get(session);
  for (const rule of new Set(saved?.rules.values())) {
    lines.push(
      `  allow ${rule}  (saved to ${saved?.path} now; read by sessions started from now on)`,
    );
  }
  if (config.allowAllTools.value) {
    lines.push(`  every tool runs without asking (from ${config.allowAllTools.source})`);
  }
  lines.push(
    "/permissions remove N drops a session grant; /permissions save keeps the allow grants in the project's config",
  );
  return lines.join("\n");
}

/**
 * Drops grant `argument` (its number in the list) from the session: recorded as a
 * `session.grants_changed` with the grants left, so a resume folds it away too.
 */
function removeGrant(session: Session, argument: string): CommandOutcome {
  const grants = numberedGrants(session);
  const number = Number(argument);
  const chosen = Number.isInteger(number) ? grants[number - 1] : undefined;
  if (chosen === undefined) {
    return failed(
      grants.length === 0
        ? "there are no session grants to remove"
        : `give the number of a session grant, 1 to ${grants.length} (see /permissions)`,
    );
  }
  const left = (rules: readonly PermissionRule[]) =>
    rules.filter((rule) => rule !== chosen.rule).map((rule) => rule.text);
  session.emit({
    type: "session.grants_changed",
    data: { allow: left(session.grants.allow), deny: left(session.grants.deny) },
  });
  const saved = savedThisRun.get(session);
  const savedAs = saved?.rules.get(chosen.rule.text);
  const stillSaved =
    saved !== undefined && savedAs !== undefined
      ? `; it is still saved in ${saved.path}${savedAs === chosen.rule.text ? "" : ` as ${savedAs}`}, which later sessions read (edit the file to drop it)`
      : "";
  return {
    kind: "text",
    text: `removed ${chosen.decision} ${chosen.rule.text}: it no longer applies in this session, resumed or not${stillSaved}`,
  };
}

/**
 * Adds the session's allow grants to the project's config file, creating it if needed and
 * keeping its other settings; rules already there are not repeated. A grant's path, relative to
 * the session's folder, is written relative to the project's folder, which the file's rules are
 * read against (`edit(notes.md)` in `<project>/src` is saved as `edit(src/notes.md)`); an
 * absolute one too when in the project, else under `~` when in the home folder. The file
 * is replaced in one step (written beside it, then renamed), so a crash never leaves it half
 * written.
 */
async function saveGrants(host: SessionHost, session: Session): Promise<CommandOutcome> {
  if (session.grants.allow.length === 0) {
    return failed('there are no allow grants to save (answer a question with "always" first)');
  }
  // config.ts brings zod: loaded when a save is asked for, not with the command list.
  const [{ configPaths }, { projectFolder }] = await Promise.all([
    import("./config.js"),
    import("./config-paths.js"),
  ]);
  const path = configPaths(host.home, session.cwd).project;
  const project = projectFolder(session.cwd);
  const texts = new Map(
    session.grants.allow.map((rule) => [
      rule.text,
      reanchoredRuleText(rule, session.cwd, project, homedir()),
    ]),
  );
  const rules = [...new Set(texts.values())];
  try {
    const trust = await trustOnSave(host.home, session.cwd);
    const settings = await readSettings(path);
    const permissions = (settings.permissions ?? {}) as { allow?: unknown };
    const allow = Array.isArray(permissions.allow) ? (permissions.allow as unknown[]) : [];
    const added = rules.filter((rule) => !allow.includes(rule));
    const next = { ...settings, permissions: { ...permissions, allow: [...allow, ...added] } };
    await makeFolders(dirname(path));
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(next, null, 2)}\n`);
    await rename(temporary, path);
    const record = savedThisRun.get(session) ?? { path, rules: new Map<string, string>() };
    for (const [grant, saved] of texts) {
      if (added.includes(saved)) {
        record.rules.set(grant, saved);
      }
    }
    savedThisRun.set(session, record);
    return {
      kind: "text",
      text:
        (added.length === 0
          ? `${path} already allows ${rules.join(", ")}`
          : `saved to ${path}: allow ${added.join(", ")}`) + (await trust()),
    };
  } catch (error) {
    return failed(`cannot save to ${path}: ${errorMessage(error)}`);
  }
}

/**
 * What saving does to the project's trust (README, "Trusted projects"), decided before the file
 * changes; the returned step runs after the save and says what it did. A trusted project stays
 * so (its trust is recorded again for the saved contents). An untrusted one is recorded as trusted when nothing of it waited for trust before the save
 * (no held key in its config file, no `.mcp.json`): the trust then unlocks only the rules the user
 * just saved. Otherwise the rules are saved but held like the rest until the user trusts the
 * project (`turnloop mcp trust`): a save never trusts what someone else wrote.
 */
async function trustOnSave(home: string, cwd: string): Promise<() => Promise<string>> {
  const [
    { isProjectTrusted, projectFolder, trustProject },
    { holdUntrustedSettings },
    { loadConfig },
  ] = await Promise.all([
    import("./config-paths.js"),
    import("./project-holds.js"),
    import("./config.js"),
  ]);
  if (await isProjectTrusted(home, cwd)) {
    // A trust covers the file's contents (config-paths.ts): the user's own save keeps it.
    return async () => {
      try {
        await trustProject(home, cwd);
        return "";
      } catch (error) {
        return `; could not record the saved file as trusted (${errorMessage(error)}), so they apply once you run \`turnloop mcp trust\``;
      }
    };
  }
  let waiting: string[];
  try {
    // Held before the save: rules of permissions.allow then are not the ones being saved.
    waiting = Object.keys(holdUntrustedSettings(loadConfig(home, cwd)).held?.keys ?? {}).map(
      (key) => (key === "permissions.allow" ? "the earlier rules of permissions.allow" : key),
    );
  } catch (error) {
    waiting = [`(the file cannot be read: ${errorMessage(error)})`];
  }
  const mcpFile = join(projectFolder(cwd), ".mcp.json");
  if (
    await access(mcpFile).then(
      () => true,
      () => false,
    )
  ) {
    waiting.push(mcpFile);
  }
  if (waiting.length > 0) {
    return async () =>
      `; this project is not trusted, so they apply once you trust it (\`turnloop mcp trust\`), which also lets what it held before this save apply: ${waiting.join(", ")}`;
  }
  return async () => {
    try {
      await trustProject(home, cwd);
      return "; this project is now trusted (its config held nothing else), so later sessions apply them";
    } catch (error) {
      return `; could not record this project as trusted (${errorMessage(error)}), so they apply once you run \`turnloop mcp trust\``;
    }
  };
}

/** The project file's settings as an object; `{}` when it does not exist yet. */
async function readSettings(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") {
      return {};
    }
    throw error;
  }
  const json: unknown = JSON.parse(withoutByteOrderMark(text));
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new Error("it does not hold a JSON object");
  }
  return json as Record<string, unknown>;
}
