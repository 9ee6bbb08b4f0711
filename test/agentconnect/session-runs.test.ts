/**
 * The runs of AgentConnect sessions over a scripted bridge: one at a time, a cancel answered once
 * its run has ended (the reference host sends `final {cancelled: true}` before answering the
 * cancel), a send right after a cancel accepted and started at the cancelled run's end, and a
 * run's events told to the connection that sent it.
 */
import type { PromptResponse } from '@agentclientprotocol/sdk/unstable';
import { describe, expect, it } from 'vitest';
import type { AcpBridge } from '../../src/agentconnect/acp-bridge.js';
import type { AcEvent } from '../../src/agentconnect/protocol.js';
import type { Peer } from '../../src/agentconnect/session-events.js';
import { SessionRuns } from '../../src/agentconnect/session-runs.js';
import { createLogger } from '../../src/shared/log.js';

const quiet = createLogger({ level: 'error', write: () => undefined });

/** A bridge whose turns end when the test says: `ends[i]` ends the i-th prompt (a cancel only aborts its signal). */
function scriptedBridge() {
  const log: string[] = [];
  const ends: ((response: PromptResponse) => void)[] = [];
  const bridge = {
    prompt: (_sessionId: string, text: string, signal: AbortSignal) => {
      log.push(`prompt ${text}`);
      signal.addEventListener('abort', () => log.push(`aborted ${text}`));
      return new Promise<PromptResponse>((resolve) => ends.push(resolve));
    },
    cancel: async () => void log.push('session/cancel'),
  };
  return { bridge: bridge as unknown as AcpBridge, log, ends };
}

function peer(name: string, told: string[]): Peer {
  return {
    push: (_sessionId, event: AcEvent) => void told.push(`${name} ${event.type}${event.data['cancelled'] ? ' cancelled' : ''}`),
    whenRead: (then) => then(),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('SessionRuns', () => {
  it('answers a cancel once its run has ended: the final cancelled is out before the answer', async () => {
    const { bridge, log, ends } = scriptedBridge();
    const told: string[] = [];
    const app = peer('app', told);
    const runs = new SessionRuns({ bridgeOf: () => bridge, logger: quiet, redact: (text) => text, emit: (to, id, event) => to.push(id, event) });
    runs.add(app, 's1', 'one')();
    expect(() => runs.add(app, 's1', 'two')).toThrow(expect.objectContaining({ code: 'AC_ERR_BUSY' }));
    let answered = false;
    const cancel = runs.cancel('s1').then((had) => {
      answered = true;
      told.push(`app answer cancelled=${had}`);
    });
    await tick();
    expect(log).toEqual(['prompt one', 'session/cancel', 'aborted one']);
    expect(answered).toBe(false);
    ends[0]!({ stopReason: 'cancelled' });
    await cancel;
    expect(told).toEqual(['app final cancelled', 'app answer cancelled=true']);
    // The next send is no AC_ERR_BUSY.
    runs.add(app, 's1', 'two')();
    expect(log.at(-1)).toBe('prompt two');
  });

  it('lets a send follow a cancel whose run is slow to end: accepted at once, started at that end', async () => {
    const { bridge, log, ends } = scriptedBridge();
    const told: string[] = [];
    const app = peer('app', told);
    const runs = new SessionRuns({ bridgeOf: () => bridge, logger: quiet, redact: (text) => text, emit: (to, id, event) => to.push(id, event) });
    runs.add(app, 's1', 'one')();
    expect(await runs.cancel('s1', 1)).toBe(true);
    const start = runs.add(app, 's1', 'two');
    start();
    // A third send while the second waits is refused: that one was not cancelled.
    expect(() => runs.add(app, 's1', 'three')).toThrow(expect.objectContaining({ code: 'AC_ERR_BUSY' }));
    await tick();
    expect(log.filter((line) => line.startsWith('prompt'))).toEqual(['prompt one']);
    ends[0]!({ stopReason: 'cancelled' });
    await tick();
    expect(log.filter((line) => line.startsWith('prompt'))).toEqual(['prompt one', 'prompt two']);
    ends[1]!({ stopReason: 'end_turn' });
    await tick();
    expect(told).toEqual(['app final cancelled', 'app final']);
  });

  it('ends a cancelled run that had not started yet as cancelled, without a prompt', async () => {
    const { bridge, log } = scriptedBridge();
    const told: string[] = [];
    const app = peer('app', told);
    const runs = new SessionRuns({ bridgeOf: () => bridge, logger: quiet, redact: (text) => text, emit: (to, id, event) => to.push(id, event) });
    const start = runs.add(app, 's1', 'one');
    const cancel = runs.cancel('s1');
    start();
    expect(await cancel).toBe(true);
    expect(log).toEqual([]);
    expect(told).toEqual(['app final cancelled']);
    expect(await runs.cancel('s1')).toBe(false);
  });

  it("tells a run's events to the connection that sent it, whoever holds the session now", async () => {
    const { bridge, ends } = scriptedBridge();
    const told: string[] = [];
    const one = peer('one', told);
    const runs = new SessionRuns({ bridgeOf: () => bridge, logger: quiet, redact: (text) => text, emit: (to, id, event) => to.push(id, event) });
    runs.add(one, 's1', 'one')();
    // Another holder's connection gets its own copy of the run's updates: taken, and told to no one.
    const two = peer('two', told);
    expect(runs.update('s1', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hi' }, messageId: 't-0-m' }, two)).toBe(true);
    expect(runs.update('s1', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hi' }, messageId: 't-0-m' }, one)).toBe(true);
    expect(runs.hasRunOf(one, 's1')).toBe(true);
    expect(runs.sessionsRunBy(one)).toEqual(['s1']);
    ends[0]!({ stopReason: 'end_turn' });
    await tick();
    expect(told).toEqual(['one delta', 'one final']);
    expect(runs.update('s1', { sessionUpdate: 'usage_update', used: 1, size: 2 }, one)).toBe(false);
  });
});
