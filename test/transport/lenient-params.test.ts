/** A client's malformed optional field is taken off the message; everything else passes as it is. */
import { describe, expect, it } from 'vitest';
import { withoutMalformedOptionals } from '../../src/transport/lenient-params.js';

describe('withoutMalformedOptionals', () => {
  it("takes off agentgui's string systemPrompt at the root of session/new, keeping the rest", () => {
    const message = { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/w', mcpServers: [], systemPrompt: 'You are helpful' } };
    expect(withoutMalformedOptionals(message)).toEqual({
      message: { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/w', mcpServers: [] } },
      dropped: ['systemPrompt'],
    });
    for (const method of ['session/load', 'session/resume', 'session/fork']) {
      expect(withoutMalformedOptionals({ method, params: { sessionId: 's', systemPrompt: 3 } }).dropped).toEqual(['systemPrompt']);
    }
  });

  it('leaves a well-formed or absent field, other methods, and required fields alone (the same object)', () => {
    const cases = [
      { method: 'session/new', params: { cwd: '/w', mcpServers: [], systemPrompt: { mode: 'append', content: [] } } },
      { method: 'session/new', params: { cwd: '/w', mcpServers: [], systemPrompt: null } },
      { method: 'session/new', params: { cwd: 5, mcpServers: 'x' } },
      { method: 'session/prompt', params: { sessionId: 's', prompt: [], systemPrompt: 'x' } },
      { method: 'session/new' },
      { id: 1, result: {} },
    ];
    for (const message of cases) {
      const out = withoutMalformedOptionals(message);
      expect(out.message).toBe(message);
      expect(out.dropped).toEqual([]);
    }
  });
});
