/**
 * A scripted OpenAI-compatible server on 127.0.0.1 (port 0) for tests. Each POST to
 * `/chat/completions` is recorded and answered by the handler the test sets; `GET /models`
 * lists `test-model` unless the test sets another body with `setModels`. Never listens beyond loopback.
 */
import http from 'node:http';
import { afterEach } from 'vitest';
import { listenLoopback } from './listen-loopback.js';

/** A recorded chat request. */
export interface RecordedRequest {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, any>;
}

export type ChatHandler = ((req: http.IncomingMessage, res: http.ServerResponse, body: Record<string, any>) => void | Promise<void>) & {
  /** The GET paths among {@link IDENTITY_PATHS} this handler answers (e.g. `/props`); the others get a 404 without reaching it. */
  gets?: ReadonlySet<string>;
};

/** The paths the agent asks a server without a configured provider who it is (`server-identity.ts`). */
const IDENTITY_PATHS: ReadonlySet<string> = new Set(['/', '/props', '/version', '/api/version', '/api/v0/models', '/health/liveliness']);

export interface FakeOpenAI {
  /** Base URL, e.g. `http://127.0.0.1:1234/v1`. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Replace the handler for chat requests. */
  handle(handler: ChatHandler): void;
  /** Replace the JSON body (and status) of `GET /models`. */
  setModels(body: unknown, status?: number): void;
  /** Number of `GET /models` requests served. */
  readonly modelRequests: number;
  close(): Promise<void>;
}

/** SSE text of one `chat.completion.chunk` with the given delta / finish reason / usage. */
export function chunk(delta: Record<string, unknown>, finish: string | null = null, usage?: Record<string, unknown>): string {
  const body: Record<string, unknown> = {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    model: 'test-model',
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
  if (usage) body['usage'] = usage;
  return `data: ${JSON.stringify(body)}\n\n`;
}

/** A handler that streams `pieces` as content deltas, then `stop`, usage and `[DONE]`. */
export function streamText(pieces: string[], usage = { prompt_tokens: 7, completion_tokens: pieces.length, total_tokens: 7 + pieces.length }): ChatHandler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const piece of pieces) res.write(chunk({ content: piece }));
    res.write(chunk({}, 'stop'));
    res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [], usage })}\n\n`);
    res.end('data: [DONE]\n\n');
  };
}

/** A handler that answers with an HTTP error status and JSON body. */
export function httpError(status: number, body: unknown, headers: Record<string, string> = {}): ChatHandler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

/** Start the server. */
export async function startFakeOpenAI(handler: ChatHandler = streamText(['Hello', ' world'])): Promise<FakeOpenAI> {
  let current = handler;
  let models: { body: unknown; status: number } = { body: { object: 'list', data: [{ id: 'test-model', object: 'model' }] }, status: 200 };
  let modelRequests = 0;
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      if (req.method === 'GET' && path.endsWith('/models') && !path.endsWith('/api/v0/models')) {
        modelRequests++;
        res.writeHead(models.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(models.body));
        return;
      }
      // The agent asking a server who it is (endpoints/server-identity.ts) meets a plain 404, unless
      // the test's handler says it serves that path (`gets`): those looks are not chat requests.
      if (req.method === 'GET' && IDENTITY_PATHS.has(path) && !current.gets?.has(path))
        return void res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found');
      let body: Record<string, any> = {};
      try {
        body = JSON.parse(text);
      } catch {
        // recorded as empty
      }
      requests.push({ url: req.url ?? '', headers: req.headers, body });
      Promise.resolve(current(req, res, body)).catch(() => res.destroy());
    });
  });
  const { port, close } = await listenLoopback(server);
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    handle(next) {
      current = next;
    },
    setModels(body, status = 200) {
      models = { body, status };
    },
    get modelRequests() {
      return modelRequests;
    },
    close,
  };
}

/**
 * A starter of fake servers that are all closed after each test (registers a vitest `afterEach`;
 * call it at the top level of a test file).
 */
export function fakeServerPool(): (handler?: ChatHandler) => Promise<FakeOpenAI> {
  const servers: FakeOpenAI[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return async (handler) => {
    const server = await startFakeOpenAI(handler);
    servers.push(server);
    return server;
  };
}
