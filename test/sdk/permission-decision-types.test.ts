import { execFile } from "node:child_process";
import { mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { removeTree } from "../support/remove-tree.js";

// Trial 41 (F10): `PermissionDecision.kind` was typed `string`, so `{kind: "approve_once"}`
// compiled and denied every call at run time. An app compiled with `tsc --strict` against the
// package's published types (`turnloop/sdk`, dist/sdk/index.d.ts) now finds the typo, and every
// kind the wire takes (the Copilot SDK's `PermissionDecision`, legacy spellings and the SDK-only
// `no-result` included) compiles.

const REPOSITORY = fileURLToPath(new URL("../..", import.meta.url));

const APP = `import { TurnloopClient, type PermissionHandler } from "turnloop/sdk";
const kinds: PermissionHandler[] = [
  () => ({ kind: "approve-once" }),
  () => ({ kind: "approve-for-session" }),
  () => ({ kind: "approve-for-location" }),
  () => ({ kind: "approve-permanently" }),
  () => ({ kind: "reject", feedback: "not that file" }),
  () => ({ kind: "user-not-available" }),
  () => ({ kind: "no-result" }),
  () => ({ kind: "approved" }),
  () => ({ kind: "denied-interactively-by-user" }),
];
const client = new TurnloopClient();
void client.createSession({ onPermissionRequest: kinds[0] });
const typo: PermissionHandler = () => ({ kind: "approve_once" });
void typo;
`;

test("a permission decision's kind is the union the wire takes: a typo does not compile", async () => {
  const folder = await mkdtemp(join(tmpdir(), "turnloop-types-"));
  try {
    await mkdir(join(folder, "node_modules", "@types"), { recursive: true });
    await symlink(REPOSITORY, join(folder, "node_modules", "turnloop"));
    await symlink(
      join(REPOSITORY, "node_modules", "@types", "node"),
      join(folder, "node_modules", "@types", "node"),
    );
    await writeFile(join(folder, "app.ts"), APP);
    const options = {
      compilerOptions: {
        strict: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: false,
        // TypeScript's own lib.*.d.ts are not ours to check (about a third of the check's CPU);
        // the package's declarations and those they import (@types/node) still are.
        skipDefaultLibCheck: true,
        noEmit: true,
        module: "nodenext",
        moduleResolution: "nodenext",
        target: "es2022",
        types: ["node"],
      },
      files: ["app.ts"],
    };
    await writeFile(join(folder, "tsconfig.json"), JSON.stringify(options));
    const tsc = join(REPOSITORY, "node_modules", "typescript", "bin", "tsc");
    const output = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const args = [tsc, "-p", folder, "--pretty", "false"];
      execFile(process.execPath, args, { cwd: folder }, (error, stdout) => {
        resolve({ code: error === null ? 0 : (error.code as number | null), stdout });
      });
    });
    const errors = output.stdout.split("\n").filter((line) => line.includes("error TS"));
    expect({ code: output.code, errors }).toEqual({
      code: 2,
      errors: [
        expect.stringMatching(
          /^app\.ts\(15,\d+\): error TS2820: Type '"approve_once"' is not assignable to type 'PermissionDecisionKind'\. Did you mean '"approve-once"'\?$/,
        ),
      ],
    });
  } finally {
    await removeTree(folder);
  }
});
