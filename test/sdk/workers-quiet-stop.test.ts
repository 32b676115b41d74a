import { expect, test } from "vitest";
import { approveAll } from "../../src/sdk/index.js";
import { CLI_PATH } from "../support/cli.js";
import { describeWorkers } from "./workers-support.js";

// Round 3, session 29's trial: an app that stopped its clients of two workers at once saw the
// owner's stderr say "a detach for session …, no longer served here, was dropped": the follower's
// detach reached the owner while the owner was closing the session. A follower's registration for
// a session that is not served here any more has nothing to undo, and nothing is lost: it is
// dropped without a word.

describeWorkers("stopping the clients of two workers at once", (workers) => {
  test("the owner's stderr says nothing of the follower's detach", async () => {
    const { fixture, env } = workers;
    let ownerStderr = "";
    const owner = fixture.client({
      cliPath: CLI_PATH,
      cwd: fixture.cwd,
      env,
      onStderr: (text) => {
        ownerStderr += text;
      },
    });
    const session = await owner.createSession({ onPermissionRequest: approveAll });
    const follower = workers.worker();
    await follower.resumeSession(session.sessionId, { onPermissionRequest: approveAll });
    await Promise.all([follower.stop(), owner.stop()]);
    expect(ownerStderr).toBe("");
  });
});
