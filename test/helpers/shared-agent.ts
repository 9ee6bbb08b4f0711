/**
 * One spawned agent per test file (or per describe block), for the cases that need no settings of
 * their own and do not end it (a process start costs ~0.3–0.45 s of CPU; every behaviour is still
 * shown by a real spawn). Each case starts its own sessions.
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

/** What {@link sharedAgentPerFile} spawns with, beyond its defaults. */
export interface SharedAgentSettings {
  /** Environment added to (and overriding) the defaults: the fake model's URL, `OPENAI_MODEL=test-model`, `OPENAI_ACP_STATE_DIR=off`. */
  env?: Record<string, string>;
  /** Command-line arguments. @defaultValue none */
  args?: string[];
  /** The client's capabilities in `initialize`. @defaultValue `{}` */
  clientCapabilities?: Record<string, unknown>;
}

/**
 * The core of {@link sharedAgentPerFile} for any launch: call it once at the top of a file or a
 * describe block; each call of the returned function gives the one `launch()` result (made on
 * first use). After each case, a line the agent wrote on stdout that is not JSON-RPC fails it, and
 * its recorded messages start afresh. After the file (or block) the agent's stdin is closed (so
 * the MCP servers its sessions started stop), then it is killed if still running, then `close` of
 * the launch result (its model server) is awaited.
 */
export function sharedPerFile<T extends { agent: AgentProcess; close?: () => Promise<void> }>(launch: () => Promise<T>): () => Promise<T> {
  let shared: Promise<T> | undefined;
  let current: T | undefined;
  // A line that is not JSON-RPC fails the case that saw it written, and the next case starts clean.
  afterEach(() => {
    const bad = current?.agent.badLines.splice(0) ?? [];
    if (current) current.agent.messages.length = 0;
    if (bad.length > 0) throw new Error(`non-JSON-RPC stdout: ${bad.join('\n')}`);
  });
  afterAll(async () => {
    if (!shared) return;
    const done = await shared.catch(() => undefined);
    if (!done) return;
    done.agent.child.stdin.end();
    await Promise.race([done.agent.exited, sleep(10_000)]);
    done.agent.kill();
    await done.close?.();
  });
  return async () => {
    shared ??= launch();
    current = await shared;
    return current;
  };
}

/**
 * Call once at the file's (or describe block's) top. Each call of the returned function gives the
 * one agent (started on first use, against a loopback fake model) with the model answering by
 * `handler`, the server's recorded requests and the agent's recorded messages started afresh.
 * Default settings: `test-model`, tools on, no saved sessions; a client with no capabilities.
 * A case that makes the agent learn something of the endpoint (a refused parameter, a window)
 * needs an agent of its own.
 */
export function sharedAgentPerFile(settings: SharedAgentSettings = {}): (handler: ChatHandler) => Promise<SharedAgent> {
  const get = sharedPerFile(async () => {
    const server = await startFakeOpenAI();
    const agent = spawnAgent(
      { OPENAI_BASE_URL: server.baseUrl, OPENAI_MODEL: 'test-model', OPENAI_ACP_STATE_DIR: 'off', ...settings.env },
      settings.args ?? [],
    );
    const init = await agent
      .request('initialize', { protocolVersion: 1, clientCapabilities: settings.clientCapabilities ?? {} })
      .catch(async (error: unknown) => {
        // A launch that fails leaves nothing running: afterAll has no agent to end then.
        agent.kill();
        await server.close();
        throw error;
      });
    return { server, agent, init, close: () => server.close() };
  });
  return async (handler) => {
    const shared = await get();
    shared.server.handle(handler);
    shared.server.requests.length = 0;
    shared.agent.messages.length = 0;
    return shared;
  };
}
