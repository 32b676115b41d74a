/** The plan the plan tests use: three steps, in order. */
const STEPS = ["Find the bug", "Fix it", "Run the tests"];

/**
 * A scripted `update_plan` tool call (for the fake model) setting the plan's three steps to
 * `statuses`, in order.
 */
export function updatePlanCall(
  id: string,
  statuses: Array<"pending" | "in_progress" | "completed">,
) {
  const entries = statuses.map((status, index) => ({
    content: STEPS[index],
    priority: "medium",
    status,
  }));
  return { id, name: "update_plan", arguments: JSON.stringify({ entries }) };
}
