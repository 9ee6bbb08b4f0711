/**
 * How long a test waits for an outcome before it calls it a hang. A wait in a test is for an
 * outcome (a process gone, a request seen), never a deadline the code must meet: on a busy 2-core
 * machine running two suites at once, one step of a spawned agent can take seconds. So every
 * polling wait of the helpers waits at least {@link PATIENCE_MS}, whatever shorter bound a test
 * names; timing targets are measured by `npm run bench`.
 */
const PATIENCE_MS = 20_000;

/** The deadline, in ms since the epoch, of a wait of `ms` (at least {@link PATIENCE_MS}) starting now. */
export const patientDeadline = (ms: number): number => Date.now() + Math.max(ms, PATIENCE_MS);
