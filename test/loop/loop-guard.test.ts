import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_STEPS, LoopGuard, REPEATS_FOR_LOOP } from '../../src/loop/loop-guard.js';

describe('LoopGuard step limit', () => {
  it('lets maxSteps requests through, then stops with reason steps', () => {
    const guard = new LoopGuard(3);
    for (let i = 0; i < 3; i++) expect(guard.beforeRequest()).toBeUndefined();
    expect(guard.stepsTaken).toBe(3);
    const stop = guard.beforeRequest();
    expect(stop?.reason).toBe('steps');
    expect(stop?.message).toContain('3 model requests');
    expect(guard.stepsTaken).toBe(3);
  });
  it('defaults to DEFAULT_MAX_STEPS', () => {
    const guard = new LoopGuard();
    for (let i = 0; i < DEFAULT_MAX_STEPS; i++) expect(guard.beforeRequest()).toBeUndefined();
    expect(guard.beforeRequest()?.reason).toBe('steps');
  });
});

describe('LoopGuard repeats', () => {
  const call = (name: string, args: string) => ({ name, arguments: args });
  it('stops on the third identical call in a row', () => {
    const guard = new LoopGuard();
    expect(REPEATS_FOR_LOOP).toBe(3);
    expect(guard.afterAnswer([call('read_file', '{"path":"a"}')])).toBeUndefined();
    expect(guard.afterAnswer([call('read_file', '{"path":"a"}')])).toBeUndefined();
    const stop = guard.afterAnswer([call('read_file', '{"path":"a"}')]);
    expect(stop?.reason).toBe('repeat');
    expect(stop?.message).toContain('read_file');
  });
  it('ignores whitespace and key order of the arguments', () => {
    const guard = new LoopGuard();
    guard.afterAnswer([call('edit_file', '{"path":"a","old_string":"x","new_string":"y"}')]);
    guard.afterAnswer([call('edit_file', ' { "new_string" : "y", "path": "a",\n "old_string":"x" } ')]);
    expect(guard.afterAnswer([call('edit_file', '{"old_string":"x","new_string":"y","path":"a"}')])?.reason).toBe('repeat');
  });
  it('treats empty arguments as {}', () => {
    const guard = new LoopGuard();
    guard.afterAnswer([call('list_directory', '')]);
    guard.afterAnswer([call('list_directory', '{}')]);
    expect(guard.afterAnswer([call('list_directory', '  ')])?.reason).toBe('repeat');
  });
  it('counts repeats inside one answer too', () => {
    const guard = new LoopGuard();
    const c = call('run_command', '{"command":"ls"}');
    expect(guard.afterAnswer([c, c, c])?.reason).toBe('repeat');
  });
  it('a different call (name or arguments) resets the count', () => {
    const guard = new LoopGuard();
    const a = call('read_file', '{"path":"a"}');
    guard.afterAnswer([a]);
    guard.afterAnswer([a]);
    expect(guard.afterAnswer([call('read_file', '{"path":"b"}')])).toBeUndefined();
    expect(guard.afterAnswer([a])).toBeUndefined();
    expect(guard.afterAnswer([a])).toBeUndefined();
    expect(guard.afterAnswer([call('list_directory', '{"path":"a"}')])).toBeUndefined();
    expect(guard.afterAnswer([a])).toBeUndefined();
  });
  it('distinguishes nested values and arrays', () => {
    const guard = new LoopGuard();
    guard.afterAnswer([call('t', '{"a":[1,2]}')]);
    guard.afterAnswer([call('t', '{"a":[1,2]}')]);
    expect(guard.afterAnswer([call('t', '{"a":[2,1]}')])).toBeUndefined();
  });
  it('compares invalid JSON by its trimmed text', () => {
    const guard = new LoopGuard();
    guard.afterAnswer([call('t', '{bad')]);
    guard.afterAnswer([call('t', ' {bad ')]);
    expect(guard.afterAnswer([call('t', '{bad')])?.reason).toBe('repeat');
  });
  it('an answer without calls does not reset the count (the loop ends on such answers anyway)', () => {
    const guard = new LoopGuard();
    const a = call('t', '{}');
    guard.afterAnswer([a]);
    guard.afterAnswer([]);
    guard.afterAnswer([a]);
    expect(guard.afterAnswer([a])?.reason).toBe('repeat');
  });
});
