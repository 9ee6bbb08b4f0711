/**
 * The SDK's `AcpServer` (Streamable HTTP and WebSocket), with what `openai-acp serve` adds around
 * each Streamable HTTP request: the connection named by `Acp-Connection-Id` must belong to the
 * client asking (`http-connections.ts`), a new connection is refused while the server is full, and
 * the client of a new connection gets its `acp-client` cookie, and a message nested too deep is
 * answered -32600 before anything parses it (`json-depth.ts`). Everything else (routing, streams,
 * limits, the RFD's status codes) is the SDK's. Imported only by the lazy server chunk.
 */
import { AcpServer, type AcpServerOptions, type HandleRequestOptions } from '@agentclientprotocol/sdk/experimental/server';
import { clientCookie, clientIdOf, type HttpConnections, newClientId } from './http-connections.js';
import { MAX_JSON_DEPTH, nestsDeeperThan, tooDeepError } from './json-depth.js';

/** The header naming a connection (ACP RFD "Streamable HTTP & WebSocket Transport", "Identity Model"). */
export const CONNECTION_HEADER = 'Acp-Connection-Id';

/**
 * The header the network server puts on each request it hands over, naming the client's address
 * (any such header a client sent is dropped first): a web `Request` carries no socket.
 */
export const ADDRESS_HEADER = 'x-openai-acp-client-address';

/** A plain-text answer, as the SDK gives its own refusals. */
export function textResponse(body: string, status: number, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { 'Content-Type': 'text/plain', ...headers } });
}

/** An `AcpServer` whose Streamable HTTP connections are each their client's. */
export class OwnedAcpServer extends AcpServer {
  /**
   * @param connections - the Streamable HTTP connections and their clients.
   * @param refuseNew - the answer to a request from `address` that would open a connection now
   *   (the server, or that address, is full, or it is stopping), or `undefined` to let it in.
   * @param refused - told of a message refused before parsing, with the client's address (for the log).
   */
  constructor(
    options: AcpServerOptions,
    private readonly connections: HttpConnections,
    private readonly refuseNew: (address: string) => Response | undefined,
    private readonly refused: (reason: string, address: string) => void = () => undefined,
  ) {
    super(options);
  }

  /**
   * One Streamable HTTP request: a request naming a connection its client does not own is
   * answered as the SDK answers an unknown one (404, so it learns nothing of other clients); the
   * answer to a new connection's `initialize` carries the client's cookie.
   */
  override async handleRequest(given: Request, options?: HandleRequestOptions): Promise<Response> {
    let req = given;
    const connectionId = req.headers.get(CONNECTION_HEADER);
    const clientId = clientIdOf(req.headers.get('cookie'));
    const address = req.headers.get(ADDRESS_HEADER) ?? 'unknown';
    if (connectionId !== null) {
      if (!this.connections.owns(connectionId, clientId)) return textResponse('Unknown Acp-Connection-Id', 404);
    } else if (req.method === 'POST') {
      const refused = this.refuseNew(address);
      if (refused) {
        await req.body?.cancel().catch(() => undefined);
        return refused;
      }
    }
    if (req.method === 'POST' && req.body) {
      // The SDK's adapter has read the whole body already (up to --max-message-bytes): scanned here before it is parsed.
      const bytes = new Uint8Array(await req.arrayBuffer());
      if (nestsDeeperThan(bytes, MAX_JSON_DEPTH)) {
        this.refused(`refused a message nested deeper than ${MAX_JSON_DEPTH} levels`, address);
        return new Response(JSON.stringify(tooDeepError()), { status: 400, headers: { 'Content-Type': 'application/json' } });
      }
      req = new Request(given.url, { method: 'POST', headers: given.headers, body: bytes, signal: given.signal });
    }
    const response = await super.handleRequest(req, options);
    const created = connectionId === null && req.method === 'POST' ? response.headers.get(CONNECTION_HEADER) : null;
    if (created) {
      const id = clientId ?? newClientId();
      this.connections.created(created, id, Date.now(), address);
      if (clientId === undefined) response.headers.append('Set-Cookie', clientCookie(id));
    }
    if (connectionId !== null && req.method === 'DELETE') this.connections.forget(connectionId);
    return response;
  }

  /** Ends the Streamable HTTP connection `connectionId` (its client went away), as its own DELETE would. */
  async end(connectionId: string): Promise<void> {
    this.connections.forget(connectionId);
    await super.handleRequest(new Request('http://localhost/acp', { method: 'DELETE', headers: { [CONNECTION_HEADER]: connectionId } }));
  }
}
