/**
 * fetch_url end to end with the built CLI against a loopback web server: permission in `ask` mode
 * with "always allow <host>" remembered; HTML as Markdown, JSON, a page over the context share
 * (cut with a note), a redirect chain, a 404, a page that never answers (time limit), and a
 * redirect to 169.254.169.254 refused before any connection; a cancel stops a running fetch.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fakeServerPool } from '../helpers/fake-openai.js';
import { spawnAgent, waitFor, type AgentProcess } from '../helpers/spawn-agent.js';
import { answer, script, tempDirs, waitForRequest } from '../helpers/tool-script.js';
import { startWebPages, type WebPages } from '../helpers/web-pages.js';

const servers = fakeServerPool();
const tempDir = tempDirs('openai-acp-fetch-');
const agents: AgentProcess[] = [];
let web: WebPages;
beforeAll(async () => {
  web = await startWebPages();
});
afterAll(() => web.close());
afterEach(() => {
  for (const agent of agents.splice(0)) agent.kill();
});

const toolMessages = (body: any): string[] => body.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content);

describe('fetch_url through the agent', () => {
  it('asks once per host in ask mode, then fetches pages, JSON, large, redirected, missing, slow and forbidden URLs with clear results', async () => {
    const url = (path: string) => `${web.url}${path}`;
    const server = await servers(
      script([
        { calls: [['fetch_url', { url: url('/page') }]] },
        {
          calls: ['/data.json', '/big', '/r1', '/missing', '/slow', '/metadata'].map(
            (path) => ['fetch_url', { url: url(path) }] as [string, Record<string, unknown>],
          ),
        },
        { text: 'done' },
      ]),
    );
    const agent = spawnAgent({
      OPENAI_BASE_URL: server.baseUrl,
      OPENAI_MODEL: 'test-model',
      OPENAI_ACP_STATE_DIR: 'off',
      OPENAI_ACP_FETCH_TIMEOUT_MS: '600',
      OPENAI_CONTEXT_WINDOW: '16384',
    });
    agents.push(agent);
    await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { result } = await agent.request('session/new', { cwd: tempDir(), mcpServers: [] });
    const pending = agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'read the docs' }] });
    const permission = await waitForRequest(agent, 'session/request_permission');
    expect(permission.params.toolCall).toMatchObject({ title: `Fetch ${url('/page')}`, kind: 'fetch' });
    const always = permission.params.options.find((o: any) => o.kind === 'allow_always');
    expect(always.name).toBe(`Always allow fetches from ${new URL(web.url).host} in this session`);
    answer(agent, permission.id, { outcome: { outcome: 'selected', optionId: always.optionId } });
    expect((await pending).result.stopReason).toBe('end_turn');
    // Remembered for the host: the six calls of the second step asked nothing.
    expect(agent.messages.filter((m) => m.method === 'session/request_permission')).toHaveLength(1);

    const [page] = toolMessages(server.requests[1]!.body);
    expect(page).toBe(
      `${url('/page')} (HTTP 200, text/html, as Markdown)\n\n# Install\n\nRun \`npm install\`, then read [the next page](${url('/docs/next')}).`,
    );
    const [, json, big, redirected, missing, slow, metadata] = toolMessages(server.requests[2]!.body);
    expect(json).toBe(`${url('/data.json')} (HTTP 200, application/json)\n\n{"name":"openai-acp","tools":7}`);
    // A quarter of the 16,384-token window, at ~4 bytes a token.
    expect(big).toMatch(/\n\n\[Note: cut to the first 16,3\d\d of 200,005 bytes to fit the context window\.\]$/);
    expect(redirected!.startsWith(`${url('/page')} (HTTP 200, text/html, as Markdown)`)).toBe(true);
    expect(missing).toBe(`Could not fetch ${url('/missing')}: HTTP 404 Not Found.`);
    expect(slow).toBe(`Could not fetch ${url('/slow')}: no complete answer within 600 ms.`);
    expect(metadata).toBe(
      'Could not fetch http://169.254.169.254/latest/meta-data/: 169.254.169.254, a link-local address (such as a ' +
        'cloud metadata service), which is never fetched.',
    );
    const statuses = agent
      .updates(result.sessionId)
      .filter((u) => u.sessionUpdate === 'tool_call_update' && u.status !== 'in_progress')
      .map((u) => u.status);
    expect(statuses).toEqual(['completed', 'completed', 'completed', 'completed', 'failed', 'failed', 'failed']);
    expect(
      agent
        .updates(result.sessionId)
        .filter((u) => u.sessionUpdate === 'tool_call')
        .every((u) => u.kind === 'fetch'),
    ).toBe(true);
  });

  it('a cancel stops a fetch that is waiting for its answer', async () => {
    const server = await servers(script([{ calls: [['fetch_url', { url: `${web.url}/slow` }]] }, { text: 'never' }]));
    const agent = spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_ACP_STATE_DIR: 'off' });
    agents.push(agent);
    await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { result } = await agent.request('session/new', { cwd: tempDir(), mcpServers: [] });
    await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
    const pending = agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text: 'fetch' }] });
    await waitFor(
      () => agent.updates(result.sessionId).some((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'in_progress'),
      20_000,
      'the fetch to start',
    );
    agent.notify('session/cancel', { sessionId: result.sessionId });
    expect((await pending).result.stopReason).toBe('cancelled');
  });
});
