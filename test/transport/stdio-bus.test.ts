import type { AnyMessage } from '@agentclientprotocol/sdk/unstable';
import { describe, expect, it } from 'vitest';
import { BusRouter, withBusRouting } from '../../src/transport/stdio-bus.js';

type Json = Record<string, unknown>;
const update = (sessionId: string, text = 'hi') => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } },
});

describe('BusRouter', () => {
  it('restores a request key on its response, once', () => {
    const router = new BusRouter();
    router.inbound({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {}, sessionId: 'bus-A' });
    const response = { jsonrpc: '2.0', id: 1, result: { protocolVersion: 1 } };
    const routed = router.outbound(response);
    expect(routed).toEqual({ ...response, sessionId: 'bus-A' });
    expect(response).not.toHaveProperty('sessionId');
    // The request is answered: a second response with the same id is not routed.
    expect(router.outbound({ jsonrpc: '2.0', id: 1, result: {} })).not.toHaveProperty('sessionId');
  });

  it('works with string ids and error responses', () => {
    const router = new BusRouter();
    router.inbound({ jsonrpc: '2.0', id: 'req-7', method: 'session/load', params: {}, sessionId: 'bus-S' });
    expect(router.outbound({ jsonrpc: '2.0', id: 'req-7', error: { code: -32002, message: 'x' } })['sessionId']).toBe('bus-S');
  });

  it('maps the session created by session/new onto later notifications for that session', () => {
    const router = new BusRouter();
    router.inbound({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: '/', mcpServers: [] }, sessionId: 'bus-A' });
    expect(router.outbound({ jsonrpc: '2.0', id: 2, result: { sessionId: 'acp-1' } })['sessionId']).toBe('bus-A');
    expect(router.outbound(update('acp-1'))['sessionId']).toBe('bus-A');
    expect(router.outbound(update('acp-1', 'again'))['sessionId']).toBe('bus-A');
    // Agent → client requests for that session are routed too.
    const permission = { jsonrpc: '2.0', id: 0, method: 'session/request_permission', params: { sessionId: 'acp-1' } };
    expect(router.outbound(permission)['sessionId']).toBe('bus-A');
  });

  it('learns the session from params of an incoming request (session/load, prompt)', () => {
    const router = new BusRouter();
    router.inbound({ jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId: 'acp-9', prompt: [] }, sessionId: 'bus-Z' });
    expect(router.outbound(update('acp-9'))['sessionId']).toBe('bus-Z');
  });

  it('keeps two bus clients apart', () => {
    const router = new BusRouter();
    router.inbound({ jsonrpc: '2.0', id: 10, method: 'session/new', params: { cwd: '/a' }, sessionId: 'bus-A' });
    router.inbound({ jsonrpc: '2.0', id: 20, method: 'session/new', params: { cwd: '/b' }, sessionId: 'bus-B' });
    expect(router.outbound({ jsonrpc: '2.0', id: 20, result: { sessionId: 'acp-b' } })['sessionId']).toBe('bus-B');
    expect(router.outbound({ jsonrpc: '2.0', id: 10, result: { sessionId: 'acp-a' } })['sessionId']).toBe('bus-A');
    expect(router.outbound(update('acp-a'))['sessionId']).toBe('bus-A');
    expect(router.outbound(update('acp-b'))['sessionId']).toBe('bus-B');
    router.inbound({ jsonrpc: '2.0', id: 11, method: 'session/prompt', params: { sessionId: 'acp-a' }, sessionId: 'bus-A' });
    router.inbound({ jsonrpc: '2.0', id: 21, method: 'session/prompt', params: { sessionId: 'acp-b' }, sessionId: 'bus-B' });
    expect(router.outbound({ jsonrpc: '2.0', id: 21, result: { stopReason: 'end_turn' } })['sessionId']).toBe('bus-B');
    expect(router.outbound({ jsonrpc: '2.0', id: 11, result: { stopReason: 'end_turn' } })['sessionId']).toBe('bus-A');
  });

  it('keeps apart two clients that use the same request id, whatever order the answers come in', () => {
    const router = new BusRouter();
    const a = { jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: 'acp-a' }, sessionId: 'bus-A' };
    const b = { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/b' }, sessionId: 'bus-B' };
    expect(router.inbound(a)).toBe(a);
    const seenB = router.inbound(b);
    expect(seenB['id']).not.toBe(1);
    expect({ ...seenB, id: 1 }).toEqual(b);
    // B's quick answer comes first, under the id the agent saw.
    expect(router.outbound({ jsonrpc: '2.0', id: seenB['id'], result: { sessionId: 'acp-b' } })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { sessionId: 'acp-b' },
      sessionId: 'bus-B',
    });
    expect(router.outbound(update('acp-b'))['sessionId']).toBe('bus-B');
    expect(router.outbound({ jsonrpc: '2.0', id: 1, result: { stopReason: 'end_turn' } })).toMatchObject({ id: 1, sessionId: 'bus-A' });
  });

  it('points $/cancel_request at the id the agent saw', () => {
    const router = new BusRouter();
    router.inbound({ jsonrpc: '2.0', id: 4, method: 'session/prompt', params: { sessionId: 'acp-a' }, sessionId: 'bus-A' });
    const seen = router.inbound({ jsonrpc: '2.0', id: 4, method: 'session/prompt', params: { sessionId: 'acp-b' }, sessionId: 'bus-B' })['id'];
    const cancelB = router.inbound({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 4 }, sessionId: 'bus-B' });
    expect(cancelB['params']).toEqual({ requestId: seen });
    const cancelA = { jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 4 }, sessionId: 'bus-A' };
    expect(router.inbound(cancelA)).toBe(cancelA);
  });

  it('leaves messages without any key untouched (the same object)', () => {
    const router = new BusRouter();
    router.inbound({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    const response = { jsonrpc: '2.0', id: 1, result: {} };
    expect(router.outbound(response)).toBe(response);
    const note = update('acp-unknown');
    expect(router.outbound(note)).toBe(note);
    const keyed = { jsonrpc: '2.0', id: 5, result: {}, sessionId: 'already' };
    expect(router.outbound(keyed)).toBe(keyed);
  });

  it('does not treat a client response (no method) as a request to answer', () => {
    const router = new BusRouter();
    router.inbound({ jsonrpc: '2.0', id: 0, result: { outcome: { outcome: 'cancelled' } }, sessionId: 'bus-A' });
    const agentRequestReply = { jsonrpc: '2.0', id: 0, result: {} };
    expect(router.outbound(agentRequestReply)).toBe(agentRequestReply);
  });
});

