import { describe, expect, it } from 'vitest';
import { startLines } from '../../src/commands/agentconnect.js';

describe('the lines the front door writes at start, whatever the log level', () => {
  it('names where it listens; on loopback that is all', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1', '127.0.0.2'])
      expect(startLines({ url: 'ws://127.0.0.1:9630', host, mode: 'read-only', token: false })).toEqual([
        'AgentConnect front door on ws://127.0.0.1:9630 (mode read-only); Ctrl-C stops it.',
      ]);
  });

  it('warns when it listens beyond this machine, and asks for a token when there is none', () => {
    const open = startLines({ url: 'ws://0.0.0.0:9630', host: '0.0.0.0', mode: 'full-access', token: false });
    expect(open).toHaveLength(2);
    expect(open[1]).toBe('Warning: listening beyond this machine (0.0.0.0): anyone who can reach the port can use the model (set --token).');
    expect(startLines({ url: 'ws://192.168.1.5:9630', host: '192.168.1.5', mode: 'read-only', token: true })[1]).toBe(
      'Warning: listening beyond this machine (192.168.1.5): anyone who can reach the port can use the model.',
    );
  });
});
