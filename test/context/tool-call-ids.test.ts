/**
 * Mistral-family tool-call ids: the 9-character `[a-zA-Z0-9]` rule Mistral states in its 400
 * ("Tool call id was 38f04d9ea185424a8dc6ed9a88da5 but must be a-z, A-Z, 0-9, with a length of
 * 9.", jackmpcollins/magentic#276) and the respelling of a conversation's messages.
 */
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/openai/openai-types.js';
import { MISTRAL_TOOL_CALL_ID, mistralToolCallId, respellToolCallIds, uniqueToolCallIds } from '../../src/context/tool-call-ids.js';
import { toolMessageRules } from '../../src/context/tool-messages.js';
import { PROVIDER_PROFILES } from '../../src/config/provider-profiles.js';

const mistral = toolMessageRules(PROVIDER_PROFILES.mistral);

describe('mistralToolCallId', () => {
  it('respells ids of other providers into 9 alphanumerics, the same every time', () => {
    for (const id of ['38f04d9ea185424a8dc6ed9a88da5', 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', 'functions.add:0', 'toolu_bdrk_01N8hD5cYDw4WfvnjKXAkA2W', '0', '']) {
      const short = mistralToolCallId(id);
      expect(short).toMatch(MISTRAL_TOOL_CALL_ID);
      expect(mistralToolCallId(id)).toBe(short);
    }
  });

  it("keeps Mistral's own ids (recorded: Hfc39Hu7S)", () => {
    expect(mistralToolCallId('Hfc39Hu7S')).toBe('Hfc39Hu7S');
  });

  it('gives the parallel calls of a recorded Groq answer different ids', () => {
    expect(mistralToolCallId('functions.add:0')).not.toBe(mistralToolCallId('functions.multiply:1'));
  });

  it('has no collision among 30,000 sequential ids', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 30_000; i++) seen.add(mistralToolCallId(`call_${i}`));
    expect(seen.size).toBe(30_000);
  });
});

describe('respellToolCallIds', () => {
  const conversation: ChatMessage[] = [
    { role: 'system', content: 'You are an agent.' },
    { role: 'user', content: 'Add and multiply 2 and 3' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_ehIWdjL1abZk1h8FWGLQ0Hie', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } },
        { id: 'Hfc39Hu7S', type: 'function', function: { name: 'multiply', arguments: '{"a":2,"b":3}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_ehIWdjL1abZk1h8FWGLQ0Hie', content: '5' },
    { role: 'tool', tool_call_id: 'Hfc39Hu7S', content: '6' },
  ];

  it('rewrites assistant and tool ids consistently for Mistral, leaving the input alone', () => {
    const before = JSON.stringify(conversation);
    const out = respellToolCallIds(conversation, mistral);
    expect(JSON.stringify(conversation)).toBe(before);
    const assistant = out[2];
    const ids = assistant?.role === 'assistant' ? assistant.tool_calls?.map((c) => c.id) : [];
    expect(ids).toEqual([mistralToolCallId('call_ehIWdjL1abZk1h8FWGLQ0Hie'), 'Hfc39Hu7S']);
    expect(out.slice(3).map((m) => (m.role === 'tool' ? m.tool_call_id : ''))).toEqual(ids);
    expect(out[0]).toBe(conversation[0]);
    expect(out[4]).toBe(conversation[4]);
  });

  it('returns the same array for other providers, and when nothing needs respelling', () => {
    for (const provider of ['openai', 'deepseek', 'gemini', 'ollama'] as const)
      expect(respellToolCallIds(conversation, toolMessageRules(PROVIDER_PROFILES[provider]))).toBe(conversation);
    const already = respellToolCallIds(conversation, mistral);
    expect(respellToolCallIds(already, mistral)).toBe(already);
  });
});

describe('uniqueToolCallIds', () => {
  it("keeps providers' ids, and replaces missing and repeated ones (Kimi through Groq restarts at :0 every answer)", () => {
    const taken = new Set<string>();
    expect(uniqueToolCallIds(['functions.add:0', 'functions.multiply:1'], taken)).toEqual(['functions.add:0', 'functions.multiply:1']);
    expect(uniqueToolCallIds(['functions.add:0', '', ''], taken)).toEqual(['call_1', 'call_2', 'call_3']);
    expect(uniqueToolCallIds(['call_2', 'x'], taken)).toEqual(['call_4', 'x']);
    expect(taken.size).toBe(7);
  });
});
