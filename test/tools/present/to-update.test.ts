import { describe, expect, it } from 'vitest';
import { announceUpdate, finalUpdate, outcomeToUpdate, progressUpdate } from '../../../src/tools/present/to-update.js';

describe('outcomeToUpdate', () => {
  it('maps failed and completed outcomes, leaving out what is absent', () => {
    expect(outcomeToUpdate('c1', { failed: true, forModel: 'no', content: [] })).toEqual({ toolCallId: 'c1', status: 'failed', content: [] });
    expect(
      outcomeToUpdate('c2', {
        failed: false,
        forModel: 'x',
        content: [{ type: 'terminal', terminalId: 't' }],
        locations: [{ path: '/a' }],
        rawOutput: { exitCode: 0 },
        images: [{ data: '', mimeType: 'image/png' }],
      }),
    ).toEqual({
      toolCallId: 'c2',
      status: 'completed',
      content: [{ type: 'terminal', terminalId: 't' }],
      locations: [{ path: '/a' }],
      rawOutput: { exitCode: 0 },
    });
  });
});

describe('announceUpdate, progressUpdate, finalUpdate', () => {
  it('announces a pending call with its presentation, locations and preview only when present', () => {
    expect(announceUpdate('c1', { title: 'Fetch x', kind: 'fetch' }, { url: 'x' })).toEqual({
      sessionUpdate: 'tool_call',
      toolCallId: 'c1',
      title: 'Fetch x',
      kind: 'fetch',
      status: 'pending',
      rawInput: { url: 'x' },
    });
    const diff = { type: 'diff' as const, path: '/a', oldText: 'a', newText: 'b' };
    expect(announceUpdate('c2', { title: 'Edit a', kind: 'edit', locations: [{ path: '/a' }], content: [diff] }, '{bad')).toMatchObject({
      rawInput: '{bad',
      locations: [{ path: '/a' }],
      content: [diff],
    });
  });

  it('marks a call in progress, embedding its terminal once there is one', () => {
    expect(progressUpdate('c1')).toEqual({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'in_progress' });
    expect(progressUpdate('c1', 't1')).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c1',
      status: 'in_progress',
      content: [{ type: 'terminal', terminalId: 't1' }],
    });
  });

  it('sends the final update as a session update', () => {
    expect(finalUpdate('c1', { failed: false, forModel: 'ok', content: [] })).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c1',
      status: 'completed',
      content: [],
    });
  });
});
