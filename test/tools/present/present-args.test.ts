import { describe, expect, it } from 'vitest';
import type { BuiltinToolName } from '../../../src/tools/builtin/registry.js';
import { OfferedTools } from '../../../src/tools/calls/offered-tools.js';
import { fenced, lineRange, shorten } from '../../../src/tools/present/present-args.js';
import type { WorkspaceRoots } from '../../../src/tools/tool.js';
import { builtin } from '../../helpers/builtin-tool.js';

const roots = { cwd: '/w/proj', extra: ['/w/other'] };
/** How the call of a built-in tool is shown in the workspace `roots`. */
const presentToolCall = (name: BuiltinToolName, args: Record<string, unknown>, at: WorkspaceRoots) => builtin(name, { roots: at }).present(args);

describe('presentToolCall', () => {
  it('titles reads with the line range and locates them', () => {
    expect(presentToolCall('read_file', { path: 'src/a.ts', offset: 10, limit: 11 }, roots)).toEqual({
      title: 'Read src/a.ts (lines 10–20)',
      kind: 'read',
      locations: [{ path: '/w/proj/src/a.ts', line: 10 }],
    });
    expect(presentToolCall('read_file', { path: '/w/proj/a.ts' }, roots)).toEqual({
      title: 'Read a.ts',
      kind: 'read',
      locations: [{ path: '/w/proj/a.ts', line: 1 }],
    });
    expect(presentToolCall('read_file', { path: '/w/other/x', offset: '5' }, roots).title).toBe('Read /w/other/x (from line 5)');
    expect(presentToolCall('read_file', {}, roots)).toEqual({ title: 'Read', kind: 'read' });
  });

  it('shows writes and edits as diffs', () => {
    expect(presentToolCall('write_file', { path: 'n.txt', content: 'hi' }, roots)).toEqual({
      title: 'Write n.txt',
      kind: 'edit',
      locations: [{ path: '/w/proj/n.txt' }],
      content: [{ type: 'diff', path: '/w/proj/n.txt', oldText: null, newText: 'hi' }],
    });
    expect(presentToolCall('edit_file', { path: 'n.txt', old_string: 'a', new_string: 'b' }, roots).content).toEqual([
      { type: 'diff', path: '/w/proj/n.txt', oldText: 'a', newText: 'b' },
    ]);
    expect(presentToolCall('edit_file', { path: 'n.txt' }, roots)).toEqual({ title: 'Edit n.txt', kind: 'edit', locations: [{ path: '/w/proj/n.txt' }] });
  });

  it('titles listings, searches and commands', () => {
    expect(presentToolCall('list_directory', {}, roots)).toEqual({ title: 'List .', kind: 'search', locations: [{ path: '/w/proj' }] });
    expect(presentToolCall('search_files', { pattern: 'fo+', path: 'src', glob: '*.ts' }, roots).title).toBe('Search "fo+" in src (*.ts)');
    expect(presentToolCall('search_files', { glob: '**/*.test.ts' }, roots).title).toBe('Find **/*.test.ts in .');
    expect(presentToolCall('run_command', { command: 'npm test' }, roots)).toEqual({ title: 'npm test', kind: 'execute' });
    const long = presentToolCall('run_command', { command: `echo ${'x'.repeat(200)}\nls` }, roots).title;
    expect(long).toHaveLength(80);
    expect(long.endsWith('…')).toBe(true);
    expect(new OfferedTools([]).resolve('mcp__thing').tool.present({})).toEqual({ title: 'mcp__thing', kind: 'other' });
  });
});

describe('helpers', () => {
  it('writes line ranges', () => {
    expect(lineRange(undefined, undefined)).toBe('');
    expect(lineRange(1, undefined)).toBe('');
    expect(lineRange(undefined, 5)).toBe(' (lines 1–5)');
    expect(lineRange(7, 1)).toBe(' (line 7)');
  });
  it('fences with a fence longer than any backtick run', () => {
    expect(fenced('a')).toBe('```\na\n```');
    expect(fenced('x ```` y\n', 'console')).toBe('`````console\nx ```` y\n`````');
  });
  it('shortens without splitting a surrogate pair', () => {
    expect(shorten('abc', 3)).toBe('abc');
    expect(shorten('a😀bc', 3)).toBe('a…');
  });
});
