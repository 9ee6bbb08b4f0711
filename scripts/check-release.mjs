// `npm run check:release`: the package installed the way ACP clients install agents, proven on
// this machine. It packs the package, publishes the tarball to an npm registry on 127.0.0.1
// (verdaccio with no uplink: nothing leaves this machine), then, from an empty npm cache and an
// empty HOME, runs exactly the command registry/agent.json describes (`npx openai-acp@<version>
// acp`, through that registry) and holds an ACP session with it against a model on 127.0.0.1
// (initialize → session/new → session/prompt); and runs the ACP registry's own checks on that
// entry and that install (scripts/release/registry-entry.mjs, registry-auth-check.mjs). The
// registry, the caches and the homes live in one temp directory, removed at the end whatever
// happened. Exit status 0 when every check passed, 1 otherwise; a line per check on stdout.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanEnv } from '../test/helpers/clean-env.mjs';
import { startAcpChild } from './release/acp-child.mjs';
import { MODEL_ANSWER, startLoopbackRegistry, startMockModel } from './release/loopback-services.mjs';
import { runAuthCheck } from './release/registry-auth-check.mjs';
import { entryProblems, iconProblems, npmPackageExists, REGISTRY_COMMIT } from './release/registry-entry.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const entry = JSON.parse(readFileSync(join(ROOT, 'registry', 'agent.json'), 'utf8'));
const icon = readFileSync(join(ROOT, 'registry', 'icon.svg'), 'utf8');
/** The longest wait for one answer of the agent started through npx (its download included), ms. */
const ANSWER_TIMEOUT_MS = 60_000;

const started = Date.now();
const work = mkdtempSync(join(tmpdir(), 'openai-acp-release-'));
const cleanups = [() => rmSync(work, { recursive: true, force: true })];
let failed = false;
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const lineCount = (lines) => `${lines.length} stdout ${lines.length === 1 ? 'line' : 'lines'}`;
const report = (ok, what, detail = '') => {
  failed ||= !ok;
  process.stdout.write(`  ${ok ? '✓' : '✗'} ${what}${detail ? `: ${detail}` : ''}\n`);
};

/**
 * The environment of everything started here, with `home` as its HOME: test/helpers/clean-env.mjs's
 * (this one without what points at the user's own setup: `OPENAI_*`, keys, proxies; the `XDG_*`
 * directories under `home`), without what `npm run` adds (`npm_*` settings such as its cache and
 * userconfig, and the project's `node_modules/.bin` on the PATH), plus `extra`.
 */
function runnerEnv(home, extra) {
  const env = Object.fromEntries(Object.entries(cleanEnv(home)).filter(([key]) => !/^npm_|^INIT_CWD$/i.test(key)));
  env.PATH = (env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !/[\\/]node_modules[\\/]\.bin$/.test(dir))
    .join(delimiter);
  return { ...env, npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false', ...extra };
}

/** Runs `npm args` in `cwd`; resolves its stdout. Never synchronously: the registry npm talks to runs in this process. */
async function npm(args, cwd, env) {
  return (await promisify(execFile)('npm', args, { cwd, env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 })).stdout;
}

/** Packs the package as `npm publish` would (prepack builds dist/ unless it was built from the same inputs); resolves the tarball's path and its facts. */
async function pack(env) {
  const [packed] = JSON.parse(await npm(['pack', '--json', '--pack-destination', work], ROOT, env));
  const manifest = JSON.parse(execFileSync('tar', ['-xOzf', join(work, packed.filename), 'package/package.json'], { encoding: 'utf8' }));
  return { tarball: join(work, packed.filename), files: packed.entryCount, bytes: packed.size, manifest };
}

/** An ACP session with the agent `npx openai-acp@<version> acp` starts: initialize → session/new → session/prompt. */
async function useInstalledAgent(registryUrl, model) {
  const home = join(work, 'user-home');
  const project = join(work, 'project');
  mkdirSync(home);
  mkdirSync(project);
  const env = runnerEnv(home, { npm_config_registry: `${registryUrl}/`, OPENAI_BASE_URL: model.baseUrl });
  const command = ['npx', entry.distribution.npx.package, ...(entry.distribution.npx.args ?? [])];
  const agent = startAcpChild(command[0], command.slice(1), { cwd: project, env });
  cleanups.unshift(() => agent.close(1000));
  const t0 = Date.now();
  try {
    const init = await agent.request(
      'initialize',
      { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true } },
      ANSWER_TIMEOUT_MS,
    );
    const version = init.result?.agentInfo?.version;
    if (version !== pkg.version) throw new Error(`initialize answered ${JSON.stringify(init.error ?? init.result?.agentInfo)}`);
    const firstAnswerMs = Date.now() - t0;
    const created = await agent.request('session/new', { cwd: project, mcpServers: [] }, ANSWER_TIMEOUT_MS);
    const sessionId = created.result?.sessionId;
    if (typeof sessionId !== 'string') throw new Error(`session/new answered ${JSON.stringify(created.error ?? created.result)}`);
    const answer = await agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Say hello' }] }, ANSWER_TIMEOUT_MS);
    const said = agent.lines
      .map((line) => line.message?.params?.update)
      .filter((update) => update?.sessionUpdate === 'agent_message_chunk')
      .map((update) => update.content.text)
      .join('');
    if (answer.result?.stopReason !== 'end_turn' || said !== MODEL_ANSWER || model.requests === 0)
      throw new Error(`session/prompt answered ${JSON.stringify(answer.error ?? answer.result)} after ${JSON.stringify(said)}`);
    const exit = await agent.close();
    const stray = agent.lines.filter((line) => line.message === undefined);
    if (stray.length > 0) throw new Error(`stdout carried a line that is not JSON-RPC: ${JSON.stringify(stray[0].text.slice(0, 120))}`);
    report(
      true,
      `\`${command.join(' ')}\` (empty npm cache and HOME, through the loopback registry)`,
      [
        `initialize answered in ${seconds(firstAnswerMs)} (download included) by ${init.result.agentInfo.name} ${version}`,
        'session/new',
        `session/prompt streamed "${said}" and ended end_turn`,
        `${lineCount(agent.lines)}, all JSON-RPC`,
        `exit ${exit} on stdin EOF`,
      ].join('; '),
    );
  } catch (error) {
    report(false, `\`${command.join(' ')}\``, `${error.message}\n${agent.stderr().trim().split('\n').slice(-15).join('\n')}`);
  }
}

