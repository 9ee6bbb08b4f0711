/**
 * `doctor`'s llama.cpp section (src/commands/doctor-llamacpp.ts), and `doctor` against a replay of
 * the real llama-server recorded in test/fixtures/llamacpp/ on a port that is not 8080, with only
 * OPENAI_BASE_URL set: the server is recognised by its answers, the window is the one it runs, and
 * the connection it closes after each streamed answer costs no visible error.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { llamaCppRows } from '../../src/commands/doctor-llamacpp.js';
import { loadedRows } from '../../src/commands/doctor-loading.js';
import { checkLine, runCli, tempHome } from '../helpers/doctor-run-cli.js';
import { startFakeLlama, type FakeLlama } from '../helpers/fake-llama-server.js';

const rows = (...args: Parameters<typeof llamaCppRows>) => llamaCppRows(...args).map((row) => row.trim().replace(/\s{2,}/, ' | '));

describe('llamaCppRows', () => {
  it('a small window and a template without tools: both facts and both fixes', () => {
    expect(rows({ nCtx: 4096, slots: 4, supportsTools: false, build: 'b11669-Debian' })).toEqual([
      'server build | b11669-Debian',
      'runtime window | 4,096 tokens per request (/props n_ctx; 4 slots)',
      "template tools | no: the chat template cannot take tools; llama-server drops the request's tools and the model writes its calls as text",
      'fix | restart llama-server with a larger window, e.g. `-c 32768` (with `--parallel N` each slot gets 1/N of it; memory permitting)',
      'start llama-server with `--jinja` and a chat template that takes tools: ' +
        "`--chat-template-file <template>.jinja` (the model family's tool-use template, e.g. Qwen2.5/Hermes style)",
    ]);
  });

  it('a large window and a template with tools: no fix', () => {
    const out = rows({ nCtx: 32768, slots: 1, supportsTools: true });
    expect(out).toEqual([
      'runtime window | 32,768 tokens per request (/props n_ctx)',
      'template tools | yes: the chat template takes tools (/props chat_template_caps.supports_tools)',
    ]);
  });

  it('says when /props did not answer as llama-server does', () => {
    expect(rows(undefined)).toEqual(['llama.cpp | unknown: /props did not answer as llama-server does (an old build, or a proxy in front of it)']);
    expect(rows({})).toEqual(['runtime window | not reported (/props has no n_ctx)', 'template tools | not reported (/props has no chat_template_caps)']);
  });
});

describe('loadedRows', () => {
  it('says whether the server had the model loaded, what showed it, and that the first prompt waits when not', () => {
    const row = (...args: Parameters<typeof loadedRows>) => loadedRows(...args).map((r) => r.trim().replace(/\s{2,}/, ' | '));
    expect(row({ loaded: true, said: 'GET /api/ps lists it' }, true)).toEqual(['model loaded | yes (GET /api/ps lists it)']);
    expect(row({ loaded: false, said: 'GET /health answered 503 "Loading model"' }, true)).toEqual([
      'model loaded | not when the checks began (GET /health answered 503 "Loading model"): ' +
        'the first prompt waits while the server loads it, and the agent says so',
    ]);
    expect(row(undefined, true)).toEqual(['model loaded | unknown: the server did not say']);
    expect(row(undefined, false)).toEqual([]);
  });
});

describe('openai-acp doctor against the replayed llama-server', () => {
  let fake: FakeLlama | undefined;
  afterEach(async () => void (await fake?.close()));

  it('recognises it by /props, names the runtime window and the template, and never shows the closed connection', async () => {
    fake = await startFakeLlama({ templateTakesTools: false });
    const run = await runCli(['doctor', '--timeout-ms', '5000'], { home: tempHome(), env: { OPENAI_BASE_URL: fake.baseUrl } });
    expect(run.stdout).toContain('llama.cpp server (llamacpp, recognised by its answer to GET /props)');
    expect(checkLine(run.stdout, 'context window')).toBe(
      '⚠ context window: 4,096 tokens (runtime, reported by the server; model list: 4,096): small for coding work',
    );
    expect(run.stdout).toMatch(/runtime window\s+4,096 tokens per request \(\/props n_ctx; 4 slots\)/);
    expect(run.stdout).toMatch(/template tools\s+no: the chat template cannot take tools/);
    expect(run.stdout).toContain('--chat-template-file');
    expect(run.stdout).toMatch(/model loaded\s+yes \(GET \/health answered 200\)/);
    expect(run.stdout).not.toMatch(/ECONNRESET|socket hang up|Cannot connect/);
    // The server closed the connection after each streamed answer, and a later request went on a new one.
    const chats = fake.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(chats.length).toBeGreaterThanOrEqual(2);
    expect(new Set(chats.map((r) => r.socket)).size).toBe(chats.length);
  }, 30_000);
});
