import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { test } from "../support/fixtures.js";

// A user's trial: `--allow-all-tools --permission-mode auto` ran in mode auto, the other flag
// silently lost. Two permission flags that contradict each other are a usage error naming both
// (exit 64), on every face, before anything runs; flags that agree, and a flag over a config
// file's setting, are not.

const ALL_TOOLS = "--allow-all-tools is --permission-mode full-access";

describe("permission flags that contradict each other", () => {
  test.for<[string[], string]>([
    [
      ["-p", "hi", "--allow-all-tools", "--permission-mode", "auto"],
      `--allow-all-tools and --permission-mode auto contradict each other (${ALL_TOOLS}): give one of them`,
    ],
    [
      ["--permission-mode", "ask", "--yolo", "-p", "hi"],
      "--yolo and --permission-mode ask contradict each other (--yolo is --permission-mode full-access): give one of them",
    ],
    [
      ["acp", "--allow-all-tools", "--permission-mode", "ask"],
      `--allow-all-tools and --permission-mode ask contradict each other (${ALL_TOOLS}): give one of them`,
    ],
    [
      ["config", "--permission-mode", "auto", "--sandbox", "danger-full-access"],
      "--permission-mode auto and --sandbox danger-full-access contradict each other (auto runs " +
        "commands without asking because they run in the sandbox, and danger-full-access has " +
        "none): give --permission-mode full-access to run commands unconfined without asking",
    ],
  ])(
    "turnloop %j: exit 64, the two flags named, nothing else written",
    async ([args, message], { cli, model }) => {
      const result = await cli(args);
      expect(result).toEqual({
        code: 64,
        signal: null,
        stdout: "",
        stderr: `turnloop: ${message}\n`,
      });
      expect(model.requests).toEqual([]);
    },
  );

  test("flags that agree run, and a flag wins over the config file's mode", async ({
    cli,
    home,
  }) => {
    await mkdir(home, { recursive: true });
    await writeFile(join(home, "config.json"), '{"permissions": {"mode": "ask"}}\n');
    const modeLines = async (args: string[]) => {
      const result = await cli(["config", ...args]);
      expect(result.code).toBe(0);
      return result.stdout.split("\n").filter((line) => line.startsWith("permissions.mode"));
    };
    expect([
      await modeLines(["--allow-all-tools", "--permission-mode", "full-access"]),
      await modeLines(["--yolo", "--allow-all-tools"]),
      await modeLines(["--allow-all-tools"]),
      await modeLines(["--autopilot", "--permission-mode", "ask"]),
    ]).toEqual([
      ["permissions.mode         full-access    from --permission-mode"],
      ["permissions.mode         full-access    from --allow-all-tools"],
      ["permissions.mode         full-access    from --allow-all-tools"],
      ["permissions.mode         ask    from --permission-mode"],
    ]);
  });
});