/** The ACP registry's own checks on the entry and the install. */
async function registryChecks(registryUrl) {
  process.stdout.write(`ACP registry checks (agentclientprotocol/registry@${REGISTRY_COMMIT.slice(0, 7)}):\n`);
  const problems = entryProblems(entry, pkg.name);
  report(
    problems.length === 0,
    'registry/agent.json: agent.schema.json and build_registry.py validate_agent and validate_distribution_versions',
    problems.join('; ') || `id ${entry.id}, version ${entry.version}, npx ${entry.distribution.npx.package} ${JSON.stringify(entry.distribution.npx.args)}`,
  );
  const inStep = entry.id === pkg.name && entry.version === pkg.version && entry.distribution.npx.package === `${pkg.name}@${pkg.version}`;
  report(inStep, 'registry/agent.json names this package and version', `${pkg.name}@${pkg.version}`);
  const iconIssues = iconProblems(icon);
  report(iconIssues.length === 0, 'registry/icon.svg: build_registry.py validate_icon', iconIssues.join('; ') || '16×16, square, monochrome in currentColor');
  const exists = await npmPackageExists(registryUrl, entry.distribution.npx.package).catch(() => false);
  report(exists, 'build_registry.py validate_distribution_urls (the package is on the registry; asked of the loopback one)', `${registryUrl}/${pkg.name}`);
  const sandbox = join(work, 'sandbox', 'npx', entry.id);
  mkdirSync(sandbox, { recursive: true });
  const auth = await runAuthCheck({
    npx: entry.distribution.npx,
    sandbox,
    env: runnerEnv(join(sandbox, 'auth-home'), { npm_config_registry: `${registryUrl}/` }),
  });
  report(
    auth.ok,
    'verify_agents.py --auth-check (client.py run_auth_check)',
    auth.ok
      ? `initialize answered in ${seconds(auth.ms)} (limit 60 s, download included) with ${auth.methods.map((m) => `${m.id}(${m.type})`).join(', ')}; ` +
          `${lineCount(auth.lines)}, all JSON-RPC`
      : `${auth.error}\n${auth.stderr.trim().split('\n').slice(-15).join('\n')}`,
  );
}

async function main() {
  process.stdout.write(`check:release: ${pkg.name}@${pkg.version} through a registry on 127.0.0.1\n`);
  const registry = await startLoopbackRegistry(join(work, 'registry'));
  cleanups.unshift(() => registry.close());
  const model = await startMockModel();
  cleanups.unshift(() => model.close());
  if (new URL(registry.url).hostname !== '127.0.0.1') throw new Error(`refusing to publish to ${registry.url}`);

  const publisher = join(work, 'publisher-home');
  mkdirSync(publisher);
  const token = await registry.addUser('release-check', 'release-check-password');
  const userconfig = join(work, 'publisher.npmrc');
  writeFileSync(userconfig, `registry=${registry.url}/\n//${new URL(registry.url).host}/:_authToken=${token}\n`);
  const publishEnv = runnerEnv(publisher, { npm_config_userconfig: userconfig, npm_config_cache: join(work, 'publisher-cache') });
  let t0 = Date.now();
  const packed = await pack(publishEnv);
  report(true, `npm pack`, `${packed.tarball.split('/').at(-1)}, ${packed.files} files, ${(packed.bytes / 1e6).toFixed(1)} MB, in ${seconds(Date.now() - t0)}`);
  // Only the loopback registry: a publishConfig naming another would take precedence.
  if (packed.manifest.publishConfig?.registry)
    throw new Error(`the packed package.json sets publishConfig.registry (${packed.manifest.publishConfig.registry})`);
  t0 = Date.now();
  await npm(['publish', packed.tarball, '--registry', `${registry.url}/`, '--tag', 'latest'], work, publishEnv);
  report(true, 'npm publish to the loopback registry', `${registry.url}, in ${seconds(Date.now() - t0)}`);

  await useInstalledAgent(registry.url, model);
  await registryChecks(registry.url);
}

async function cleanUp() {
  for (const cleanup of cleanups.splice(0)) await Promise.resolve(cleanup()).catch(() => undefined);
}
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => void cleanUp().then(() => process.exit(1)));

try {
  await main();
} catch (error) {
  report(false, 'release check', error.stderr ? `${error.message}\n${error.stderr}` : (error.stack ?? String(error)));
} finally {
  await cleanUp();
}
process.stdout.write(
  `${failed ? 'Result: FAILED' : 'Result: every check passed'} in ${seconds(Date.now() - started)}; the registry, caches and homes are removed.\n`,
);
process.exit(failed ? 1 : 0);
