// bench/notes/turn37.md: node bench/notes/turn37-notify.mjs <build>/dist
// Heap bytes allocated per streamed delta by SessionClients.notify (one attached app whose
// notify keeps nothing), sampled by V8's heap profiler every 64 bytes, collected objects included.
import { Session } from "node:inspector";

const dist = process.argv[2];
const { SessionClients } = await import(`${dist}/server/session-clients.js`);
const { createEnvelope } = await import(`${dist}/session/envelope.js`);
const clients = new SessionClients(null);
let sent = 0;
clients.attach(
  {
    notify() {
      sent++;
    },
    request: async () => undefined,
  },
  { streaming: true },
);
const deltas = Array.from({ length: 40000 }, (_, i) =>
  createEnvelope(
    {
      type: "assistant.message_delta",
      data: { messageId: "m", deltaContent: `w${i} ` },
      ephemeral: true,
    },
    "p",
  ),
);
for (let i = 0; i < 20000; i++) {
  clients.notify("s", deltas[i], deltas[i]);
}
const inspector = new Session();
inspector.connect();
const post = (m, p) =>
  new Promise((res, rej) => inspector.post(m, p, (e, r) => (e ? rej(e) : res(r))));
await post("HeapProfiler.enable");
await post("HeapProfiler.startSampling", {
  samplingInterval: 64,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
for (let i = 20000; i < 40000; i++) {
  clients.notify("s", deltas[i], deltas[i]);
}
const { profile } = await post("HeapProfiler.stopSampling");
let total = 0;
const by = new Map();
(function walk(n, parent) {
  if (n.selfSize) {
    total += n.selfSize;
    const k = `${n.callFrame.functionName} < ${parent}`;
    by.set(k, (by.get(k) ?? 0) + n.selfSize);
  }
  for (const c of n.children) {
    walk(c, n.callFrame.functionName);
  }
})(profile.head, "");
console.log(
  JSON.stringify({
    bytesPerDelta: +(total / 20000).toFixed(1),
    sent,
    top: [...by]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([k, v]) => `${k} ${(v / 20000).toFixed(1)}`),
  }),
);
