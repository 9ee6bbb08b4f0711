/**
 * One spawned agent per test file, for the cases that need no settings of their own and do not end
 * it (a process start costs ~0.3 s of CPU; every behaviour is still shown by a real spawn). Its
 * settings: a loopback fake model (`test-model`), tools on, no saved sessions; a client with the
 * capabilities the file gives (none by default). Each case starts its own sessions.
 */
import { afterAll, afterEach } from 'vitest';
import { startFakeOpenAI, type ChatHandler, type FakeOpenAI } from './fake-openai.js';
import { sleep, spawnAgent, type AgentProcess } from './spawn-agent.js';

/** The shared agent, its model server and the answer to its `initialize`. */
export interface SharedAgent {
  server: FakeOpenAI;
  agent: AgentProcess;
  init: any;
}

/**
 * Call once at the file's top (or once per set of client capabilities). Each call of the returned function gives the file's agent (started
 * on first use) with the model answering by `handler`, the server's recorded requests and the
 * agent's recorded messages started afresh. After each case, a line the agent wrote on stdout that
 * is not JSON-RPC fails it. After the file the agent's stdin is closed (so the MCP servers its
 * sessions started stop), then it is killed if still running. A case that makes the agent learn
 * something of the endpoint (a refused parameter, a window) needs an agent of its own.
 */
export function sharedAgentPerFile(clientCapabilities: Record<string, unknown> = {}): (handler: ChatHandler) => Promise<SharedAgent> {
  let shared: SharedAgent | undefined;
  // A line that is not JSON-RPC fails the case that saw it written, and the next case starts clean.
  afterEach(() => {
    const bad = shared?.agent.badLines.splice(0) ?? [];
    if (bad.length > 0) throw new Error(`non-JSON-RPC stdout: ${bad.join('\n')}`);
  });
  afterAll(async () => {
    if (!shared) return;
    shared.agent.child.stdin.end();
    await Promise.race([shared.agent.exited, sleep(10_000)]);
    shared.agent.kill();
    await shared.server.close();
  });
  return async (handler) => {
    if (shared === undefined) {
      const server = await startFakeOpenAI(handler);
      const agent = spawnAgent({ OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_ACP_STATE_DIR: 'off' });
      const init = await agent.request('initialize', { protocolVersion: 1, clientCapabilities });
      shared = { server, agent, init };
    }
    shared.server.handle(handler);
    shared.server.requests.length = 0;
    shared.agent.messages.length = 0;
    return shared;
  };
}
