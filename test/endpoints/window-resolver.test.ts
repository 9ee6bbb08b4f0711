import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LearnedWindows } from '../../src/endpoints/learned-windows.js';
import { resolveContextWindow, WINDOW_PRECEDENCE, type WindowSources } from '../../src/endpoints/window-resolver.js';

describe('resolveContextWindow', () => {
  it('ranks a smaller learned window > OPENAI_CONTEXT_WINDOW > a larger learned one > the runtime report > the catalogue > the trained window', () => {
    const all: WindowSources = { configured: 8000, learned: 6000, runtime: 4096, catalogue: 32768, trained: 262144 };
    expect(resolveContextWindow(all)).toEqual({ window: 6000, source: 'learned', overrules: 8000 });
    expect(resolveContextWindow({ ...all, learned: 9000 })).toEqual({ window: 8000, source: 'configured' });
    expect(resolveContextWindow({ ...all, configured: undefined })).toEqual({ window: 6000, source: 'learned' });
    expect(resolveContextWindow({ runtime: 4096, catalogue: 32768, trained: 262144 })).toEqual({ window: 4096, source: 'runtime' });
    expect(resolveContextWindow({ catalogue: 32768, trained: 262144 })).toEqual({ window: 32768, source: 'catalogue' });
    expect(resolveContextWindow({ trained: 262144 })).toEqual({ window: 262144, source: 'trained' });
    expect(resolveContextWindow({})).toBeUndefined();
  });

  it('skips what is not a positive integer', () => {
    expect(resolveContextWindow({ configured: 0, learned: -1, runtime: Number.NaN, catalogue: 1.5, trained: 2048 })).toEqual({
      window: 2048,
      source: 'trained',
    });
  });

  it('property: the answer is the first valid source in precedence order', () => {
    const window = fc.option(fc.integer({ min: -5, max: 300_000 }), { nil: undefined });
    fc.assert(
      fc.property(fc.record({ configured: window, learned: window, runtime: window, catalogue: window, trained: window }), (sources) => {
        const first = WINDOW_PRECEDENCE.find((source) => (sources[source] ?? 0) > 0);
        const resolved = resolveContextWindow(sources);
        const { configured = 0, learned = 0 } = sources;
        if (configured > 0 && learned > 0 && learned < configured) expect(resolved).toEqual({ window: learned, source: 'learned', overrules: configured });
        else expect(resolved).toEqual(first ? { window: sources[first], source: first } : undefined);
      }),
    );
  });
});

describe('LearnedWindows', () => {
  it('remembers per endpoint and model, the newest answer winning', () => {
    const learned = new LearnedWindows();
    learned.learn('http://a/v1/chat/completions', 'm', 8192);
    expect(learned.get('http://a/v1/chat/completions', 'm')).toBe(8192);
    expect(learned.get('http://a/v1/chat/completions', 'other')).toBeUndefined();
    expect(learned.get('http://b/v1/chat/completions', 'm')).toBeUndefined();
    learned.learn('http://a/v1/chat/completions', 'm', 16384);
    expect(learned.get('http://a/v1/chat/completions', 'm')).toBe(16384);
    learned.learn('http://a/v1/chat/completions', 'm', 0);
    expect(learned.get('http://a/v1/chat/completions', 'm')).toBe(16384);
  });
});
