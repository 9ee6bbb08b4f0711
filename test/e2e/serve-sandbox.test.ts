/**
 * `openai-acp serve` keeps its secrets from the model's commands: the token read from
 * OPENAI_ACP_SERVE_TOKEN_FILE, the key from the environment; a local run_command (a client
 * without a terminal) gets neither in its environment, and where bubblewrap can run here it is sandboxed by default:
 * nothing it writes outside the root reaches the disk, the session folder and the token file are
 * empty to it, and it reaches no network.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeServerPool } from '../helpers/fake-openai.js';
import { serveFixtures } from '../helpers/serve-client.js';
import { script } from '../helpers/tool-script.js';
import { probeSandbox } from '../../src/tools/index.js';

const TOKEN = 'serve-token-from-a-file-0123';
const KEY = 'sk-serve-canary-0123456789';
const servers = fakeServerPool();
const fixtures = serveFixtures();
const found = probeSandbox();

describe('openai-acp serve and the commands the model runs', () => {
  it(`give them no key and no token; sandboxed by default${found.available ? '' : ` (the sandbox part skipped here: ${found.available === false ? found.reason : ''})`}`, async () => {
    const { home, root } = fixtures.scratch();
    const tokenFile = join(home, 'serve-token');
    writeFileSync(tokenFile, `${TOKEN}\n`);
    const escaped = join(home, 'escaped.txt');
    const state = join(home, 'state', 'openai-acp', 'sessions');
    const command = `env; echo x > ${escaped}; echo "state:[$(ls ${state} 2>&1 | grep -c jsonl)]"; echo "token:[$(cat ${tokenFile} 2>/dev/null)]"`;
    const model = await servers(script([{ calls: [['run_command', { command }]] }, { text: 'Ran it.' }]));
    const server = await fixtures.start(
      home,
      { OPENAI_BASE_URL: model.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_API_KEY: KEY, OPENAI_ACP_SERVE_TOKEN_FILE: tokenFile },
      ['--root', root],
    );
    const client = await fixtures.connect(server.url, 'ws', { token: TOKEN });
    const { sessionId } = await client.agent.request('session/new', { cwd: root, mcpServers: [] });
    const answer: { stopReason: string } = await client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'run it' }] });
    expect(answer.stopReason).toBe('end_turn');
    expect(model.requests[0]!.headers['authorization']).toBe(`Bearer ${KEY}`);
    const tool = String(model.requests[1]!.body.messages.find((message: { role: string }) => message.role === 'tool').content);
    // What `env` printed: the environment the command inherited, before the lines the file reads print.
    expect(tool).toContain('state:[');
    const environment = tool.slice(0, tool.indexOf('state:['));
    expect(environment).toMatch(/^PATH=/m);
    expect(tool).not.toContain(KEY);
    expect(environment).not.toContain(TOKEN);
    expect(tool).not.toContain('OPENAI_ACP_SERVE_TOKEN');
    if (found.available) {
      expect(server.stderr()).toContain('run in a bubblewrap sandbox');
      expect(existsSync(escaped)).toBe(false);
      // The session file is there on the disk, and empty to the command.
      expect(readdirSync(state).some((name) => name.endsWith('.jsonl'))).toBe(true);
      expect(tool).toContain('state:[0]');
      expect(tool).toContain('token:[]');
    } else {
      // Unconfined, as the log says: the command reaches what the agent's user can read.
      expect(server.stderr()).toContain('the sandbox cannot run here');
      expect(server.stderr()).toContain('run unconfined');
      expect(readFileSync(escaped, 'utf8')).toBe('x\n');
    }
  });
});
