/**
 * `acp-http-client`'s HTTP dialect against `openai-acp serve`: it names no `Acp-Connection-Id`, so
 * after its `initialize` (which works) every request is answered 400 with one JSON object that is
 * both a JSON-RPC error of that request (-32600, its id) and RFC 9457 problem details whose `title`
 * (what that client shows as its error) says which client and transport to use; a POST to its
 * default path `/v1/rpc` is answered 404 the same way, naming `/acp`.
 *
 * Provenance of {@link RECORDED}: recorded on 2026-12-02 by running `acp-http-client` 0.4.2 (npm,
 * Rivet's sandbox-agent SDK, with its dependency `@agentclientprotocol/sdk` 0.16.1) as
 * `new AcpHttpClient({ baseUrl, token, transport: { path: '/acp' } })`, `initialize()` then
 * `newSession({ cwd: '/tmp', mcpServers: [] })`, against this server's build, its `fetch` wrapped
 * to log each request (method, headers, body) in the order sent. The token is replaced by none
 * (the server here runs without one). Its default path (`/v1/rpc`, no `transport`) sent the same
 * requests there.
 */
import { describe, expect, it } from 'vitest';
import { misdirectedAnswer } from '../../src/serve/misdirected-client.js';
import { networkServers } from '../helpers/network-server.js';

/** The requests acp-http-client 0.4.2 sent, in order (see the provenance above). */
const RECORDED = [
  { method: 'GET', headers: { accept: 'text/event-stream' } },
  {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"acp-http-client","version":"v1"}}}',
  },
  { method: 'GET', headers: { accept: 'text/event-stream' } },
  {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: '{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}',
  },
] as const;

const start = networkServers();

/** What acp-http-client makes of a non-2xx answer: its body as problem details, `title` as the error's message (`readProblem`, `AcpHttpError`). */
async function asAcpHttpClientReadsIt(response: Response): Promise<{ message: string; body: any }> {
  const body = JSON.parse(await response.text());
  return { message: body?.title ?? `Request failed with status ${response.status}`, body };
}

describe("acp-http-client's dialect", () => {
  it('gets its initialize answered, then a 400 whose JSON-RPC error and title say to use the SDK http-client or a WebSocket', async () => {
    const server = await start();
    const answers: Response[] = [];
    for (const request of RECORDED)
      answers.push(await fetch(server.url, { method: request.method, headers: request.headers, body: 'body' in request ? request.body : undefined }));
    expect(answers.map((a) => a.status)).toEqual([400, 200, 400, 400]);
    expect(await answers[1]!.json()).toMatchObject({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1 } });
    const sessionNew = await asAcpHttpClientReadsIt(answers[3]!);
    expect(answers[3]!.headers.get('content-type')).toBe('application/json');
    expect(sessionNew.body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32600, data: { header: 'Acp-Connection-Id' } }, status: 400 });
    expect(sessionNew.message).toBe(sessionNew.body.error.message);
    expect(sessionNew.message).toContain('Acp-Connection-Id');
    expect(sessionNew.message).toContain('createHttpStream');
    expect(sessionNew.message).toContain('WebSocket');
    // Its event stream request (no JSON-RPC id) gets the same words.
    expect((await asAcpHttpClientReadsIt(answers[2]!)).body).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('at its default path /v1/rpc gets a 404 naming /acp, in the same JSON', async () => {
    const server = await start();
    const [, initialize] = RECORDED;
    const answer = await fetch(server.url.replace(/\/acp$/, '/v1/rpc'), { method: 'POST', headers: initialize.headers, body: initialize.body });
    expect(answer.status).toBe(404);
    const { message, body } = await asAcpHttpClientReadsIt(answer);
    expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: -32600, data: { path: '/acp' } }, status: 404 });
    expect(message).toContain('/acp');
    // A browser or curl asking for anything else still reads plain text.
    const plain = await fetch(server.url.replace(/\/acp$/, '/favicon.ico'));
    expect(plain.status).toBe(404);
    expect(await plain.text()).toContain('the ACP endpoint is /acp');
  });

  it('is answered by one pure function, 400 or 404, its id kept', () => {
    expect(misdirectedAnswer('no-connection', 'x').body).toMatchObject({ id: 'x', status: 400 });
    expect(misdirectedAnswer('wrong-path', null, '/acp').status).toBe(404);
  });
});
