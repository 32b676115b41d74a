/**
 * Bytes a piece of code allocates, by V8's sampling heap profiler in this very process
 * (`node:inspector`'s `HeapProfiler.startSampling`, objects the collector already freed
 * included). A sample is taken about every `samplingInterval` bytes allocated, so a function that
 * allocates nothing has no sample at all, whatever the interval, the load or the tier its code
 * runs in; one that allocates has many over enough calls. V8 makes a function's feedback
 * vector on the heap at its first calls: call `work`'s functions before measuring them.
 */

import { Session } from "node:inspector/promises";

interface ProfileNode {
  callFrame: { functionName: string };
  selfSize: number;
  children: ProfileNode[];
}

/**
 * Runs `work` under the sampling heap profiler.
 * @param samplingInterval bytes between samples, on average.
 * @returns the bytes sampled in frames whose stack (the frame or a caller) is named `functionName`.
 */
export async function bytesAllocatedIn(
  functionName: string,
  work: () => void,
  samplingInterval = 64,
): Promise<number> {
  const inspector = new Session();
  inspector.connect();
  try {
    await inspector.post("HeapProfiler.enable");
    await inspector.post("HeapProfiler.startSampling", {
      samplingInterval,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    // The session's replies are delivered on an interrupt of whatever JavaScript runs: let the
    // last one arrive first, so that its handling is not sampled inside `work`.
    await new Promise((resolve) => setImmediate(resolve));
    work();
    const { profile } = await inspector.post("HeapProfiler.stopSampling");
    return sampledUnder(profile.head as ProfileNode, functionName, false);
  } finally {
    inspector.disconnect();
  }
}

function sampledUnder(node: ProfileNode, functionName: string, inside: boolean): number {
  const here = inside || node.callFrame.functionName === functionName;
  let bytes = here ? node.selfSize : 0;
  for (const child of node.children) {
    bytes += sampledUnder(child, functionName, here);
  }
  return bytes;
}
