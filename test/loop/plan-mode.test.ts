import { describe, expect, it } from 'vitest';
import { modeAnnouncement, PLAN_START_OPTIONS, readPlanStart } from '../../src/loop/plan-mode.js';
import { copySession as forkSession } from '../../src/app/session-fork.js';
import { LiveSessions } from '../../src/app/live-sessions.js';
import { openSessionStore } from '../../src/sessions/session-store.js';

const logger = { debug() {}, info() {}, warn() {}, error() {} } as never;

describe('the question to start on a plan', () => {
  it('offers an allow option first (clients that pick one automatically start, asking before edits)', () => {
    expect(PLAN_START_OPTIONS.map((o) => o.kind)).toEqual(['allow_always', 'allow_once', 'reject_once']);
  });

  it.each([
    [{ outcome: 'selected', optionId: 'plan_start_accept_edits' }, 'accept-edits'],
    [{ outcome: 'selected', optionId: 'plan_start_ask' }, 'ask'],
    [{ outcome: 'selected', optionId: 'plan_keep_planning' }, undefined],
    [{ outcome: 'selected', optionId: 'approve_for_session' }, 'ask'],
    [{ outcome: 'selected', optionId: 'whatever' }, undefined],
    [{ outcome: 'cancelled' }, undefined],
    [undefined, undefined],
  ] as const)('%j starts in %s', (outcome, mode) => {
    expect(readPlanStart(outcome as never)).toBe(mode);
  });

  it('a mode set by the agent is announced both ways', () => {
    expect(modeAnnouncement('ask', [])).toEqual([
      { sessionUpdate: 'current_mode_update', currentModeId: 'ask' },
      { sessionUpdate: 'config_option_update', configOptions: [] },
    ]);
  });
});

describe('forkSession', () => {
  it('copies records, options, model and title into a new session, independent of its source', async () => {
    const sessions = new LiveSessions(async () => false);
    const store = await openSessionStore({ stateDir: 'off', env: {}, logger });
    const source = sessions.create('/w', 'm1');
    source.records.push({ type: 'clear', at: '2026-01-01T00:00:00Z' });
    source.options.mode = 'plan';
    source.title = 'Fix the parser';
    const fork = await forkSession({ sourceId: source.id, cwd: '/w2', sessions, store, logger });
    expect(fork).toMatchObject({ cwd: '/w2', model: 'm1', options: { mode: 'plan' }, title: 'Fix the parser (fork)', records: source.records });
    fork.records.push({ type: 'clear', at: '2026-01-02T00:00:00Z' });
    fork.options.mode = 'ask';
    expect(source.records).toHaveLength(1);
    expect(source.options.mode).toBe('plan');
    expect(await store.load(fork.id)).toMatchObject({ cwd: '/w2', model: 'm1', title: 'Fix the parser (fork)', records: [{ type: 'clear' }] });
  });

  it('refuses an id it does not hold with -32602 naming it', async () => {
    const store = await openSessionStore({ stateDir: 'off', env: {}, logger });
    await expect(forkSession({ sourceId: 'nope', cwd: '/w', sessions: new LiveSessions(async () => false), store, logger })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('nope'),
    });
  });

  it('titles a fork after its source, bounded', async () => {
    const sessions = new LiveSessions(async () => false);
    const store = await openSessionStore({ stateDir: 'off', env: {}, logger });
    const untitled = sessions.create('/w', 'm1');
    expect((await forkSession({ sourceId: untitled.id, cwd: '/w', sessions, store, logger })).title).toBeUndefined();
    const long = sessions.create('/w', 'm1');
    long.title = 'x'.repeat(100);
    const fork = await forkSession({ sourceId: long.id, cwd: '/w', sessions, store, logger });
    expect(fork.title).toBe(`${'x'.repeat(71)}… (fork)`);
  });
});

describe('currentPlanOf', () => {
  it('is the plan of the latest turn that wrote one (so /undo brings back the one before), also when it came before a /clear', async () => {
    const { currentPlanOf, loadRecords } = await import('../../src/sessions/live-records.js');
    const currentPlan = (records: never[]) => {
      const session = { records: [] };
      loadRecords(session, records);
      return currentPlanOf(session);
    };
    const turn = (plan?: string) =>
      ({
        type: 'turn',
        at: '',
        prompt: [],
        assistant: 'a',
        reasoning: '',
        stopReason: 'end_turn',
        ...(plan ? { plan: [{ content: plan, status: 'pending', priority: 'medium' }] } : {}),
      }) as never;
    expect(currentPlan([])).toEqual([]);
    expect(currentPlan([turn('one'), turn(), turn('two'), turn()])).toEqual([{ content: 'two', status: 'pending', priority: 'medium' }]);
    expect(currentPlan([turn('one'), turn()])).toEqual([{ content: 'one', status: 'pending', priority: 'medium' }]);
    expect(currentPlan([turn('one'), { type: 'clear', at: '' } as never, turn()])).toEqual([{ content: 'one', status: 'pending', priority: 'medium' }]);
  });
});
