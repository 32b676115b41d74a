/**
 * The `--output-format json` result of a `-p` prompt that ended before anything of it was saved
 * or sent (no session, no turn, no usage), for the tests of refusals: a prompt beyond the context
 * window (test/cli/prompt-too-large), storage refusing the first writes (storage-refusals.ts).
 */

/**
 * That result with `subtype` (`error_prompt_too_large`, `error_during_execution` …) and `error`,
 * `duration_ms` 0 (set it so before comparing: timings are not asserted).
 */
export function unsavedPromptResult(
  subtype: string,
  error: { type: string; message: unknown },
): Record<string, unknown> {
  return {
    type: "result",
    subtype,
    is_error: true,
    result: "",
    stop_reason: null,
    session_id: null,
    num_turns: 0,
    duration_ms: 0,
    usage: {},
    permission_denials: [],
    left_running_pids: [],
    error,
  };
}
