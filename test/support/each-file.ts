/**
 * Set-up run before every test file (vitest.config.ts `setupFiles`), whether files share modules
 * or not: the hooks that run the support modules' cleanups (test/support/cleanups.ts).
 */

import { afterAll, afterEach } from "vitest";
import { cleanUpAfterFile, cleanUpAfterTest } from "./cleanups.js";

afterEach(cleanUpAfterTest);
afterAll(cleanUpAfterFile);
