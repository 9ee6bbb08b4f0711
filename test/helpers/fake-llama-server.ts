/**
 * A `node:http` server that behaves like the real `llama-server` 0.7.0 recorded in
 * test/fixtures/llamacpp/ (see its README): it answers `GET /props` and `GET /v1/models` with the
 * recorded bodies and keeps those connections open, answers chat requests with the recorded
 * streams and then closes the connection it announced as kept alive (as the real one does), and
 * answers anything else with its recorded 404 and `connection: close`. The real server's close
 * comes a moment after the answer's last byte, so a client that sends its next request at once
 * on the pooled socket loses it ("socket hang up", `ECONNRESET`; reuse-after-stream.txt there);
 * the fake makes that certain: a request on a connection whose stream has ended is not answered,
 * and the connection is destroyed.
 *
 * Chat answers: a request over {@link FakeLlamaOptions.overflowAboveBytes} gets the recorded
 * overflow 400; one whose last message is a `tool` message gets the recorded text answer; one
 * with `tools` gets the recorded `read_file` tool call; with `templateTakesTools: false`, a request
 * carrying `assistant.tool_calls` gets the recorded Gemma template 400.
 */
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { listenLoopback } from './listen-loopback.js';

/** One recorded exchange (test/fixtures/llamacpp/*.json). */
export interface LlamaRecord {
  provenance: string;
  request: { method: string; path: string; body?: any };
  response: { status: number; headers: Record<string, string>; body: string };
  serverClosedConnection: boolean;
}

/** Reads a recorded exchange by file name. */
export function llamaRecord(name: string): LlamaRecord {
  return JSON.parse(readFileSync(new URL(`../fixtures/llamacpp/${name}`, import.meta.url), 'utf8')) as LlamaRecord;
}

/** How the fake behaves. */
export interface FakeLlamaOptions {
  /** The chat template takes tools (`props-hermes.json`) or not (`props-gemma.json`). @defaultValue true */
  templateTakesTools?: boolean;
  /**
   * Request bodies larger than this (bytes) get the overflow answer. @defaultValue 24000 (about the
   * recorded 4,096-token window at ~6 bytes of JSON a token)
   */
  overflowAboveBytes?: number;
}

/** A running fake. */
export interface FakeLlama {
  /** `http://127.0.0.1:PORT/v1`. */
  baseUrl: string;
  /** Every request, in order: method, path, parsed body. */
  requests: { method: string; path: string; body: any; socket: number }[];
  /** How many TCP connections were opened. */
  connections(): number;
  /** Requests sent on a connection the server was closing (lost, never answered). */
  lost(): number;
  close(): Promise<void>;
}

/** Starts the fake on 127.0.0.1, port chosen by the system. */
export async function startFakeLlama(options: FakeLlamaOptions = {}): Promise<FakeLlama> {
  const takesTools = options.templateTakesTools ?? true;
  const props = llamaRecord(takesTools ? 'props-hermes.json' : 'props-gemma.json');
  const models = llamaRecord('models.json');
  const toolCall = llamaRecord(takesTools ? 'stream-tool-call-hermes.json' : 'stream-text-call-gemma.json');
  const text = llamaRecord('stream-text-hermes.json');
  const overflow = llamaRecord('overflow.json');
  const templateError = llamaRecord('template-error-gemma.json');
  const notFound = llamaRecord('root.json');
  const health = llamaRecord('health-ok.json');
  const requests: FakeLlama['requests'] = [];
  let connections = 0;
  const socketIds = new WeakMap<object, number>();
  /** Connections whose streamed answer has ended: the server is closing them. */
  const closing = new WeakSet<object>();
  let lost = 0;
  const server = http.createServer((req, res) => {
    if (closing.has(req.socket)) {
      lost++;
      return void req.socket.destroy();
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: any;
      try {
        body = raw.length > 0 ? JSON.parse(raw.toString('utf8')) : undefined;
      } catch {
        body = undefined;
      }
      const path = (req.url ?? '/').split('?')[0]!;
      requests.push({ method: req.method ?? 'GET', path, body, socket: socketIds.get(req.socket) ?? 0 });
      const answer = (record: LlamaRecord, close: boolean) => {
        const { 'content-length': _length, 'transfer-encoding': _te, connection: _c, 'keep-alive': _k, ...headers } = record.response.headers;
        // The real server says keep-alive on its streams and closes them anyway.
        res.writeHead(record.response.status, {
          ...headers,
          ...(close && record.response.status >= 400 ? { connection: 'close' } : { 'keep-alive': 'timeout=5, max=100' }),
        });
        res.end(record.response.body, () => {
          if (!close) return;
          if (record.response.status >= 400) req.socket.end();
          else closing.add(req.socket);
        });
      };
      if (req.method === 'GET' && path === '/props') return answer(props, false);
      if (req.method === 'GET' && path === '/health') return answer(health, false);
      if (req.method === 'GET' && path === '/v1/models') return answer(models, false);
      if (req.method === 'POST' && path === '/v1/chat/completions') {
        if (raw.length > (options.overflowAboveBytes ?? 24_000)) return answer(overflow, true);
        const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
        if (!takesTools && messages.some((m) => m.role === 'tool' || m.tool_calls)) return answer(templateError, true);
        if (messages.at(-1)?.role === 'tool' || !body?.tools) return answer(text, true);
        return answer(toolCall, true);
      }
      return answer(notFound, true);
    });
  });
  server.on('connection', (socket) => socketIds.set(socket, ++connections));
  const listening = await listenLoopback(server);
  return { baseUrl: `http://127.0.0.1:${listening.port}/v1`, requests, connections: () => connections, lost: () => lost, close: () => listening.close() };
}
