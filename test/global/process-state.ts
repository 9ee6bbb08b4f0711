/**
 * vitest setupFiles: the suite runs many files in one process (vitest.config.ts, `isolate: false`),
 * so what the source keeps for the life of the process is forgotten after each test. What an
 * agent learns is kept by its `AgentState` (`endpoints/learned-facts.ts`) and needs nothing
 * here; this is for the state kept per process by design.
 */
import { afterEach } from 'vitest';
import { forgetServerIdentities } from '../../src/endpoints/server-identity.js';
import { resetToolProcesses } from '../../src/tools/sandbox/tool-processes.js';

afterEach(() => {
  forgetServerIdentities();
  resetToolProcesses();
});
