/** The producer version written into `session.start` and announced by the faces (ACP `agentInfo`). */
export const PRODUCER_VERSION = "0.1.0";
