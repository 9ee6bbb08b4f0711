import { startFakeOllama } from '../helpers/fake-ollama.js';
import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { windowLine } from '../../src/commands/doctor-window.js';
import { checkLine, runCliInProcess, tempHome } from '../helpers/doctor-run-cli.js';
import { fakeServerPool, streamText } from '../helpers/fake-openai.js';

const fake = fakeServerPool();
const json = (res: http.ServerResponse, body: unknown): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

describe('windowLine', () => {
  it('names the runtime window beside the trained one, and warns with the fix below 16k', () => {
    const line = windowLine({ resolved: { window: 4096, source: 'runtime' }, server: { runtime: 4096, trained: 262144 }, fix: 'restart Ollama' });
    expect(line).toEqual({
      status: 'warn',
      title: 'context window',
      detail: '4,096 tokens (runtime, reported by the server; trained: 262,144): small for coding work',
      fix: 'restart Ollama',
    });
  });
  it("on Ollama's native API the window is the one asked of Ollama, never called a server report", () => {
    expect(windowLine({ resolved: { window: 32768, source: 'runtime' }, server: { runtime: 32768, trained: 40960 }, fix: 'x', asked: true }).detail).toBe(
      '32,768 tokens (asked of Ollama with options.num_ctx; trained: 40,960)',
    );
    expect(windowLine({ resolved: { window: 65536, source: 'configured' }, server: { runtime: 32768 }, fix: 'x', asked: true }).detail).toBe(
      '65,536 tokens (set by OPENAI_CONTEXT_WINDOW; asked of Ollama: 32,768)',
    );
  });
  it('passes a large window and shows what the configuration overrules', () => {
    expect(windowLine({ resolved: { window: 32768, source: 'configured' }, server: { runtime: 8192 }, catalogue: 131072, fix: 'x' })).toEqual({
      status: 'pass',
      title: 'context window',
      detail: '32,768 tokens (set by OPENAI_CONTEXT_WINDOW; server runtime: 8,192; model list: 131,072)',
    });
  });
  it("says when nothing reports a window, and when Ollama's default was assumed", () => {
    expect(windowLine({ server: {}, fix: 'x' }).status).toBe('skip');
    expect(windowLine({ resolved: { window: 4096, source: 'runtime' }, server: { runtime: 4096, assumed: true }, fix: 'x' }).detail).toContain(
      "Ollama's default assumed",
    );
  });
});

describe('openai-acp doctor against Ollama', () => {
  it('shows the runtime window from /api/ps beside the trained one from /api/show, as a warning with the fix', async () => {
    const chat = streamText(['OK']);
    const server = await fake((req, res, body) => {
      if (req.url === '/api/ps') return json(res, { models: [{ name: 'qwen3:8b', model: 'qwen3:8b', size: 1, size_vram: 1, context_length: 4096 }] });
      if (req.url === '/api/show') return json(res, { model_info: { 'qwen3.context_length': 262144 } });
      return chat(req, res, body);
    });
    server.setModels({ object: 'list', data: [{ id: 'qwen3:8b' }] });
    const run = await runCliInProcess(['doctor', '--timeout-ms', '3000'], {
      home: tempHome(),
      env: { OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'qwen3:8b', OPENAI_PROVIDER: 'ollama', OPENAI_ACP_OLLAMA_NUM_CTX: '0' },
    });
    expect(run.code).toBe(0);
    expect(checkLine(run.stdout, 'context window')).toBe(
      '⚠ context window: 4,096 tokens (runtime, reported by the server; trained: 262,144): small for coding work',
    );
    expect(run.stdout).toContain('fix: restart Ollama with a larger window (`OLLAMA_CONTEXT_LENGTH=32768 ollama serve`)');
  });

  it('on the native API (the agent asks num_ctx), the fix is OPENAI_ACP_OLLAMA_NUM_CTX, not restarting Ollama', async () => {
    const ollama = await startFakeOllama({ steps: [{ text: 'OK' }] });
    try {
      const run = await runCliInProcess(['doctor', '--timeout-ms', '3000'], {
        home: tempHome(),
        env: { OPENAI_BASE_URL: ollama.baseUrl, OPENAI_MODEL: 'qwen3:8b', OPENAI_PROVIDER: 'ollama', OPENAI_ACP_OLLAMA_NUM_CTX: '8192' },
      });
      expect(checkLine(run.stdout, 'context window')).toMatch(/^⚠ context window: 8,192 tokens/);
      expect(run.stdout).toContain('fix: raise OPENAI_ACP_OLLAMA_NUM_CTX');
      expect(run.stdout).not.toContain('OLLAMA_CONTEXT_LENGTH=32768 ollama serve');
    } finally {
      await ollama.close();
    }
  });
});