describe('withBusRouting', () => {
  it('records keys on the way in and restores them on the way out', async () => {
    const incoming = new TransformStream<AnyMessage, AnyMessage>();
    const outgoing = new TransformStream<AnyMessage, AnyMessage>();
    const wrapped = withBusRouting({ readable: incoming.readable, writable: outgoing.writable });

    const clientWriter = incoming.writable.getWriter();
    const agentReader = wrapped.readable.getReader();
    const agentWriter = wrapped.writable.getWriter();
    const clientReader = outgoing.readable.getReader();

    const request = { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/', mcpServers: [] }, sessionId: 'bus-A' };
    void clientWriter.write(request as unknown as AnyMessage);
    const seen = await agentReader.read();
    // The agent sees the message unchanged (the SDK strips unknown keys itself).
    expect(seen.value).toBe(request);

    void agentWriter.write({ jsonrpc: '2.0', id: 1, result: { sessionId: 'acp-1' } } as unknown as AnyMessage);
    expect(((await clientReader.read()).value as unknown as Json)['sessionId']).toBe('bus-A');

    void agentWriter.write(update('acp-1') as unknown as AnyMessage);
    const note = (await clientReader.read()).value as unknown as Json;
    expect(note['sessionId']).toBe('bus-A');
    expect(note['method']).toBe('session/update');

    const plain = update('other') as unknown as AnyMessage;
    void agentWriter.write(plain);
    expect((await clientReader.read()).value).toBe(plain);

    await agentWriter.close();
    expect((await clientReader.read()).done).toBe(true);
    await clientWriter.close();
    expect((await agentReader.read()).done).toBe(true);
  });

  it("writes through the stream's own write function when it has one (one WritableStream, not two)", async () => {
    const router = new BusRouter();
    router.inbound({ jsonrpc: '2.0', id: 4, method: 'x', sessionId: 'bus-B' });
    const direct: unknown[] = [];
    const unused = new WritableStream<AnyMessage>({ write: () => expect.fail('the WritableStream of the inner stream is not written') });
    const inner = {
      readable: new TransformStream<AnyMessage, AnyMessage>().readable,
      writable: unused,
      write: (message: AnyMessage) => void direct.push(message),
    };
    const writer = withBusRouting(inner, router).writable.getWriter();
    await writer.write({ jsonrpc: '2.0', id: 4, result: null } as unknown as AnyMessage);
    await writer.write(update('none') as unknown as AnyMessage);
    expect(direct).toEqual([{ jsonrpc: '2.0', id: 4, result: null, sessionId: 'bus-B' }, update('none')]);
    await writer.close();
    expect(unused.locked).toBe(false);
  });

  it("its direct writable keeps the SDK's writer rules: one writer at a time, a failed write fails the rest, close ends the inner stream", async () => {
    const sent: unknown[] = [];
    let failNext = false;
    let innerClosed = false;
    const inner = {
      readable: new TransformStream<AnyMessage, AnyMessage>().readable,
      writable: new WritableStream<AnyMessage>({ close: () => void (innerClosed = true) }),
      write: (message: AnyMessage) => (failNext ? Promise.reject(new Error('EPIPE')) : void sent.push(message)),
    };
    const { writable } = withBusRouting(inner);
    const first = writable.getWriter();
    expect(writable.locked).toBe(true);
    expect(() => writable.getWriter()).toThrow(TypeError);
    await first.write(update('a') as unknown as AnyMessage);
    first.releaseLock();
    expect(writable.locked).toBe(false);
    await expect(first.write(update('b') as unknown as AnyMessage)).rejects.toThrow(TypeError);
    const second = writable.getWriter();
    await second.write(update('c') as unknown as AnyMessage);
    failNext = true;
    await expect(second.write(update('d') as unknown as AnyMessage)).rejects.toThrow('EPIPE');
    failNext = false;
    await expect(second.write(update('e') as unknown as AnyMessage)).rejects.toThrow('EPIPE');
    expect(sent).toEqual([update('a'), update('c')]);
    await second.close();
    expect(innerClosed).toBe(true);
  });

  it('uses the router it is given', async () => {
    const router = new BusRouter();
    router.inbound({ jsonrpc: '2.0', id: 9, method: 'x', sessionId: 'pre' });
    const outgoing = new TransformStream<AnyMessage, AnyMessage>();
    const wrapped = withBusRouting({ readable: new TransformStream<AnyMessage, AnyMessage>().readable, writable: outgoing.writable }, router);
    void wrapped.writable.getWriter().write({ jsonrpc: '2.0', id: 9, result: null } as unknown as AnyMessage);
    expect(((await outgoing.readable.getReader().read()).value as unknown as Json)['sessionId']).toBe('pre');
  });
});
