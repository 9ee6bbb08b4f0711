// The ACP registry's auth check, reproduced from its CI at
// agentclientprotocol/registry@3de1678346d1b37b6c3f07de503043ebcbb9cbdb: `.github/workflows/
// verify_agents.py --auth-check` (run by `build-registry.yml`, "Verify agent auth support") with
// `.github/workflows/client.py` (`run_auth_check`). Written here from those files' rules, not
// copied:
// - the npx entry is started as `npx --prefix <sandbox> --yes <package> <args>` in the sandbox,
//   with the runner's environment, `TERM=dumb` and `HOME=<sandbox>/auth-home` (an empty home: no
//   configuration, no keys) plus the entry's own `env`;
// - it is sent one `initialize` (protocol 1, client "ACP Registry Validator", terminal and fs
//   capabilities, `_meta: {terminal_output: true, "terminal-auth": true}`);
// - the first stdout line must come within the timeout (60 s there, `DEFAULT_AUTH_TIMEOUT`,
//   including the npx download), be JSON, not an error, and its `result.authMethods` must hold at
//   least one method of type `agent` or `terminal` (the type is the method's `type`, else
//   `terminal` or `agent` from its `_meta` key `terminal-auth` or `agent-auth`, else `agent`);
// - then stdin is closed and the agent terminated (2 s, then killed).
// Beyond their client, every stdout line up to the agent's exit must be a JSON-RPC message.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startAcpChild } from './acp-child.mjs';

/** Their handshake timeout, seconds → ms (`DEFAULT_AUTH_TIMEOUT` of verify_agents.py). */
const AUTH_TIMEOUT_MS = 60_000;

/** The `initialize` their client sends, as it sends it. */
export const AUTH_CHECK_INITIALIZE = {
  protocolVersion: 1,
  clientInfo: { name: 'ACP Registry Validator', version: '1.0.0' },
  clientCapabilities: { terminal: true, fs: { readTextFile: true, writeTextFile: true }, _meta: { terminal_output: true, 'terminal-auth': true } },
};

/** Each auth method with the type their client gives it. */
export function authMethodTypes(methods) {
  return (Array.isArray(methods) ? methods : []).map((method) => {
    const meta = method?._meta && typeof method._meta === 'object' ? method._meta : {};
    const type = method?.type || ('terminal-auth' in meta ? 'terminal' : 'agent-auth' in meta ? 'agent' : 'agent');
    return { id: method?.id ?? '', type };
  });
}

/**
 * Runs the auth check on the npx entry `npx` (`{package, args?, env?}`) in `sandbox` with the
 * runner's environment `env`. `launch` is the command and its arguments, by default theirs for an
 * npx entry (another only in tests). Resolves `{ ok, error?, methods, ms, lines, stderr }`; never rejects.
 */
export async function runAuthCheck({
  npx,
  sandbox,
  env,
  timeoutMs = AUTH_TIMEOUT_MS,
  launch = ['npx', '--prefix', sandbox, '--yes', npx.package, ...(npx.args ?? [])],
}) {
  const home = join(sandbox, 'auth-home');
  mkdirSync(home, { recursive: true });
  const started = Date.now();
  const agent = startAcpChild(launch[0], launch.slice(1), {
    cwd: sandbox,
    env: { ...env, TERM: 'dumb', HOME: home, ...(npx.env ?? {}) },
  });
  let outcome;
  try {
    agent.send({ id: 1, method: 'initialize', params: AUTH_CHECK_INITIALIZE });
    const first = await agent.nextLine(timeoutMs, 'initialize answer');
    const ms = Date.now() - started;
    const answer = JSON.parse(first.text);
    const methods = authMethodTypes(answer.result?.authMethods);
    if (answer.error) outcome = { ok: false, error: `Agent error: ${JSON.stringify(answer.error)}`, methods, ms };
    else if (methods.length === 0) outcome = { ok: false, error: 'No authMethods in response', methods, ms };
    else if (!methods.some((method) => method.type === 'agent' || method.type === 'terminal'))
      outcome = { ok: false, error: `No auth method with type 'agent' or 'terminal'. Found types: ${methods.map((m) => m.type).join(', ')}`, methods, ms };
    else outcome = { ok: true, methods, ms };
  } catch (error) {
    outcome = { ok: false, error: `Error during auth check: ${error.message}`, methods: [], ms: Date.now() - started };
  }
  await agent.close(2000);
  const stray = agent.lines.filter((line) => line.message === undefined);
  if (outcome.ok && stray.length > 0)
    outcome = { ...outcome, ok: false, error: `stdout carried a line that is not JSON-RPC: ${JSON.stringify(stray[0].text.slice(0, 120))}` };
  return { ...outcome, lines: agent.lines, stderr: agent.stderr() };
}
