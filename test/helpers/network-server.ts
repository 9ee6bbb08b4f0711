/**
 * `openai-acp serve`'s network server in process (the lazy chunk's source) for the tests of
 * `test/serve/`: an agent on a dead endpoint (`127.0.0.1:9`) and no saved sessions, on 127.0.0.1
 * port 0, no token, closed after each test.
 */
import { afterEach } from 'vitest';
import { createOpenAIAgent } from '../../src/acp/agent.js';
import type { ConnectionLog } from '../../src/serve/connection-log.js';
import { startNetworkServer, type NetworkServer } from '../../src/serve/network-server.lazy.js';
import { SERVE_LIMITS, type ServeLimits } from '../../src/serve/serve-flags.js';
import { createLogger, type Logger } from '../../src/shared/log.js';
import { openSessionStore } from '../../src/sessions/session-store.js';
import { testConfig } from './in-process.js';

/** A logger that writes nothing. */
const quietLogger = createLogger({ level: 'error', write: () => undefined });

/** The `initialize` request as a JSON-RPC line (id 1). */
export const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });

/** What a test may set; each defaults to the quiet, default-limits server. */
export interface TestServerOptions {
  /** Limits over {@link SERVE_LIMITS}. */
  limits?: Partial<ServeLimits>;
  /** The server's logger. @defaultValue {@link quietLogger} */
  logger?: Logger;
  /** Where lines about a connection get its address; the agent then logs through it too. */
  connectionLog?: ConnectionLog;
  /** How long a Streamable HTTP connection may go without an event stream, in ms. @defaultValue the server's */
  httpIdleMs?: number;
}

/** Starts servers for one test file and closes them after each test (call once at the file's top). */
export function networkServers(): (options?: TestServerOptions) => Promise<NetworkServer> {
  const running: NetworkServer[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.close()));
  });
  return async ({ limits = {}, logger = quietLogger, connectionLog, httpIdleMs } = {}) => {
    const agent = createOpenAIAgent({
      config: testConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }),
      logger: connectionLog ? connectionLog.logger(logger) : logger,
      store: openSessionStore({ stateDir: 'off', env: {}, logger }),
    });
    const server = await startNetworkServer({
      agent,
      host: '127.0.0.1',
      port: 0,
      token: undefined,
      allowOrigins: [],
      limits: { ...SERVE_LIMITS, ...limits },
      logger,
      ...(connectionLog ? { connectionLog } : {}),
      notReady: () => undefined,
      ...(httpIdleMs === undefined ? {} : { httpIdleMs }),
    });
    running.push(server);
    return server;
  };
}

/** Resolves once `test()` holds, polling every 20 ms (the test's own timeout bounds it). */
export async function until(test: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await test())) await new Promise((resolve) => setTimeout(resolve, 20));
}
