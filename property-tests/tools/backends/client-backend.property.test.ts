import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createClientBackend } from '../../../src/tools/backends/client-backend.js';
import type { ToolBackend } from '../../../src/tools/backends/tool-backend.js';
import { fakeClient } from '../../../test/helpers/fake-acp-client.js';

type Op = 'read' | 'write' | 'run';

describe('createClientBackend routing (property)', () => {
  it('every operation goes to exactly one side: the client when its capability is on, else local', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ readTextFile: fc.boolean(), writeTextFile: fc.boolean(), terminal: fc.boolean() }),
        fc.array(fc.constantFrom<Op>('read', 'write', 'run'), { maxLength: 6 }),
        async (capabilities, ops) => {
          const fake = fakeClient({
            handlers: { 'fs/read_text_file': () => ({ content: 'c' }), 'fs/write_text_file': () => ({}) },
            terminalExit: { exitCode: 0 },
          });
          const localCalls: Op[] = [];
          const local: ToolBackend = {
            where: { read: 'local', write: 'local', terminal: 'local' },
            readTextFile: async () => (localCalls.push('read'), 'l'),
            writeTextFile: async () => void localCalls.push('write'),
            runCommand: async () => (
              localCalls.push('run'), { output: '', truncated: false, exitCode: 0, signal: null, timedOut: false, release: async () => undefined }
            ),
          };
          const backend = createClientBackend({ client: fake.client, sessionId: 's', capabilities, local });
          const signal = new AbortController().signal;
          for (const op of ops) {
            if (op === 'read') await backend.readTextFile('/p/a', signal);
            else if (op === 'write') await backend.writeTextFile('/p/a', 'x', signal);
            else await (await backend.runCommand('ls', { cwd: '/p', timeoutMs: 1000, outputByteLimit: 100, signal })).release();
          }
          const onClient = (op: Op) => (op === 'read' ? capabilities.readTextFile : op === 'write' ? capabilities.writeTextFile : capabilities.terminal);
          const clientCalls = fake.log
            .filter((e) => e.startsWith('request:fs/') || e.endsWith(':create'))
            .map((e): Op => (e.includes('read') ? 'read' : e.includes('write') ? 'write' : 'run'));
          expect(clientCalls).toEqual(ops.filter(onClient));
          expect(localCalls).toEqual(ops.filter((op) => !onClient(op)));
        },
      ),
      { numRuns: 50 },
    );
  });
});
