import { userNotifier } from '../../src/loop/notify.js';
import type { SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { describe, expect, it } from 'vitest';
import { SessionWindows } from '../../src/app/session-window.js';
import { ModelPicker, type ModelList } from '../../src/app/model-picker.js';
import { LearnedWindows } from '../../src/endpoints/learned-windows.js';
import type { ServerWindow } from '../../src/endpoints/server-context.js';
import { LiveSessions } from '../../src/app/live-sessions.js';
import type { TurnRecord } from '../../src/sessions/session-records.js';
import type { Config } from '../../src/config/config.js';
import type { Logger } from '../../src/shared/log.js';
import type { EndpointRegistry } from '../../src/endpoints/endpoint-registry.js';
import { DEFAULT_WINDOW_FIX } from '../../src/openai/user-errors.js';

const URL_ = 'http://127.0.0.1:11434/v1/chat/completions';

function setup(options: { configured?: number; server?: ServerWindow; catalogue?: number; fix?: string; native?: boolean } = {}) {
  const sessions = new LiveSessions(async () => false);
  const session = sessions.create('/tmp', 'qwen3:8b');
  const list: ModelList = { models: undefined };
  const picker = new ModelPicker(() => list);
  picker.attach(session, [{ id: 'qwen3:8b', ...(options.catalogue ? { contextWindow: options.catalogue } : {}) }]);
  let asked = 0;
  const endpoint = {
    client: { options: { url: URL_ } },
    profile: { contextWindowFix: options.fix, nativeChat: { api: 'ollama', thinkLevels: [], windowFix: 'raise OPENAI_ACP_OLLAMA_NUM_CTX' } },
    ...(options.native !== undefined ? { nativeChat: { inUse: options.native } } : {}),
    serverWindowOf: async () => (asked++, options.server ?? {}),
  };
  const registry = { resolve: () => ({ endpoint, model: 'qwen3:8b' }) } as unknown as EndpointRegistry;
  const learned = new LearnedWindows();
  const logged: string[] = [];
  const logger = { warn: (message: string) => logged.push(message) } as unknown as Logger;
  const windows = new SessionWindows({ config: () => ({ contextWindow: options.configured }) as Config, picker, registry: () => registry, learned, logger });
  return { session, windows, learned, asked: () => asked, logged };
}

describe('SessionWindows.of', () => {
  it("plans for the server's runtime window over the catalogue and the trained window", async () => {
    const s = setup({ server: { runtime: 4096, trained: 262144 }, catalogue: 32768, fix: 'restart Ollama' });
    expect(await s.windows.of(s.session)).toEqual({ window: 4096, source: 'runtime', fix: 'restart Ollama', server: { runtime: 4096, trained: 262144 } });
  });

  it('takes a learned window, also over a larger OPENAI_CONTEXT_WINDOW (saying so once), without asking the server', async () => {
    const s = setup({ server: { runtime: 4096 } });
    s.learned.learn(URL_, 'qwen3:8b', 3072);
    expect(await s.windows.of(s.session)).toMatchObject({ window: 3072, source: 'learned', fix: DEFAULT_WINDOW_FIX });
    const c = setup({ configured: 8000, server: { runtime: 4096 } });
    c.learned.learn(URL_, 'qwen3:8b', 3072);
    expect(await c.windows.of(c.session)).toMatchObject({ window: 3072, source: 'learned', overrules: 8000 });
    expect(await c.windows.of(c.session)).toMatchObject({ window: 3072, source: 'learned' });
    expect(c.logged).toEqual(['the server rejected requests over 3072 tokens, so that window is used instead of OPENAI_CONTEXT_WINDOW=8000']);
    const larger = setup({ configured: 8000 });
    larger.learned.learn(URL_, 'qwen3:8b', 16_000);
    expect(await larger.windows.of(larger.session)).toMatchObject({ window: 8000, source: 'configured' });
    expect(s.asked() + c.asked() + larger.asked()).toBe(0);
  });

  it("on Ollama's native API, tells to raise OPENAI_ACP_OLLAMA_NUM_CTX, not to restart Ollama", async () => {
    const native = setup({ server: { runtime: 8192, trained: 8192 }, fix: 'restart Ollama', native: true });
    expect(await native.windows.of(native.session)).toMatchObject({ window: 8192, fix: 'raise OPENAI_ACP_OLLAMA_NUM_CTX' });
    const v1 = setup({ server: { runtime: 8192 }, fix: 'restart Ollama', native: false });
    expect(await v1.windows.of(v1.session)).toMatchObject({ fix: 'restart Ollama' });
  });

  it('stops waiting for the server when the turn is cancelled', async () => {
    const s = setup();
    const controller = new AbortController();
    controller.abort();
    expect(await s.windows.of(s.session, controller.signal)).toBeUndefined();
  });
});

describe('the small-window notice', () => {
  it('is told once per session: a notice with the fix, or as a message of its own (never a thought) for a client without notices', async () => {
    const s = setup({ server: { runtime: 4096, trained: 40960 }, fix: 'restart Ollama with `OLLAMA_CONTEXT_LENGTH=32768 ollama serve`' });
    const known = await s.windows.of(s.session);
    const notice = s.windows.notice(s.session, known)!;
    expect(notice).toMatchObject({ once: 'small-window', severity: 'warning', title: 'Small context window: 4,096 tokens' });
    expect(notice.description).toContain('OLLAMA_CONTEXT_LENGTH=32768 ollama serve');
    const text = notice.fallback!.text;
    expect(text).toBe(
      'The context window of qwen3:8b is 4,096 tokens (the window the server runs the model with): small for coding work, ' +
        'so long files and command output will be cut and earlier steps left out or summarised. The model itself can take 40,960. ' +
        'To give it more: restart Ollama with `OLLAMA_CONTEXT_LENGTH=32768 ollama serve`.\n\n',
    );
    const sent: SessionUpdate[] = [];
    const told = new Set<string>();
    const notify = userNotifier(async (updates) => void sent.push(...updates), { notices: false }, told);
    await notify(notice);
    await notify(notice);
    expect(sent).toEqual([{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text }, messageId: expect.any(String) }]);
    const withNotices: SessionUpdate[] = [];
    await userNotifier(async (updates) => void withNotices.push(...updates), { notices: true }, new Set())(notice);
    expect(withNotices).toEqual([
      { sessionUpdate: 'notice', severity: 'warning', title: 'Small context window: 4,096 tokens', description: notice.description },
    ]);
  });

  it('is not given for 16k and more, nor without a window', async () => {
    const s = setup({ server: { runtime: 16384 } });
    expect(s.windows.notice(s.session, await s.windows.of(s.session))).toBeUndefined();
    expect(s.windows.notice(s.session, undefined)).toBeUndefined();
  });
});

