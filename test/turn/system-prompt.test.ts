import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENTS_MD_MAX_BYTES, defaultSystemPrompt, readAgentsMd } from '../../src/turn/system-prompt.js';

const facts = { cwd: '/work/p', platform: 'linux', date: '2026-11-23', tools: ['read_file', 'write_file'], mode: 'ask' };

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
  it('says read-only in read-only mode', () => {
    const text = defaultSystemPrompt({ ...facts, tools: ['read_file'], mode: 'read-only' });
    expect(text).toContain('read-only');
    expect(text).not.toContain('approval');
  });
  it('asks for a plan on multi-step work when the plan tool is offered, and explains plan mode in one sentence', () => {
    expect(defaultSystemPrompt(facts)).not.toContain('update_plan');
    const withPlan = defaultSystemPrompt({ ...facts, tools: ['read_file', 'update_plan'] });
    expect(withPlan).toContain('For work of several steps, keep a to-do list with update_plan.');
    const planMode = defaultSystemPrompt({ ...facts, tools: ['read_file', 'update_plan'], mode: 'plan' });
    expect(planMode).toContain('Plan mode: no edits or commands yet.');
    expect(planMode).not.toContain('approval;');
    // Two short sentences at most: the prompt stays small.
    expect(withPlan.length - defaultSystemPrompt({ ...facts, tools: ['read_file'] }).length).toBeLessThan(90);
  });
  it('says there are no tools when none are offered', () => {
    const text = defaultSystemPrompt({ ...facts, tools: [] });
    expect(text).toContain('no tools');
    expect(text).not.toContain('Tools:');
  });
  it('appends AGENTS.md (trimmed) and skips a blank one', () => {
    expect(defaultSystemPrompt({ ...facts, agentsMd: '\n  Use pnpm.\n' })).toMatch(/AGENTS\.md\):\nUse pnpm\.$/);
    expect(defaultSystemPrompt({ ...facts, agentsMd: '  \n' })).not.toContain('AGENTS.md');
  });
});

describe('readAgentsMd', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agents-md-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  it('is undefined without AGENTS.md, and when it is a directory', async () => {
    expect(await readAgentsMd(dir)).toBeUndefined();
    expect(await readAgentsMd(join(dir, 'missing'))).toBeUndefined();
  });
  it('reads a small file whole, including one of exactly the limit', async () => {
    await writeFile(join(dir, 'AGENTS.md'), 'Run npm test.');
    expect(await readAgentsMd(dir)).toBe('Run npm test.');
    const exact = 'a'.repeat(AGENTS_MD_MAX_BYTES);
    await writeFile(join(dir, 'AGENTS.md'), exact);
    expect(await readAgentsMd(dir)).toBe(exact);
  });
  it('cuts a larger file at 32 KiB with a note', async () => {
    expect(AGENTS_MD_MAX_BYTES).toBe(32 * 1024);
    await writeFile(join(dir, 'AGENTS.md'), 'b'.repeat(AGENTS_MD_MAX_BYTES + 100));
    const text = (await readAgentsMd(dir))!;
    expect(text.startsWith('b'.repeat(AGENTS_MD_MAX_BYTES))).toBe(true);
    expect(text.slice(AGENTS_MD_MAX_BYTES)).toBe('\n[AGENTS.md cut at 32 KiB]');
  });
  it('does not split a multi-byte character at the cut', async () => {
    // 'é' is 2 bytes: an odd prefix puts a character across the 32 KiB boundary.
    await writeFile(join(dir, 'AGENTS.md'), `x${'é'.repeat(AGENTS_MD_MAX_BYTES)}`);
    const text = (await readAgentsMd(dir))!;
    expect(text).not.toContain('\uFFFD');
    expect(Buffer.byteLength(text.replace(/\n\[AGENTS\.md cut at 32 KiB\]$/, ''))).toBeLessThanOrEqual(AGENTS_MD_MAX_BYTES);
  });
});
