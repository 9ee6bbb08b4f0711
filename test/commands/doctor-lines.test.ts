import { describe, expect, it } from 'vitest';
import { renderNote } from '../../src/commands/doctor-lines.js';

describe('renderNote', () => {
  it('indents every line of a note under its first, at the indentation of its block', () => {
    expect(renderNote('one line', '  ')).toBe('  note: one line');
    expect(renderNote('first\n- second\nthird', '    ')).toBe('    note: first\n          - second\n          third');
  });
});
