/**
 * A scripted Ollama on 127.0.0.1 (port 0) for end-to-end tests, speaking both of its APIs:
 * `POST /api/chat` (NDJSON), `POST /api/show`, `GET /api/ps`, and the OpenAI-compatible
 * `GET /v1/models` and `POST /v1/chat/completions` (SSE). Like Ollama, it runs the model with the
 * window asked for (`options.num_ctx`; 4096 when a request asks for none, which every `/v1`
 * request is) and answers a prompt over it as Ollama does: "request (N tokens) exceeds the
 * available context size (M tokens), try increasing it" (4 characters a token). Shapes from
 * https://github.com/ollama/ollama/blob/main/docs/api.md.
 */
import http from 'node:http';
import type { ScriptStep } from './tool-script.js';
import { listenLoopback } from './listen-loopback.js';

export interface FakeOllamaOptions {
  /** The one model it has. @defaultValue `qwen3:8b` */
  model?: string;
  /** The trained window `/api/show` reports, tokens. @defaultValue 40960 */
  trained?: number;
  /** `/api/show` capabilities. @defaultValue completion, tools, thinking */
  capabilities?: string[];
  /** `not-served`: `/api/chat` answers `404 page not found` (a gateway exposing only /v1). */
  chat?: 'served' | 'not-served';
  /** `/api/ps` `size` and `size_vram`, bytes. @defaultValue all in GPU memory */
  memory?: { size: number; sizeVram: number };
  /** The first chat request waits this long (ms) while the model loads; `/api/ps` lists it only then. @defaultValue 0 */
  loadMs?: number;
  /** Answers each model request with the next step (the last one repeats); `hold` writes one line and never ends. */
  steps?: Array<ScriptStep | { hold: true } | { status: number; error: string } | { broken: string }>;
}

/** A recorded request. */
interface OllamaRequest {
  method: string;
  path: string;
  body: any;
}

export interface FakeOllama {
  /** `http://127.0.0.1:PORT/v1`, as a user configures it. */
  baseUrl: string;
  requests: OllamaRequest[];
  /** Chat requests whose connection closed before the answer ended (an abort). */
  readonly aborted: number;
  /** Answer the next model requests with `steps` (from the first), as {@link FakeOllamaOptions.steps} does; forget the recorded requests. */
  script(steps?: FakeOllamaOptions['steps']): void;
  close(): Promise<void>;
}

const line = (value: unknown) => `${JSON.stringify(value)}\n`;
const sse = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;

export async function startFakeOllama(options: FakeOllamaOptions = {}): Promise<FakeOllama> {
  const model = options.model ?? 'qwen3:8b';
  const trained = options.trained ?? 40960;
  const requests: OllamaRequest[] = [];
  let steps = options.steps;
  let step = 0;
  let aborted = 0;
  let loaded: number | undefined;
  const json = (res: http.ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const chat = async (res: http.ServerResponse, body: any, native: boolean) => {
    if (loaded === undefined && options.loadMs) await new Promise((resolve) => setTimeout(resolve, options.loadMs));
    if (body.model !== model)
      return json(
        res,
        404,
        native
          ? { error: `model "${body.model}" not found, try pulling it first` }
          : { error: { message: `model "${body.model}" not found, try pulling it first`, type: 'api_error' } },
      );
    const window = native && typeof body.options?.num_ctx === 'number' ? body.options.num_ctx : 4096;
    loaded = window;
    const tokens = Math.ceil(JSON.stringify(body.messages).length / 4);
    if (tokens > window) {
      const error = `request (${tokens} tokens) exceeds the available context size (${window} tokens), try increasing it`;
      return json(res, 400, native ? { error } : { error: { message: error, type: 'api_error' } });
    }
    const next = steps?.[Math.min(step++, (steps?.length ?? 1) - 1)] ?? { text: 'Hello from Ollama' };
    if ('status' in next) return json(res, next.status, { error: next.error });
    const usage = { prompt_eval_count: tokens, eval_count: 3 };
    if (native) {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const message = (extra: object) =>
        line({ model, created_at: '2025-07-07T20:22:19Z', message: { role: 'assistant', content: '', ...extra }, done: false });
      if ('hold' in next) {
        res.on('close', () => void (res.writableEnded || aborted++));
        return res.write(message({ content: 'Thinking about it' }));
      }
      if ('broken' in next) return res.end(message({ content: next.broken }));
      if ('text' in next) res.write(message({ thinking: 'Let me answer.' })), res.write(message({ content: next.text }));
      else
        res.write(
          message({ tool_calls: next.calls.map(([name, args], index) => ({ id: `call_${step}_${index}`, function: { index, name, arguments: args } })) }),
        );
      return res.end(
        line({ model, created_at: '2025-07-07T20:22:20Z', message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', ...usage }),
      );
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: object, finish: string | null = null) =>
      sse({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model, choices: [{ index: 0, delta, finish_reason: finish }] });
    if ('text' in next) res.write(chunk({ content: next.text }));
    else if ('calls' in next)
      res.write(
        chunk({
          tool_calls: next.calls.map(([name, args], index) => ({
            index,
            id: `call_${step}_${index}`,
            type: 'function',
            function: { name, arguments: JSON.stringify(args) },
          })),
        }),
      );
    res.write(chunk({}, 'text' in next ? 'stop' : 'tool_calls'));
    res.write(
      sse({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: tokens, completion_tokens: 3, total_tokens: tokens + 3 } }),
    );
    res.end('data: [DONE]\n\n');
  };
  const server = http.createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      let body: any = {};
      try {
        body = text ? JSON.parse(text) : {};
      } catch {
        // recorded as empty
      }
      const path = (req.url ?? '').split('?')[0]!;
      requests.push({ method: req.method ?? '', path, body });
      if (req.method === 'GET' && path === '/v1/models') return json(res, 200, { object: 'list', data: [{ id: model, object: 'model' }] });
      if (req.method === 'POST' && path === '/v1/chat/completions') return void chat(res, body, false);
      if (req.method === 'POST' && path === '/api/chat' && options.chat !== 'not-served') return void chat(res, body, true);
      if (req.method === 'POST' && path === '/api/show') {
        if (body.model !== model) return json(res, 404, { error: `model '${body.model}' not found` });
        const info = {
          'general.architecture': 'qwen3',
          'qwen3.context_length': trained,
          'qwen3.block_count': 36,
          'qwen3.attention.head_count': 32,
          'qwen3.attention.head_count_kv': 8,
          'qwen3.attention.key_length': 128,
          'qwen3.attention.value_length': 128,
          'qwen3.embedding_length': 4096,
        };
        return json(res, 200, { model_info: info, capabilities: options.capabilities ?? ['completion', 'tools', 'thinking'] });
      }
      if (req.method === 'GET' && path === '/api/ps') {
        const size = options.memory?.size ?? 6_000_000_000;
        const models = loaded ? [{ name: model, model, size, size_vram: options.memory?.sizeVram ?? size, context_length: loaded }] : [];
        return json(res, 200, { models });
      }
      res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found');
    });
  });
  const { port, close } = await listenLoopback(server);
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get aborted() {
      return aborted;
    },
    script(next) {
      steps = next;
      step = 0;
      requests.length = 0;
    },
    close,
  };
}
