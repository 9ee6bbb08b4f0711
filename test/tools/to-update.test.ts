import { describe, expect, it } from 'vitest';
import { outcomeToUpdate } from '../../src/tools/to-update.js';

describe('outcomeToUpdate', () => {
  it('maps failed and completed outcomes, leaving out what is absent', () => {
    expect(outcomeToUpdate('c1', { failed: true, forModel: 'no', content: [] })).toEqual({ toolCallId: 'c1', status: 'failed', content: [] });
    expect(
      outcomeToUpdate('c2', { failed: false, forModel: 'x', content: [{ type: 'terminal', terminalId: 't' }], locations: [{ path: '/a' }], rawOutput: { exitCode: 0 }, images: [{ data: '', mimeType: 'image/png' }] }),
    ).toEqual({ toolCallId: 'c2', status: 'completed', content: [{ type: 'terminal', terminalId: 't' }], locations: [{ path: '/a' }], rawOutput: { exitCode: 0 } });
  });
});
