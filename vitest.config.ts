import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * The suite in two projects, run at the same time:
 * - `processes`: the files that spawn the built CLI (`test/e2e/`) or build and start it
 *   (`test/build/`), two at a time in worker threads: they spend most of their time waiting, and
 *   they check outcomes (a cancel or a limit lands), not deadlines. (Four threads ended runs with
 *   tinypool's "Terminating worker thread": vitest recycles the workers of a project without
 *   isolation once its queue drains, while its last files still run.)
 * - `unit`: everything else (unit, fixture replays, fast-check properties, and the in-process
 *   files that wait on real time or child processes), in one worker process per core. This
 *   project ends first (~110 s of ~185 s on a 2-core machine with the waiting files in the other
 *   project), so the files that wait run here, beside the busy ones, not in the critical one.
 * Both run without isolation: a worker runs file after file instead of starting a fresh process
 * (or thread) per file, which saved ~0.8 s of CPU per file (Node's start, vitest's, re-importing
 * the sources). A test file must therefore undo what it changes in the process: environment
 * variables (`vi.stubEnv` and `vi.stubGlobal` are undone after each test), spies, fake timers,
 * `process.env` set by hand (restore them in `afterEach`); the source's per-process state is
 * forgotten after each test by `test/global/process-state.ts`. The built CLI (`dist/`, built once by
 * the `pretest` script) is shared by every file that spawns it; no test builds it again.
 */
const shared = {
  // Generous: a test waits for outcomes, and a busy 2-core machine running two suites at once is
  // slow (the helpers' waits are at least 20 s, test/helpers/patience.ts); only a hang should fail.
  testTimeout: 90_000,
  hookTimeout: 60_000,
  isolate: false,
  unstubEnvs: true,
  unstubGlobals: true,
  // Forgets the source's per-process state after each test (what an agent learns is its own).
  setupFiles: ['test/global/process-state.ts'],
};

const PROCESSES = ['test/e2e/**/*.test.ts', 'test/build/**/*.test.ts'];

export default defineConfig({
  test: {
    // Fails the run when it changed the user's own session, config or cache directory.
    globalSetup: ['test/global/real-dirs-guard.ts'],
    poolOptions: {
      forks: { isolate: false, maxForks: availableParallelism(), minForks: 1 },
      threads: { isolate: false, maxThreads: 2, minThreads: 1 },
    },
    projects: [
      { test: { ...shared, name: 'unit', pool: 'forks', include: ['test/**/*.test.ts', 'property-tests/**/*.test.ts'], exclude: PROCESSES } },
      { test: { ...shared, name: 'processes', pool: 'threads', include: PROCESSES } },
    ],
  },
});
