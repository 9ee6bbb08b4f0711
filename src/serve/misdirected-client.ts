/**
 * What `openai-acp serve` answers a client that does not speak ACP's Streamable HTTP transport as
 * the RFD has it: a request without `Acp-Connection-Id` after `initialize` (400, the RFD's status),
 * or one to another path than `/acp` (404). Pure. The answer is one JSON object that both kinds of
 * reader understand, saying which client and transport to use:
 * - a JSON-RPC error response (`jsonrpc`, `id` of the request when it could be read, `error` with
 *   -32600 and `data.use`), for clients that read a JSON-RPC body whatever the status;
 * - RFC 9457 problem details (`type`, `title`, `status`, `detail`): `acp-http-client` (npm, Rivet's
 *   `sandbox-agent` SDK) reads `title` of any non-2xx answer as its error's message.
 *
 * `acp-http-client`'s own dialect (read from its source: npm `acp-http-client` 0.4.2
 * `dist/index.js`, and https://github.com/rivet-dev/sandbox-agent `sdks/acp-http-client/src/index.ts`):
 * every message is POSTed to one URL (`/v1/rpc` unless `transport.path` says otherwise) with
 * `Content-Type` and `Accept: application/json` and a bearer token, never an `Acp-Connection-Id`,
 * `Acp-Session-Id` or cookie; it GETs the same URL with `Accept: text/event-stream` for a single
 * stream of everything, and DELETEs it at the end; a 200 answer's body is read as a JSON-RPC
 * message. With no connection or session named, its requests cannot be routed to a connection
 * here (the RFD's session streams need `Acp-Session-Id`), so it is told, not served. Version 0.4.2
 * fails its whole connection on any non-2xx answer to a POST (an unhandled rejection in Node); its
 * newer source turns one into a JSON-RPC error (-32003) of that request, whose message is `title`.
 *
 * Source: ACP RFD "Streamable HTTP & WebSocket Transport" (https://agentclientprotocol.com/rfds/streamable-http-websocket-transport):
 * a request other than `initialize` without `Acp-Connection-Id` is answered 400. RFC 9457 §3.
 */
import { CONNECTION_HEADER } from './http-connections.js';

/** The text of the SDK's `AcpServer` refusing a request that names no connection. */
export const MISSING_CONNECTION_TEXT = 'Missing Acp-Connection-Id';

/** The clients and transports that work, named in every answer. */
const USE =
  "@agentclientprotocol/sdk's createHttpStream (experimental/http-client), which sends Acp-Connection-Id and keeps the acp-client cookie, or a WebSocket to the same URL (createWebSocketStream, experimental/ws-client)";

/** Why a client is told it is misdirected. */
export type Misdirection = 'no-connection' | 'wrong-path';

/** The JSON answer to a misdirected request (status 400 for `no-connection`, 404 for `wrong-path`), for request `id` (`null` when unread). */
export function misdirectedAnswer(why: Misdirection, id: string | number | null, acpPath = '/acp'): { status: number; body: Record<string, unknown> } {
  const status = why === 'no-connection' ? 400 : 404;
  const title =
    why === 'no-connection'
      ? `openai-acp serve speaks ACP's Streamable HTTP transport: after initialize, every request must carry the ${CONNECTION_HEADER} header its answer gave (and its acp-client cookie), and this one has none. Connect with ${USE}.`
      : `Not found: openai-acp serve's ACP endpoint is ${acpPath} (ACP's Streamable HTTP transport, or a WebSocket there). Connect with ${USE}.`;
  return {
    status,
    body: {
      jsonrpc: '2.0',
      id,
      error: { code: -32600, message: title, data: { ...(why === 'no-connection' ? { header: CONNECTION_HEADER } : { path: acpPath }), use: USE } },
      type: 'https://agentclientprotocol.com/rfds/streamable-http-websocket-transport',
      title,
      status,
      detail:
        why === 'no-connection'
          ? `A client that posts every message to one URL without ${CONNECTION_HEADER} (such as acp-http-client) is not supported.`
          : `Requests to other paths are not served.`,
    },
  };
}

/** The `id` of a JSON-RPC request in `bytes`, when it is one small enough to read again (64 KiB); else `null`. */
export function requestIdOf(bytes: Uint8Array): string | number | null {
  if (bytes.length > 64 * 1024) return null;
  try {
    const id = (JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8')) as { id?: unknown })?.id;
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  } catch {
    return null;
  }
}

/** A web `Response` of {@link misdirectedAnswer}. */
export function misdirectedResponse(why: Misdirection, id: string | number | null): Response {
  const { status, body } = misdirectedAnswer(why, id);
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}
