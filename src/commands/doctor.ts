/**
 * `openai-acp doctor`: prints the configuration the agent would use (secrets masked), checks the
 * endpoint step by step through the agent's own request path (`doctor-facts.ts`), and says how to
 * fix what fails (`doctor-checks.ts`). Output goes to stdout (a terminal command, not ACP); every
 * network check is bounded in time.
 */
import { existsSync } from 'node:fs';
import { secretsOf, type CliFlags } from '../config/config.js';
import type { NamedEndpointSettings } from '../endpoints/endpoint-registry.js';
import { createLogger, type Logger } from '../shared/log.js';
import { redactText } from '../shared/redact.js';
import { VERSION } from '../shared/version.js';
import { configCheck, endpointChecks } from './doctor-checks.js';
import { describeEndpoint } from './doctor-endpoint.js';
import { checkEndpoint, type SettingNames } from './doctor-facts.js';
import { renderCheck, renderNote, type CheckLine } from './doctor-lines.js';
import { probeModels } from './probes.js';
import { cloudCredentialChecks } from './doctor-cloud.js';
import { chooseModel } from '../endpoints/default-model.js';
import { tryItLine } from './try-it.js';
import { LearnedFacts } from '../endpoints/learned-facts.js';
import { searchLine } from './doctor-search.js';
import { sandboxLines } from './doctor-sandbox.js';
import { resolveCommandConfig, type CommandConfig, type CommandRunOptions } from './resolve.js';
import { cloudKeyEndpoint, cloudOverLocalCheck, sourceLines } from './doctor-sources.js';
import { probeNearbyServers } from '../endpoints/container.js';
import { COMMAND_DISCOVERY_TIMEOUT_MS } from '../endpoints/local-discovery.js';

/** Default bound of each check, in ms. */
const DOCTOR_TIMEOUT_MS = 10_000;

/**
 * What `doctor` runs with (`timeoutMs` bounds each check, default {@link DOCTOR_TIMEOUT_MS});
 * `agentCommand` is the command the closing "Try it" line gives acpx. @defaultValue `openai-acp`
 */
export type DoctorOptions = CommandRunOptions & { agentCommand?: string | undefined };

/** Which settings to name in fixes for this endpoint. */
function settingNames(settings: NamedEndpointSettings, flags: CliFlags, resolved: CommandConfig): SettingNames {
  if (settings.source === 'config file') {
    const where = `provider "${settings.id}" in ${resolved.configFilePath ?? 'the config file'}`;
    return {
      key: `"apiKeyEnv" (the variable it names) or "apiKey" of ${where}`,
      baseUrl: `"baseUrl" of ${where}`,
      model: resolved.config.modelConfigured ? (flags.model ? '--model' : 'OPENAI_MODEL') : `"model" in ${resolved.configFilePath ?? 'the config file'}`,
      keyShown: '',
    };
  }
  return {
    key: 'OPENAI_API_KEY',
    baseUrl: flags.baseUrl ? '--base-url' : 'OPENAI_BASE_URL',
    model: flags.model ? '--model' : 'OPENAI_MODEL',
    keyShown: 'OPENAI_API_KEY',
  };
}

/**
 * A logger keeping what the checks note for the user (`info` and above): the words of each record,
 * secrets redacted; the fields, the log's detail for a collector, are left out.
 */
function noteTaker(secrets: readonly string[], notes: string[]): Logger {
  const note = (message: string) => void notes.push(redactText(message, secrets));
  return { level: 'info', error: note, warn: note, info: note, debug: () => undefined };
}

/** Why an endpoint's model is what it is, before any look at the endpoint. */
function namedWhy(settings: NamedEndpointSettings, flags: CliFlags, resolved: CommandConfig): string {
  if (
    resolved.config.modelConfigured &&
    (settings.source !== 'config file' || resolved.model?.endsWith(`/${settings.model}`) || resolved.model === settings.model)
  ) {
    return `set by ${flags.model ? '--model' : 'OPENAI_MODEL'}`;
  }
  if (settings.source === 'local server') return 'the first chat model the local server found lists';
  if (settings.source === 'config file') return 'from the config file';
  return 'the default for this provider; set OPENAI_MODEL to choose another';
}

/** Why a stand-in model is shown when the endpoint did not answer its model list (not "lists no model": it was never asked successfully). */
function standInUnanswered(settings: NamedEndpointSettings): string {
  const setting = settings.source === 'config file' ? '"models" of the provider in the config file' : 'OPENAI_MODEL';
  const unset = settings.source === 'config file' ? 'the provider has no "models" in the config file' : 'OPENAI_MODEL is not set';
  return `${unset} and the endpoint did not answer, so the stand-in ${settings.model} would be sent: start the server, or set ${setting}`;
}

/** What the failed "endpoint answers" line says when nothing is configured: the ports searched, how, and for how long. */
function noServerDetail(resolved: CommandConfig): string {
  const probes = resolved.discovery?.probes ?? [];
  const ports = probes
    .map((p) => `:${p.port} ${p.outcome === 'timeout' ? 'no answer in time' : p.outcome === 'unreachable' ? 'refused' : p.outcome}`)
    .join(', ');
  const waited = resolved.discovery?.waitedMs === undefined ? '' : ` (waited ${resolved.discovery.waitedMs} ms of ${resolved.discovery.timeoutMs} ms)`;
  return `no endpoint is configured, and no local server answered with a model on 127.0.0.1${ports ? `: ${ports}` : ''}${waited}`;
}

/**
 * Runs the doctor and returns the exit code: 0 when the agent would work (the configuration is
 * valid, and for every endpoint the endpoint answers, the key is accepted and a one-token
 * streamed completion works), 1 otherwise. Never throws for configuration or network problems.
 */
