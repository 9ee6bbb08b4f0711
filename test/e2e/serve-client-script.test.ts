/**
 * scripts/serve-client.mjs, the client docs/remote.md and the README give a newcomer for
 * `openai-acp serve`: against the built CLI serving on a loopback port and the fake OpenAI
 * server, it prompts once over WebSocket or Streamable HTTP, prints the answer and exits 0; a
 * wrong token exits 1 saying why; missing arguments exit 2 with the usage.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { streamText, type ChatHandler, type FakeOpenAI } from '../helpers/fake-openai.js';
import { serveFixtures, type ServeProcess } from '../helpers/serve-client.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/serve-client.mjs', import.meta.url));
const TOKEN = 'e2e-serve-client-token-0123';
const fixtures = serveFixtures();

/**
 * One server (token in its environment) and its model for the file: each case sets the model's
 * handler (its recorded requests start afresh) and works in a folder of its own inside the root.
 */
const shared = fixtures.sharedForFile([], { OPENAI_ACP_SERVE_TOKEN: TOKEN });
async function serve(handler: ChatHandler): Promise<{ served: ServeProcess; model: FakeOpenAI; root: string }> {
  const server = await shared(handler);
  return { served: server, model: server.model, root: server.cwd };
}

/** Runs the script with `args` (and the token in the environment unless `token` is false); resolves with its exit code and output. */
function client(args: string[], token: string | false = TOKEN): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: Record<string, string> = { PATH: process.env['PATH'] ?? '', ...(token ? { OPENAI_ACP_SERVE_TOKEN: token } : {}) };
  const child = spawn(process.execPath, [SCRIPT, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('scripts/serve-client.mjs', () => {
  it.each([[[]], [['--http']]])('prompts once, prints the answer and exits 0 (%j)', async (extra) => {
    const { served, model, root } = await serve(streamText(['Olá', ', mundo']));
    const run = await client(['--url', served.url, '--cwd', root, ...extra, 'Say hi in Portuguese']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Olá, mundo\n');
    expect(JSON.stringify(model.requests[0]!.body.messages)).toContain('Say hi in Portuguese');
  });

  it('exits 1 saying why when the token is wrong, and 2 with the usage without --cwd', async () => {
    const { served, model, root } = await serve(streamText(['never']));
    const refused = await client(['--url', served.url, '--cwd', root, '--wait-ms', '0', 'hi'], 'not-the-token');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^serve-client: /);
    expect(model.requests).toHaveLength(0);
    const usage = await client(['hi']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--cwd');
  });
});
