/**
 * Every recorded provider stream in `test/fixtures/providers/` replayed through the real chat
 * client (over loopback HTTP) and the real agent: the client sees the text, reasoning, usage,
 * stop reason and error each fixture's `.json` expects. A stream with tool calls goes through the
 * agent loop: the request that follows carries the assistant's `tool_calls` (ids, names,
 * arguments as recorded) and one `tool` message per call, in order, and the model's next answer
 * ends the turn.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunk, startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
import { connectInProcess } from '../helpers/in-process.js';

const dir = new URL('../fixtures/providers/', import.meta.url);
const cases = readdirSync(dir)
  .filter((name) => name.endsWith('.sse'))
  .map((name) => name.slice(0, -4));

let server: FakeOpenAI;
beforeAll(async () => {
  server = await startFakeOpenAI();
});
afterAll(() => server.close());

describe('fixture replay through the client and the agent', () => {
  it('has fixtures to replay', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  it.each(cases)('%s', async (name) => {
    const meta = JSON.parse(readFileSync(new URL(`${name}.json`, dir), 'utf8'));
    const bytes = readFileSync(new URL(`${name}.sse`, dir));
    const expected = { ...meta.expected, ...meta.expected_if_think_tags_split };
    const calls: Array<{ id: string; name: string; arguments: string }> = expected.error ? [] : (expected.tool_calls ?? []);
    const FOLLOW_UP = 'Done.';
    const followUsage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
    const first = server.requests.length;
    server.handle((_req, res) => {
      if (server.requests.length > first + 1) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk({ content: FOLLOW_UP }));
        res.end(`${chunk({}, 'stop', followUsage)}data: [DONE]\n\n`);
        return;
      }
      res.writeHead(meta.response?.status ?? 200, { 'content-type': meta.response?.content_type ?? 'text/event-stream' });
      // Odd-sized writes so that events and multi-byte characters straddle reads.
      let offset = 0;
      const step = () => {
        if (offset >= bytes.length) return res.end();
        res.write(bytes.subarray(offset, offset + 997), step);
        offset += 997;
      };
      step();
    });
    const acp = await connectInProcess({ OPENAI_BASE_URL: server.baseUrl });
    try {
      const sessionId = await acp.newSession();
      const asked = acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'replay' }] });
      if (expected.error) {
        // A stream that fails before its finish reason fails the prompt (-32603, the kind in data), its words the error's message.
        await expect(asked).rejects.toMatchObject({ code: -32603, message: expect.stringContaining(expected.error.message), data: { kind: 'provider' } });
        expect(acp.thoughts(sessionId)).toBe(expected.reasoning ?? '');
        expect(acp.text(sessionId)).toContain(expected.text);
        expect(acp.text(sessionId)).not.toContain(expected.error.message);
        return;
      }
      const answer = await asked;
      expect(acp.thoughts(sessionId)).toBe(expected.reasoning ?? '');
      if (calls.length > 0) {
        expect(acp.text(sessionId)).toBe(`${expected.text}${FOLLOW_UP}`);
        expect(answer.stopReason).toBe('end_turn');
        const messages = server.requests[first + 1]!.body.messages as any[];
        const assistant = messages.findIndex((m) => m.role === 'assistant');
        expect(messages[assistant]).toMatchObject({
          content: expected.text === '' ? null : expected.text,
          tool_calls: calls.map((call) => ({
            type: 'function',
            function: { name: call.name, arguments: call.arguments.trim() === '' ? '{}' : call.arguments },
          })),
        });
        calls.forEach((call, i) => {
          if (call.id) expect(messages[assistant].tool_calls[i].id).toBe(call.id);
          // One tool message per call, right after the assistant message, in the calls' order.
          expect(messages[assistant + 1 + i]).toMatchObject({ role: 'tool', tool_call_id: messages[assistant].tool_calls[i].id, content: expect.any(String) });
        });
        expect(messages).toHaveLength(assistant + 1 + calls.length);
      } else {
        expect(acp.text(sessionId)).toBe(expected.text);
        expect(answer.stopReason).toBe(expected.finish_reason === 'length' ? 'max_tokens' : 'end_turn');
        expect(answer._meta?.['openai-acp']).toBeUndefined();
      }
      const follow = calls.length > 0 ? followUsage : { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
      if (expected.usage) {
        expect(answer.usage).toMatchObject({
          inputTokens: expected.usage.prompt_tokens + follow.prompt_tokens,
          outputTokens: expected.usage.completion_tokens + follow.completion_tokens,
          totalTokens: expected.usage.total_tokens + follow.total_tokens,
        });
      } else if (calls.length === 0) {
        expect(answer.usage ?? undefined).toBeUndefined();
      }
    } finally {
      acp.close();
    }
  });
});
