import { describe, expect, it } from 'vitest';
import { PLAN_CHAT_TOOL, planText, planTool } from '../../../src/tools/policy/plan-tool.js';

/** The plan tool's check of a call's raw arguments: the entries, or the message for the model. */
function parsePlanArguments(raw: string) {
  const checked = planTool(async () => ({ failed: false, forModel: '', content: [] })).check(raw, false);
  return checked.ok ? { ok: true as const, entries: checked.args['entries'] } : checked;
}

describe('parsePlanArguments', () => {
  it('reads whole lists as ACP plan entries, priority medium unless given', () => {
    const parsed = parsePlanArguments(
      JSON.stringify({
        entries: [
          { content: ' Read the code ', status: 'completed' },
          { content: 'Fix it', status: 'in_progress', priority: 'high' },
        ],
      }),
    );
    expect(parsed).toEqual({
      ok: true,
      entries: [
        { content: 'Read the code', status: 'completed', priority: 'medium' },
        { content: 'Fix it', status: 'in_progress', priority: 'high' },
      ],
    });
  });

  it('takes an empty list, a bare array, bare strings and JSON encoded twice', () => {
    expect(parsePlanArguments('{"entries": []}')).toEqual({ ok: true, entries: [] });
    expect(parsePlanArguments(JSON.stringify(JSON.stringify({ entries: ['step'] })))).toEqual({
      ok: true,
      entries: [{ content: 'step', status: 'pending', priority: 'medium' }],
    });
    expect(parsePlanArguments('[{"content":"a","status":"pending","priority":null}]')).toEqual({
      ok: true,
      entries: [{ content: 'a', status: 'pending', priority: 'medium' }],
    });
  });

  it.each([
    ['not json', /not valid JSON/],
    ['{}', /"entries" must be a list/],
    ['{"entries": [{"status": "pending"}]}', /entry 1 has no "content"/],
    ['{"entries": [{"content": "  ", "status": "pending"}]}', /entry 1 has no "content"/],
    [
      '{"entries": [{"content": "a", "status": "pending"}, {"content": "b", "status": "done"}]}',
      /entry 2 has status "done"; valid: pending, in_progress, completed/,
    ],
    ['{"entries": [{"content": "a", "status": "pending", "priority": "urgent"}]}', /priority "urgent"; valid: high, medium, low/],
    ['{"entries": [3]}', /entry 1 is not an object/],
  ])('refuses %s with words for the model', (raw, words) => {
    const parsed = parsePlanArguments(raw);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toMatch(words);
    expect(!parsed.ok && parsed.error).toContain('update_plan');
  });

  it('refuses a list longer than the limit', () => {
    const entries = Array.from({ length: 51 }, (_, i) => ({ content: `s${i}`, status: 'pending' }));
    expect(parsePlanArguments(JSON.stringify({ entries }))).toMatchObject({ ok: false, error: expect.stringContaining('51 entries is too many (at most 50)') });
    expect(parsePlanArguments(JSON.stringify({ entries: entries.slice(1) })).ok).toBe(true);
  });
});

describe('the plan tool definition', () => {
  it('stays small: it is sent with every request', () => {
    expect(JSON.stringify(PLAN_CHAT_TOOL).length).toBeLessThanOrEqual(420);
    expect(PLAN_CHAT_TOOL.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });
});

describe('planText', () => {
  it('marks each entry by status', () => {
    expect(
      planText([
        { content: 'a', status: 'completed', priority: 'low' },
        { content: 'b', status: 'in_progress', priority: 'high' },
        { content: 'c', status: 'pending', priority: 'medium' },
      ]),
    ).toBe('[x] a\n[~] b\n[ ] c');
    expect(planText([])).toBe('(empty plan)');
  });
});
