import { describe, expect, it } from "vitest";
import { updatePlanTool } from "../../src/tools/update-plan.js";
import { makeContext } from "./tool-context.js";

function parse(args: unknown) {
  return updatePlanTool.input.safeParse(args);
}

describe("update_plan", () => {
  it("answers the plan as readable text", async () => {
    const input = updatePlanTool.input.parse({
      entries: [
        { content: "Read the failing test", priority: "high", status: "completed" },
        { content: "Fix the parser", priority: "high", status: "in_progress" },
        { content: "Update the changelog", priority: "low", status: "pending" },
      ],
    });
    expect(await updatePlanTool.execute(input, makeContext("/tmp"))).toEqual({
      content:
        "Plan updated: 1 of 3 done.\n" +
        "[x] Read the failing test (high)\n" +
        "[~] Fix the parser (high)\n" +
        "[ ] Update the changelog (low)",
      isError: false,
      effects: [{ type: "plan_updated", entries: input.entries }],
    });
  });

  it("clears the plan with an empty list", async () => {
    const input = updatePlanTool.input.parse({ entries: [] });
    expect(await updatePlanTool.execute(input, makeContext("/tmp"))).toEqual({
      content: "Plan cleared.",
      isError: false,
      effects: [{ type: "plan_updated", entries: [] }],
    });
  });

  it("validates entries: known priorities and statuses, non-empty content", () => {
    const entry = { content: "Step", priority: "medium", status: "pending" };
    expect(parse({ entries: [entry] }).success).toBe(true);
    expect(parse({ entries: [{ ...entry, status: "done" }] }).success).toBe(false);
    expect(parse({ entries: [{ ...entry, priority: "urgent" }] }).success).toBe(false);
    expect(parse({ entries: [{ ...entry, content: "   " }] }).success).toBe(false);
    expect(parse({ entries: [{ content: "Step" }] }).success).toBe(false);
    expect(parse({}).success).toBe(false);
    expect(parse({ entries: [{ ...entry, content: "  Step  " }] }).data?.entries[0]?.content).toBe(
      "Step",
    );
  });

  it("is a think tool that touches nothing", () => {
    expect(updatePlanTool.kind).toBe("think");
    expect(updatePlanTool.mutates).toBe(false);
    expect(updatePlanTool.scope?.({ entries: [] }, "/work")).toEqual({
      title: "Update plan",
      paths: [],
    });
  });
});
