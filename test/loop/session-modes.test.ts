import { RequestError } from '@agentclientprotocol/sdk/unstable';
import { describe, expect, it } from 'vitest';
import { legacyModes, MODE_CONFIG_ID, modeConfigOption, rememberChoice, rememberedChoices, selectMode, sessionMode } from '../../src/loop/session-modes.js';
import type { Session } from '../../src/sessions/session.js';
import { SESSION_MODES } from '../../src/tools/policy/mode-table.js';

const session = (options: Record<string, string> = {}): Session =>
  ({ id: 's1', cwd: '/tmp', createdAt: '2026-01-01T00:00:00Z', records: [], model: 'm', options }) as unknown as Session;

describe('session modes', () => {
  it('defaults to ask, and an unknown stored value also reads as ask', () => {
    expect(sessionMode(session())).toBe('ask');
    expect(sessionMode(session({ mode: 'yolo' }))).toBe('ask');
  });
  it('selectMode stores each valid mode and the select and legacy shapes show it', () => {
    const s = session();
    for (const mode of SESSION_MODES) {
      selectMode(s, mode);
      expect(s.options[MODE_CONFIG_ID]).toBe(mode);
      expect(sessionMode(s)).toBe(mode);
      expect(modeConfigOption(s).currentValue).toBe(mode);
      expect(legacyModes(s).currentModeId).toBe(mode);
    }
  });
  it('selectMode refuses anything else with -32602 naming the valid values, leaving the mode', () => {
    const s = session({ mode: 'read-only' });
    for (const bad of ['Ask', '', 3, null, undefined]) {
      let thrown: unknown;
      try {
        selectMode(s, bad);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(RequestError);
      expect((thrown as RequestError).code).toBe(-32602);
      expect((thrown as RequestError).message).toContain('full-access');
    }
    expect(sessionMode(s)).toBe('read-only');
  });
  it('the select is a mode-category select offering every mode; legacy modes offer the same ids', () => {
    const option = modeConfigOption(session());
    expect(option).toMatchObject({ id: 'mode', category: 'mode', type: 'select' });
    const values = (option as { options: { value: string }[] }).options.map((o) => o.value);
    expect(values).toEqual([...SESSION_MODES]);
    expect(legacyModes(session()).availableModes.map((m) => m.id)).toEqual([...SESSION_MODES]);
  });
});

describe('remembered choices', () => {
  it('round-trip through the session options', () => {
    const s = session({ mode: 'ask', model: 'x' });
    Object.assign(s.options, rememberChoice('run_command:git', 'allow'), rememberChoice('mcp:fs/write', 'reject'), rememberChoice('write_file', 'allow'));
    expect(rememberedChoices(s)).toEqual({ 'run_command:git': 'allow', 'mcp:fs/write': 'reject', write_file: 'allow' });
    // a later choice for the same key replaces the earlier one
    Object.assign(s.options, rememberChoice('write_file', 'reject'));
    expect(rememberedChoices(s).write_file).toBe('reject');
  });
  it('ignores other options and values that are not a choice', () => {
    expect(rememberedChoices(session({ mode: 'ask', 'permission:x': 'maybe', permissionx: 'allow' }))).toEqual({});
  });
  it('keeps a key named __proto__ as a plain entry (no prototype change)', () => {
    const s = session(JSON.parse('{"permission:__proto__":"allow"}') as Record<string, string>);
    const choices = rememberedChoices(s);
    expect(Object.getPrototypeOf(choices)).toBe(Object.prototype);
    expect(Object.hasOwn(choices, '__proto__')).toBe(true);
  });
});

describe('mode notes', () => {
  it('tells a mode only when it differs from the one last told (none told: ask, the system prompt rule)', async () => {
    const { modeNoteFor } = await import('../../src/loop/session-modes.js');
    expect(modeNoteFor('ask', undefined)).toBeUndefined();
    expect(modeNoteFor('plan', 'plan')).toBeUndefined();
    expect(modeNoteFor('plan', undefined)).toMatch(/^\[Session mode: Plan\. No edits or commands yet.*update_plan.*\]$/);
    expect(modeNoteFor('ask', 'plan')).toMatch(/^\[Session mode: Ask\./);
    for (const mode of SESSION_MODES) expect(modeNoteFor(mode, mode === 'ask' ? 'plan' : 'ask')!.length).toBeLessThan(200);
  });
});