export async function runDoctor(options: DoctorOptions): Promise<number> {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const timeoutMs = options.timeoutMs ?? DOCTOR_TIMEOUT_MS;
  const print = (...lines: string[]) => write(`${lines.join('\n')}\n`);
  print(`openai-acp ${VERSION} doctor`, '');
  const resolved = await resolveCommandConfig({ flags: options.flags, env: options.env, cwd: options.cwd, discoveryTimeoutMs: options.timeoutMs });

  print('Configuration');
  const fileState = resolved.configFileRead
    ? ''
    : resolved.configFilePath && existsSync(resolved.configFilePath)
      ? ' (not used: see the configuration check)'
      : ' (absent)';
  print(`  config file       ${resolved.configFilePath ?? 'none'}${fileState}`);
  print(...sourceLines(resolved.sources, resolved.discovery));
  if (resolved.model) print(`  default model     ${resolved.model}`);
  for (const warning of resolved.warnings) print(renderNote(warning, '  '));
  // A key that sends the agent to the cloud while a local server answers: said, not silent.
  const cloud = cloudKeyEndpoint(resolved.endpoints, resolved.sources);
  const overridden =
    cloud &&
    cloudOverLocalCheck(
      cloud,
      resolved.sources,
      await probeNearbyServers({ timeoutMs: options.timeoutMs ?? COMMAND_DISCOVERY_TIMEOUT_MS, container: resolved.config.inContainer }),
    );
  if (overridden) print(renderCheck(overridden));
  const quiet = createLogger({ level: 'error', write: () => undefined });
  // What the checks learn (a refused parameter, a native API not served) holds for the whole run, as in the agent.
  const learned = new LearnedFacts();
  // A model left unnamed is the first chat model the endpoint lists: check the one the agent would use.
  const all = await Promise.all(
    resolved.endpoints.map(async (named) => {
      const choice = await chooseModel(named, namedWhy(named, options.flags, resolved), {
        logger: quiet,
        fetch: options.fetch,
        modelsTimeoutMs: timeoutMs,
        enabled: !resolved.configError,
      });
      const settings = { ...named, model: choice.model, modelIsStandIn: false };
      // A stand-in kept: did the endpoint list nothing, or not answer at all? The checks reuse the answer.
      const models =
        named.modelIsStandIn && choice.model === named.model && !resolved.configError
          ? await probeModels(settings, { logger: quiet, timeoutMs, fetch: options.fetch, cloudAuth: { env: options.env }, learned })
          : undefined;
      const why = models?.kind === 'unreachable' || models?.kind === 'timeout' ? standInUnanswered(named) : choice.why;
      return { settings, why, models, names: settingNames(settings, options.flags, resolved) };
    }),
  );
  if (!resolved.model && all[0]) print(`  default model     ${all[0].settings.model}`);
  print(await searchLine(resolved.config.ripgrep, options.env['PATH']));
  print(...sandboxLines(resolved.config, options.env));
  for (const { settings, names, why } of all) print(`  endpoint "${settings.id}" (${settings.source})`, ...describeEndpoint(settings, names.keyShown, why));
  print('', 'Checks');

  const config = configCheck(resolved.configError);
  print(renderCheck(config));
  let works = config.status === 'pass';
  let warned = overridden !== undefined;
  if (!works) {
    print('  – the endpoint was not checked: fix the configuration first', '', 'Result: the agent would not work; fix the ✗ lines above.');
    return 1;
  }
  if (all.length === 0) {
    const none: CheckLine = {
      status: 'fail',
      title: 'endpoint answers',
      detail: noServerDetail(resolved),
      fix: 'run openai-acp setup, or set OPENAI_BASE_URL (and OPENAI_API_KEY), or start a local server (or wait longer for one: --timeout-ms)',
    };
    print(renderCheck(none), '', 'Result: the agent would not work; fix the ✗ lines above.');
    return 1;
  }
  for (const { settings, names, models } of all) {
    if (all.length > 1) print(`  endpoint "${settings.id}"`);
    const notes: string[] = [];
    const logger = noteTaker(secretsOf(settings), notes);
    const cloud = await cloudCredentialChecks(settings, { env: options.env, timeoutMs });
    for (const check of cloud) print(renderCheck(check, all.length > 1 ? '    ' : '  '));
    if (cloud.some((check) => check.status === 'fail')) {
      // Without credentials nothing can be sent: the endpoint checks would only repeat the failure.
      print(`${all.length > 1 ? '    ' : '  '}– the endpoint was not checked: fix the credentials first`);
      works = false;
      continue;
    }
    const facts = await checkEndpoint(
      settings,
      names,
      { logger, timeoutMs, fetch: options.fetch, cloudAuth: { env: options.env }, learned },
      resolved.config.contextWindow,
      models,
    );
    const result = endpointChecks(facts);
    for (const check of result.lines) print(renderCheck(check, all.length > 1 ? '    ' : '  '));
    warned ||= result.lines.some((check) => check.status === 'warn');
    // Each check builds its own endpoint, so a once-per-endpoint note can come once per check: say it once.
    for (const note of new Set(notes)) print(renderNote(note, all.length > 1 ? '    ' : '  '));
    if (facts.ollama) print(...facts.ollama);
    if (facts.llamacpp) print(...facts.llamacpp);
    if (facts.loaded.length > 0) print(...facts.loaded);
    works &&= result.works;
  }
  const tryIt = tryItLine(options.env, options.flags, options.agentCommand ?? 'openai-acp');
  print(
    '',
    works
      ? `Result: the agent would work${warned ? ' (the ⚠ lines are worth a look)' : ''}. ${tryIt}`
      : 'Result: the agent would not work; fix the ✗ lines above.',
  );
  return works ? 0 : 1;
}
