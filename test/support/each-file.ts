/**
 * Set-up run before every test file (vitest.config.ts `setupFiles`), whether files share modules
 * or not: the support modules' resets, now, before the file's own code, and the hooks that run
 * their cleanups (test/support/cleanups.ts).
 */

import { afterAll, afterEach } from "vitest";
import { cleanUpAfterFile, cleanUpAfterTest, resetBeforeFile } from "./cleanups.js";

resetBeforeFile();

afterEach(cleanUpAfterTest);
afterAll(cleanUpAfterFile);
