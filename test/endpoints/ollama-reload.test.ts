/**
 * Ollama's `load_duration`: read from the final line of `/api/chat`, and an answer after the
 * model's first that waited for a load is told (the model had been unloaded, its cache with it).
 */
import { describe, expect, it } from 'vitest';
import { PROVIDER_PROFILES } from '../../src/config/provider-profiles.js';
import { OllamaNativeChat } from '../../src/endpoints/ollama-native.js';
import { reloadNotice } from '../../src/endpoints/ollama-notices.js';
import { createOllamaChatDecoder, loadMsOf } from '../../src/openai/ollama-chat-items.js';

const line = (value: unknown) => new TextEncoder().encode(`${JSON.stringify(value)}\n`);

describe("Ollama's load_duration", () => {
  it('is read from the final line of /api/chat, in ms', () => {
    const decoder = createOllamaChatDecoder();
    const items = [
      ...decoder.push(line({ model: 'm', message: { role: 'assistant', content: 'Hi' }, done: false })),
      ...decoder.push(
        line({
          model: 'm',
          message: { role: 'assistant', content: '' },
          done: true,
          done_reason: 'stop',
          load_duration: 2_500_000_000,
          prompt_eval_count: 9,
          eval_count: 1,
        }),
      ),
    ];
    expect(loadMsOf(items)).toBe(2500);
    expect(loadMsOf(createOllamaChatDecoder().push(line({ message: { content: 'x' }, done: true })))).toBeUndefined();
  });

  it('tells a reload after the first answer once, and not the first load or a short one', async () => {
    // No server: the reload notice is given before anything is asked, and nothing else is due without one.
    const router = new OllamaNativeChat({ baseUrl: 'http://127.0.0.1:9/v1', numCtx: 0, profile: PROVIDER_PROFILES.ollama.nativeChat!, headers: {} });
    router.answered('qwen3:8b', 12_000);
    router.answered('qwen3:8b', 300);
    router.answered('qwen3:8b', 4200);
    expect(await router.memoryNotice('qwen3:8b')).toBe(reloadNotice('qwen3:8b', 4200));
    expect(reloadNotice('qwen3:8b', 4200)).toMatch(/loaded qwen3:8b again for this answer \(4\.2 s, its load_duration\).*OLLAMA_KEEP_ALIVE/);
  });
});
