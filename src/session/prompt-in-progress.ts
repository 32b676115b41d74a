/** Thrown by `Session.prompt` when a prompt is already running in the session. */
export class PromptInProgressError extends Error {
  constructor(sessionId: string) {
    super(`Session ${sessionId} is already running a prompt; cancel it or wait for it to end.`);
    this.name = "PromptInProgressError";
  }
}