describe('the meter of a created or loaded session', () => {
  it('sends used 0 for a new session, the estimated conversation for a loaded one, nothing without a window', async () => {
    const s = setup({ server: { runtime: 8192 } });
    const sent: SessionUpdate[] = [];
    await s.windows.announce(s.session, async (updates) => void sent.push(...updates));
    expect(sent).toEqual([{ sessionUpdate: 'usage_update', used: 0, size: 8192 }]);
    s.session.records.push({
      type: 'turn',
      at: '2026-01-01T00:00:00Z',
      prompt: [{ type: 'text', text: 'x'.repeat(4000) }],
      assistant: 'done',
      reasoning: '',
      stopReason: 'end_turn',
    });
    sent.length = 0;
    await s.windows.announce(s.session, async (updates) => void sent.push(...updates));
    expect((sent[0] as { used: number }).used).toBeGreaterThan(1000);
    const none = setup();
    sent.length = 0;
    await none.windows.announce(none.session, async (updates) => void sent.push(...updates));
    expect(sent).toEqual([]);
  });
});

describe('the meter of a loaded session whose turns reported a cost', () => {
  it("carries the session's cumulative cost (the sum saved with its turns), as every later meter does", async () => {
    const s = setup({ server: { runtime: 8192 } });
    const turn = (amount: number): TurnRecord => ({
      type: 'turn',
      at: '2026-01-01T00:00:00Z',
      prompt: [{ type: 'text', text: 'hi' }],
      assistant: 'ok',
      reasoning: '',
      stopReason: 'end_turn',
      usage: { inputTokens: 5, outputTokens: 1, totalTokens: 6, cost: { amount, currency: 'USD' } },
    });
    s.session.records.push(turn(0.25), turn(0.5));
    const sent: SessionUpdate[] = [];
    await s.windows.announce(s.session, async (updates) => void sent.push(...updates));
    expect(sent).toEqual([{ sessionUpdate: 'usage_update', used: expect.any(Number), size: 8192, cost: { amount: 0.75, currency: 'USD' } }]);
  });
});
