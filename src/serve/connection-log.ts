/**
 * Which client a log line of `openai-acp serve` is about: the work of each connection (its
 * requests, its WebSocket messages, the agent's handling of them, the SDK's own transport) runs
 * inside a context naming the client's address (`AsyncLocalStorage`), and every line written in
 * it carries that address as a field. The SDK's server writes its lines with `console.warn` and
 * `console.error` (connections closed for a limit or a stall, invalid messages): those go through
 * the agent's logger (its format and redaction of secrets), with the address from the context, or
 * else from the connection id the line names; a line a client makes repeat (its numbers aside) is
 * summarised per address (`repeat-summary.ts`).
 *
 * One instance is made by `commands/serve.ts` and handed to the network server's lazy chunk (which
 * is bundled apart: a module imported by both would be two modules with two contexts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { format } from 'node:util';
import type { Logger } from '../shared/log.js';
import { RepeatSummary } from './repeat-summary.js';

/** A connection id the SDK names in its lines (a UUID). */
const CONNECTION_ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** The client context of `serve`'s log lines. */
export class ConnectionLog {
  private readonly context = new AsyncLocalStorage<string>();

  /** Runs `work` (and everything it starts) as the work of the connection of the client at `address`. */
  run<T>(address: string, work: () => T): T {
    return this.context.run(address, work);
  }

  /** The client address of the connection whose work runs now, or `undefined` outside any. */
  address(): string | undefined {
    return this.context.getStore();
  }

  /** `logger` whose lines written in a connection's work carry `address` (unless they name one already). */
  logger(logger: Logger): Logger {
    const withAddress =
      (write: Logger['warn']) =>
      (msg: string, fields?: Record<string, unknown>): void => {
        const address = this.address();
        write(msg, address === undefined || (fields && 'address' in fields) ? fields : { ...fields, address });
      };
    return {
      level: logger.level,
      error: withAddress(logger.error),
      warn: withAddress(logger.warn),
      info: withAddress(logger.info),
      debug: withAddress(logger.debug),
      addSecrets: logger.addSecrets,
    };
  }

  /**
   * Sends `console.warn` and `console.error` (the SDK's server writes with them) through `logger`,
   * with the client's address: the context's, else that of the connection id in the line
   * (`addressOfConnection`). Repeats summarised per address. Returns the function putting the
   * console back.
   */
  routeConsole(logger: Logger, addressOfConnection: (connectionId: string) => string | undefined): () => void {
    const repeats = new RepeatSummary();
    const { warn, error } = console;
    const routed =
      (write: Logger['warn']) =>
      (...args: unknown[]): void => {
        const line = format(...args);
        const named = CONNECTION_ID.exec(line)?.[0];
        const address = this.address() ?? (named === undefined ? undefined : addressOfConnection(named));
        const kind = `${address ?? ''}\u0000${line.replace(/[0-9a-f-]{8,}|\d+/gi, '#').slice(0, 200)}`;
        const skipped = repeats.take(kind, Date.now());
        if (skipped === undefined) return;
        write(line, { ...(address !== undefined ? { address } : {}), ...(skipped > 0 ? { repeated: String(skipped + 1) } : {}) });
      };
    // The logger's own lines carry the address already: the raw one is used here.
    console.warn = routed((msg, fields) => logger.warn(msg, fields));
    console.error = routed((msg, fields) => logger.error(msg, fields));
    return () => {
      console.warn = warn;
      console.error = error;
    };
  }
}
