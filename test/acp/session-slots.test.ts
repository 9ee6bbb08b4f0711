/**
 * A slot per session on a llama.cpp-like server (a loopback mock with `/props` `total_slots` and
 * the slots' first look): each session's requests carry its own `id_slot`; a server that answers
 * 400 to `id_slot` gets the request again without it, and never sees `id_slot` again; a server
 * that clears idle slots and cannot save them gets none.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectInProcess, type InProcess } from '../helpers/in-process.js';

interface Mock {
  baseUrl: string;
  /** `id_slot` of each chat request (`null`: none), in order. */
  slots: (number | null)[];
  /** The paths of the slots' first look and saves. */
  looks: string[];
  close: () => Promise<void>;
}

/** The mock: `refuse` answers 400 to a chat request with `id_slot`; `keeps`: idle slots keep their cache. */
async function startMock({ refuse = false, keeps = true } = {}): Promise<Mock> {
  const slots: (number | null)[] = [];
  const looks: string[] = [];
  let completions = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      const body = chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (req.method === 'GET' && path === '/props') return json(200, { default_generation_settings: { n_ctx: 8192 }, total_slots: 4 });
      if (req.method === 'GET' && path.endsWith('/models')) return json(200, { object: 'list', data: [{ id: 'test-model', object: 'model' }] });
      if (path === '/completion') {
        looks.push(`${path} ${String(body['id_slot'])}`);
        return json(200, { content: '', timings: { prompt_n: 27, cache_n: ++completions === 3 && keeps ? 26 : 0 } });
      }
      if (path.startsWith('/slots/')) {
        looks.push(req.url ?? '');
        return json(501, { error: { code: 501, message: 'This server does not support slots action. Start it with `--slot-save-path`' } });
      }
      if (path.endsWith('/chat/completions')) {
        const slot = typeof body['id_slot'] === 'number' ? body['id_slot'] : null;
        slots.push(slot);
        if (refuse && slot !== null) return json(400, { error: { code: 400, message: 'Invalid input: id_slot', type: 'invalid_request_error' } });
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: null }] })}\n\n`);
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], timings: { prompt_n: 12, cache_n: 100 } })}\n\n`);
        return res.end('data: [DONE]\n\n');
      }
      json(404, { error: { message: 'not found' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/v1`, slots, looks, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const open: { conn: InProcess; mock: Mock }[] = [];
afterEach(async () => {
  for (const { conn, mock } of open.splice(0)) {
    conn.close();
    await mock.close();
  }
});

async function twoSessions(options: Parameters<typeof startMock>[0]) {
  const mock = await startMock(options);
  const conn = await connectInProcess({ OPENAI_BASE_URL: mock.baseUrl, OPENAI_PROVIDER: 'llamacpp', OPENAI_ACP_TOOLS: 'off' });
  open.push({ conn, mock });
  const [a, b] = [await conn.newSession(), await conn.newSession()];
  const ask = async (sessionId: string) => {
    const answer = await conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(answer.stopReason).toBe('end_turn');
  };
  return { mock, conn, a, b, ask };
}

describe('a slot per session', () => {
  it('sends each session its own id_slot, turn after turn, after one look at the slots', async () => {
    const { mock, a, b, ask } = await twoSessions({ keeps: true });
    for (const session of [a, b, a, b, a]) await ask(session);
    expect(mock.slots).toEqual([0, 1, 0, 1, 0]);
    expect(mock.looks).toEqual(['/completion 3', '/completion 2', '/completion 3', '/slots/3?action=save']);
  });

  it('sends the request again without id_slot when the server answers 400 to it, and never sends it again', async () => {
    const { mock, conn, a, b, ask } = await twoSessions({ refuse: true });
    await ask(a);
    await ask(b);
    await ask(a);
    expect(mock.slots).toEqual([0, null, null, null]);
    // The model's text only (messageIds `<turnId>-<step>-m`): the small-window notice (n_ctx 8192) is a message of its own.
    const answers = conn.notifications
      .filter((n) => n.sessionId === a && n.update.sessionUpdate === 'agent_message_chunk' && /-\d+-m$/.test(n.update.messageId ?? ''))
      .map((n) => (n.update as { content: { text: string } }).content.text);
    expect(answers.join('')).toBe('okok');
  });

  it('names no slot on a server that clears idle slots and cannot save them', async () => {
    const { mock, a, b, ask } = await twoSessions({ keeps: false });
    for (const session of [a, b, a]) await ask(session);
    expect(mock.slots).toEqual([null, null, null]);
  });
});
