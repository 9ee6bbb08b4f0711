// The built agent driven over stdio as an ACP client would, for the benchmarks: requests by id,
// permission requests answered with an allow option (or the caller's choice).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { onJsonLines } from './json-lines.mjs';

/** The CLI the benchmarks run (`BENCH_CLI` to measure another build). */
export const CLI = process.env.BENCH_CLI ?? fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const line = (m) => `${JSON.stringify(m)}\n`;
const allow = (options) => options.find((o) => o.kind.startsWith('allow'));

/**
 * Starts the agent with exactly `env` (give it a temp HOME: scriptEnv of test/helpers/clean-env.mjs).
 * @param {Record<string, string>} env
 * @param {(options: { optionId: string, kind: string }[]) => { optionId: string } | undefined} [choose] - the permission option to pick; default the first allow option
 * @returns {{ request: (method: string, params: object) => Promise<any>, close: () => Promise<void> }}
 */
export function startAgent(env, choose = allow) {
  const child = spawn(process.execPath, [CLI], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  let id = 0;
  const waiting = new Map();
  onJsonLines(child.stdout, (m) => {
    if (m.method === 'session/request_permission')
      child.stdin.write(
        line({
          jsonrpc: '2.0',
          id: m.id,
          result: { outcome: { outcome: 'selected', optionId: (choose(m.params.options) ?? allow(m.params.options))?.optionId } },
        }),
      );
    else if (m.method === undefined && waiting.has(m.id)) waiting.get(m.id)(m);
  });
  const request = (method, params) =>
    new Promise((resolve) => {
      waiting.set(++id, resolve);
      child.stdin.write(line({ jsonrpc: '2.0', id, method, params }));
    });
  const close = async () => {
    child.stdin.end();
    await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
  };
  return { request, close };
}

/**
 * One task in a new full-access session in `cwd`: initialize, session/new, the prompt `text`,
 * then the agent is closed. Resolves with the prompt's answer (`result` or `error`).
 */
export async function runTask(env, cwd, text) {
  const agent = startAgent(env);
  await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const { result } = await agent.request('session/new', { cwd, mcpServers: [] });
  await agent.request('session/set_mode', { sessionId: result.sessionId, modeId: 'full-access' });
  const answer = await agent.request('session/prompt', { sessionId: result.sessionId, prompt: [{ type: 'text', text }] });
  await agent.close();
  return answer;
}
