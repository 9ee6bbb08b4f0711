/**
 * What `/acp` tells a browser (CORS, https://fetch.spec.whatwg.org/#http-cors-protocol): a page of
 * an allowed origin may read the answer, send its cookie and see the connection id; its preflight
 * (`OPTIONS`, which carries no credentials) is answered on the origin alone. Imported only by the
 * network server's lazy chunk.
 */
import type http from 'node:http';
import { normalizeOrigin } from '../agentconnect/gate.js';
import { CONNECTION_HEADER } from './owned-acp-server.js';

/** What a browser page of an allowed origin may do with `/acp` (its preflight's answer). */
const PREFLIGHT_HEADERS = {
  'Access-Control-Allow-Methods': 'GET, POST, DELETE',
  'Access-Control-Allow-Headers': `Authorization, Content-Type, Accept, ${CONNECTION_HEADER}, Acp-Session-Id`,
  'Access-Control-Max-Age': '600',
};

/**
 * Sets the CORS headers on `res` when the request's `Origin` is among `allowOrigins` (normalised),
 * and answers a preflight: 204 for an allowed origin, 403 otherwise.
 * @returns true when the request was a preflight and is answered; false when it goes on.
 */
export function answerBrowser(req: http.IncomingMessage, res: http.ServerResponse, allowOrigins: readonly string[]): boolean {
  const origin = req.headers.origin;
  const allowed = origin !== undefined && allowOrigins.includes(normalizeOrigin(origin));
  if (allowed) allowBrowser(res, origin);
  if (req.method !== 'OPTIONS') return false;
  res.writeHead(allowed ? 204 : 403, allowed ? PREFLIGHT_HEADERS : { 'Content-Type': 'text/plain' }).end(allowed ? undefined : 'origin not allowed\n');
  return true;
}

/** Lets a page of an allowed `origin` read the answer, send its cookie, and see the connection id. */
function allowBrowser(res: http.ServerResponse, origin: string): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Allow-Credentials', 'true');
  res.setHeader('Access-Control-Expose-Headers', CONNECTION_HEADER);
  res.setHeader('Vary', 'Origin');
}
