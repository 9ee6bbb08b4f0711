/**
 * scripts/serve-client.mjs, the client docs/remote.md and the README give a newcomer for
 * `openai-acp serve`: against the built CLI serving on a loopback port and the fake OpenAI
 * server, it prompts once over WebSocket or Streamable HTTP, prints the answer and exits 0; a
 * wrong token exits 1 saying why; missing arguments exit 2 with the usage.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fakeServerPool, streamText } from '../helpers/fake-openai.js';
import { serveFixtures } from '../helpers/serve-client.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/serve-client.mjs', import.meta.url));
const TOKEN = 'e2e-serve-client-token-0123';
const servers = fakeServerPool();
const fixtures = serveFixtures();

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
    const { home, root } = fixtures.scratch();
    const model = await servers(streamText(['Olá', ', mundo']));
    const served = await fixtures.start(home, { OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_ACP_SERVE_TOKEN: TOKEN }, ['--root', root]);
    const run = await client(['--url', served.url, '--cwd', root, ...extra, 'Say hi in Portuguese']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Olá, mundo\n');
    expect(JSON.stringify(model.requests[0]!.body.messages)).toContain('Say hi in Portuguese');
  });

  it('exits 1 saying why when the token is wrong, and 2 with the usage without --cwd', async () => {
    const { home, root } = fixtures.scratch();
    const model = await servers(streamText(['never']));
    const served = await fixtures.start(home, { OPENAI_BASE_URL: model.baseUrl, OPENAI_ACP_SERVE_TOKEN: TOKEN }, ['--root', root]);
    const refused = await client(['--url', served.url, '--cwd', root, '--wait-ms', '0', 'hi'], 'not-the-token');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^serve-client: /);
    expect(model.requests).toHaveLength(0);
    const usage = await client(['hi']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--cwd');
  });
});
