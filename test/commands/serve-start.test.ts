/**
 * What `openai-acp serve` says on stderr at start, whatever the log level: where it listens (both
 * URLs), and a warning for an address beyond this machine.
 */
import { describe, expect, it } from 'vitest';
import { serveStartLines } from '../../src/commands/serve.js';

describe('serveStartLines', () => {
  it('names both URLs, and warns only off loopback', () => {
    expect(serveStartLines({ url: 'http://127.0.0.1:8765/acp', host: '127.0.0.1' })).toEqual([
      'openai-acp serve on http://127.0.0.1:8765/acp (WebSocket ws://127.0.0.1:8765/acp); Ctrl-C stops it.',
    ]);
    for (const host of ['0.0.0.0', '10.1.2.3', '::']) {
      const lines = serveStartLines({ url: 'http://0.0.0.0:8765/acp', host });
      expect(lines).toHaveLength(2);
      expect(lines[0]).toContain(`listening beyond this machine (${host})`);
    }
    expect(serveStartLines({ url: 'http://[::1]:8765/acp', host: '::1' })).toHaveLength(1);
  });
});
