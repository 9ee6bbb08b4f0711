/**
 * Every recorded provider stream in `test/fixtures/providers/` replayed through the real chat
 * client (over loopback HTTP) and the real agent: the client sees the text, reasoning, usage,
 * stop reason and error each fixture's `.json` expects.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.js';
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
    server.handle((_req, res) => {
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
      const answer = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'replay' }] });
      expect(acp.thoughts(sessionId)).toBe(expected.reasoning ?? '');
      if (expected.error) {
        expect(answer._meta?.['openai-acp']).toMatchObject({ error: { kind: 'provider' } });
        expect(acp.text(sessionId)).toContain(expected.text);
        expect(acp.text(sessionId)).toContain(expected.error.message);
      } else {
        expect(acp.text(sessionId)).toBe(expected.text);
        expect(answer.stopReason).toBe(expected.finish_reason === 'length' ? 'max_tokens' : 'end_turn');
        expect(answer._meta?.['openai-acp']).toBeUndefined();
      }
      if (expected.usage) {
        expect(answer.usage).toMatchObject({
          inputTokens: expected.usage.prompt_tokens,
          outputTokens: expected.usage.completion_tokens,
          totalTokens: expected.usage.total_tokens,
        });
      } else {
        expect(answer.usage ?? undefined).toBeUndefined();
      }
    } finally {
      acp.close();
    }
  });
});
