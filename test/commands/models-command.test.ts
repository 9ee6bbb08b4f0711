import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runCli, runCliInProcess, tempHome } from '../helpers/doctor-run-cli.js';
import { fakeServerPool, startFakeOpenAI } from '../helpers/fake-openai.js';

const fake = fakeServerPool();

// The first case runs the built CLI (stdout holds only the list, stderr nothing); the others run the
// CLI's steps in this process (runCliInProcess), which print the same lines and reasons.
describe('openai-acp models', () => {
  it('prints one id per line, with the context window when the endpoint reports it', async () => {
    const server = await fake();
    server.setModels({ object: 'list', data: [{ id: 'small', context_length: 8192 }, { id: 'plain' }, { id: 'vendor/big', max_model_len: 131072 }] });
    const run = await runCli(['models'], { home: tempHome(), env: { OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'not-listed' } });
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^small\s+8192 tokens context$/);
    expect(lines[1]).toBe('plain');
    expect(lines[2]).toMatch(/^vendor\/big\s+131072 tokens context$/);
    // The configured model is not added: only what the endpoint lists.
    expect(run.stdout).not.toContain('not-listed');
    expect(run.stderr).toBe('');
  });

  it('sends the key as the agent does', async () => {
    let auth: string | undefined;
    const inner = http.createServer((req, res) => {
      auth = req.headers.authorization;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [{ id: 'm1' }] }));
    });
    await new Promise<void>((resolve) => inner.listen(0, '127.0.0.1', resolve));
    const { port } = inner.address() as AddressInfo;
    const run = await runCliInProcess(['models'], {
      home: tempHome(),
      env: { OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_API_KEY: 'sk-models-key-123456' },
    });
    inner.close();
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('m1\n');
    expect(auth).toBe('Bearer sk-models-key-123456');
  });

  it('exits 1 with the status and a fix when the list cannot be read', async () => {
    const server = await fake();
    server.setModels({ error: { message: 'Invalid API key' } }, 401);
    const run = await runCliInProcess(['models'], { home: tempHome(), env: { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'sk-wrong-key-abcdef' } });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/cannot read the model list: .*\/v1\/models answered HTTP 401\. Check the API key/);
    expect(run.stderr).toContain('Invalid API key');
    expect(run.stderr).not.toContain('sk-wrong');
  });

  it('exits 1 when nothing listens', async () => {
    const server = await startFakeOpenAI();
    const url = server.baseUrl;
    await server.close();
    const run = await runCliInProcess(['models', '--timeout-ms', '2000'], { home: tempHome(), env: { OPENAI_BASE_URL: url } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/cannot connect to .*\/v1\/models \(ECONNREFUSED\)/);
  });

  it('exits 1 on an empty list', async () => {
    const server = await fake();
    server.setModels({ object: 'list', data: [] });
    const run = await runCliInProcess(['models'], { home: tempHome(), env: { OPENAI_BASE_URL: server.baseUrl } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/answered HTTP 200 but listed no model/);
  });
});
