import { describe, expect, it } from 'vitest';
import { defaultSystemPrompt } from '../../src/context/system-prompt.js';

const facts = { cwd: '/work/p', platform: 'linux', date: '2026-11-23', tools: ['read_file', 'write_file'] };

describe('defaultSystemPrompt', () => {
  it('names cwd, platform, date and the tools', () => {
    const text = defaultSystemPrompt(facts);
    expect(text).toContain('/work/p');
    expect(text).toContain('linux');
    expect(text).toContain('2026-11-23');
    expect(text).toContain('read_file, write_file');
    expect(text).toContain('approval');
    expect(text).not.toContain('no tools');
  });
  it('names no mode: the mode is told in the conversation, so the prompt is the same in every mode', () => {
    const text = defaultSystemPrompt(facts);
    expect(text).toContain('or the session mode may forbid them');
    expect(text).not.toMatch(/read-only|Plan mode/i);
  });
  it('asks for a plan on multi-step work when the plan tool is offered', () => {
    expect(defaultSystemPrompt(facts)).not.toContain('update_plan');
    const withPlan = defaultSystemPrompt({ ...facts, tools: ['read_file', 'update_plan'] });
    expect(withPlan).toContain('For work of several steps, keep a to-do list with update_plan.');
    // One short sentence: the prompt stays small.
    expect(withPlan.length - defaultSystemPrompt({ ...facts, tools: ['read_file'] }).length).toBeLessThan(90);
  });
  it('says there are no tools when none are offered', () => {
    const text = defaultSystemPrompt({ ...facts, tools: [] });
    expect(text).toContain('no tools');
    expect(text).not.toContain('Tools:');
  });
  it('appends the instruction files part (trimmed) and skips a blank one', () => {
    expect(defaultSystemPrompt({ ...facts, instructions: '\nInstructions from AGENTS.md:\n\nUse pnpm.\n' })).toMatch(
      /[^\n]\n\nInstructions from AGENTS\.md:\n\nUse pnpm\.$/,
    );
    expect(defaultSystemPrompt({ ...facts, instructions: '  \n' })).toBe(defaultSystemPrompt(facts));
  });
});
