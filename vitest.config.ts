import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // `expect.poll` waits for what a loaded machine may take a while to show (a server's start).
    expect: { poll: { timeout: 10_000 } },
  },
});
