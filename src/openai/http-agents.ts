/**
 * The connections of the HTTP transport (`http.ts`): `node:http` and `node:https` loaded at the
 * first request, kept-alive agents by scheme and proxy, tunnels through an HTTP(S) proxy with
 * `CONNECT` (`https-proxy-agent`), a new connection for a request sent again after a kept-alive
 * one closed, and the one limit kept: {@link CONNECT_TIMEOUT_MS} to open a connection or tunnel.
 */
import type * as Http from 'node:http';
import type { Socket } from 'node:net';

/**
 * Longest wait for a TCP (and TLS) connection, in ms: undici's `connectTimeout` default.
 * @internal the tests build their cases from this value rather than a copy of its number.
 */
export const CONNECT_TIMEOUT_MS = 10_000;

/** The two modules a request needs. */
export type Modules = { http: typeof import('node:http'); https: typeof import('node:https') };
let modules: Promise<Modules> | undefined;
/** `node:http` and `node:https`, loaded at the first request (not at start-up). */
export const load = (): Promise<Modules> => (modules ??= Promise.all([import('node:http'), import('node:https')]).then(([http, https]) => ({ http, https })));

/**
 * Keep-alive agents by scheme and proxy, reused for the life of the process: per process by
 * design (connections are the process's, whatever agent or command sends on them), and they
 * hold no answer a test could see, only idle sockets that close themselves.
 */
const agents = new Map<string, Promise<Http.Agent>>();

/**
 * The kept-alive agent for `url`: direct (`proxy` is `''`), or through `proxy` (`http.ts`
 * `proxyFor`, read at each request, so a changed environment applies to the next one).
 */
export function agentFor(m: Modules, url: URL, proxy: string): Promise<Http.Agent> {
  const key = `${url.protocol} ${proxy}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = proxy
      ? import('https-proxy-agent').then(({ HttpsProxyAgent }) => timedProxyAgent(new HttpsProxyAgent(proxy, { keepAlive: true }), new URL(proxy).host))
      : Promise.resolve(url.protocol === 'https:' ? new m.https.Agent({ keepAlive: true }) : new m.http.Agent({ keepAlive: true }));
    agents.set(key, agent);
  }
  return agent;
}

/**
 * The proxy agent with the same connect limit as a direct connection: the tunnel (TCP to the
 * proxy, then its answer to `CONNECT`) must be up within {@link CONNECT_TIMEOUT_MS}, else the
 * request fails with `ETIMEDOUT` (our socket hook only sees the socket once the tunnel is up).
 */
function timedProxyAgent(agent: { connect(req: Http.ClientRequest, opts: object): Promise<Socket> }, proxyHost: string): Http.Agent {
  const connect = agent.connect.bind(agent);
  agent.connect = async (req, opts) => {
    let timer: NodeJS.Timeout | undefined;
    const pending = connect(req, opts);
    const limit = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        // A tunnel that comes up after all is closed at once.
        pending.then(
          (socket) => socket.destroy(),
          () => undefined,
        );
        reject(Object.assign(new Error(`connect ETIMEDOUT ${proxyHost} (the proxy opened no tunnel within ${CONNECT_TIMEOUT_MS} ms)`), { code: 'ETIMEDOUT' }));
      }, CONNECT_TIMEOUT_MS);
    });
    try {
      return await Promise.race([pending, limit]);
    } finally {
      clearTimeout(timer);
    }
  };
  return agent as unknown as Http.Agent;
}

/** Destroys a connecting socket with an `ETIMEDOUT` error unless it connects within {@link CONNECT_TIMEOUT_MS}. */
export function limitConnect(socket: Socket, target: string): void {
  if (!socket.connecting) return;
  const timer = setTimeout(() => {
    socket.destroy(Object.assign(new Error(`connect ETIMEDOUT ${target} (no connection within ${CONNECT_TIMEOUT_MS} ms)`), { code: 'ETIMEDOUT' }));
  }, CONNECT_TIMEOUT_MS);
  timer.unref();
  const clear = () => clearTimeout(timer);
  socket.once('connect', clear);
  socket.once('close', clear);
}

/** A one-request agent of the same kind as {@link agentFor}'s (same `proxy`), whose connection is new. */
export async function freshAgent(m: Modules, url: URL, proxy: string): Promise<Http.Agent> {
  if (proxy) {
    const { HttpsProxyAgent } = await import('https-proxy-agent');
    return timedProxyAgent(new HttpsProxyAgent(proxy, { keepAlive: false }), new URL(proxy).host);
  }
  return url.protocol === 'https:' ? new m.https.Agent({ keepAlive: false }) : new m.http.Agent({ keepAlive: false });
}
