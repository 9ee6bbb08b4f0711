/**
 * A child process for the session store's multi-process tests, bundled with esbuild by the test
 * (Node 20 cannot run .ts). Argument: JSON {@link DriverOptions}.
 *
 * Prints `ready` once the store is open, waits for a line on stdin, then appends `count` turn
 * records to `sessionId` and prints `ack <i>` after each append resolved (stdout is a pipe, which
 * Node writes synchronously, so an ack the parent read means the append had resolved). Refused
 * because another process holds the session: prints `busy <message>` and exits with 3.
 */
import { openSessionStore, SessionStoreError } from '../../src/sessions/session-store.js';
import { createLogger } from '../../src/shared/log.js';
import { driverText, type DriverOptions } from './session-store-fixtures.js';

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2]!) as DriverOptions;
  const logger = createLogger({ level: 'warn' });
  const store = await openSessionStore({
    stateDir: options.dir,
    env: process.env,
    logger,
    leases: options.waitMs === undefined ? {} : { waitMs: options.waitMs },
  });
  if (!store.persistent) throw new Error('expected a persistent store');
  process.stdout.write('ready\n');
  await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
  for (let i = 0; i < options.count; i++) {
    await store.append(options.sessionId, {
      type: 'turn',
      at: new Date().toISOString(),
      prompt: [{ type: 'text', text: `${options.tag} ${i}` }],
      assistant: driverText(options.tag, i, options.sizes),
      reasoning: `${options.tag}-reasoning-${i}`,
      stopReason: 'end_turn',
    });
    process.stdout.write(`ack ${i}\n`);
  }
  process.exit(0);
}

main().catch((error: unknown) => {
  if (error instanceof SessionStoreError && error.code === 'busy') {
    process.stdout.write(`busy ${error.message}\n`);
    process.exit(3);
  }
  process.stderr.write(`driver failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
