/**
 * `openai-acp models`: the endpoint's models, one id per line (with the context window when the
 * endpoint reports it), read through the agent's own model catalog. With several endpoints (a
 * config file), ids are the model values the picker uses: `providerId/modelId`.
 */
import { secretsOf } from '../config/config.js';
import { createLogger } from '../shared/log.js';
import { maskUrl } from './mask.js';
import { scrubSecrets } from '../shared/redact.js';
import { probeModels, type ModelsProbe } from './probes.js';
import { resolveCommandConfig, type CommandRunOptions } from './resolve.js';

/** Default bound of the request, in ms. */
const MODELS_COMMAND_TIMEOUT_MS = 10_000;

/** What `models` runs with (`timeoutMs` bounds the request, default {@link MODELS_COMMAND_TIMEOUT_MS}). */
export interface ModelsCommandOptions extends CommandRunOptions {
  /** Receives problems. @defaultValue `process.stderr.write` */
  writeError?: ((text: string) => void) | undefined;
}

/** Why the list could not be read, in plain words with a fix; `undefined` when it was read. */
export function modelsProblem(probe: ModelsProbe): string | undefined {
  if ('url' in probe) probe = { ...probe, url: maskUrl(probe.url) };
  switch (probe.kind) {
    case 'listed':
      return undefined;
    case 'empty':
      return `${probe.url} answered HTTP ${probe.status} but listed no model.`;
    case 'http-error': {
      const said = probe.providerMessage ? ` The endpoint said: ${probe.providerMessage}` : '';
      const fix =
        probe.status === 401 || probe.status === 403
          ? ' Check the API key (OPENAI_API_KEY).'
          : probe.status === 404
            ? ' This endpoint may have no model list; set OPENAI_MODELS to the ids you use.'
            : '';
      return `${probe.url} answered HTTP ${probe.status}.${fix}${said}`;
    }
    case 'unreachable':
      return `cannot connect to ${probe.url} (${probe.code ?? probe.message}). Is the server running? Check OPENAI_BASE_URL.`;
    case 'timeout':
      return `no answer from ${probe.url} within ${probe.timeoutMs} ms. Try again, or raise --timeout-ms.`;
    case 'not-sent':
      return 'this provider has no model list (GET /models); set OPENAI_MODELS to the ids you use.';
  }
}

/**
 * Prints the models and returns the exit code: 0 when every endpoint's list was read, 1 when one
 * could not be read (the reason goes to stderr) or the configuration is invalid.
 */
export async function runModels(options: ModelsCommandOptions): Promise<number> {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const writeError = options.writeError ?? ((text: string) => void process.stderr.write(text));
  const resolved = await resolveCommandConfig({ flags: options.flags, env: options.env, cwd: options.cwd, discoveryTimeoutMs: options.timeoutMs });
  if (resolved.configError) {
    writeError(`openai-acp: invalid configuration:\n${resolved.configError.message.replace(/^invalid configuration:\n/, '')}\n`);
    return 1;
  }
  if (resolved.endpoints.length === 0) {
    writeError('openai-acp: no endpoint is configured and no local server answered. Run openai-acp setup, or set OPENAI_BASE_URL.\n');
    return 1;
  }
  const several = resolved.endpoints.length > 1;
  let code = 0;
  for (const settings of resolved.endpoints) {
    const logger = createLogger({ level: 'error', secrets: secretsOf(settings), write: (line) => writeError(line) });
    const probe = await probeModels(settings, { logger, timeoutMs: options.timeoutMs ?? MODELS_COMMAND_TIMEOUT_MS, fetch: options.fetch });
    const problem = modelsProblem(probe);
    if (problem !== undefined || probe.kind !== 'listed') {
      writeError(`openai-acp: cannot read the model list${several ? ` of "${settings.id}"` : ''}: ${scrubSecrets(problem ?? '', secretsOf(settings))}\n`);
      code = 1;
      continue;
    }
    const ids = probe.models.map((model) => (several ? `${settings.id}/${model.id}` : model.id));
    const width = Math.max(...ids.map((id) => id.length));
    const lines = probe.models.map((model, i) => {
      const id = ids[i]!;
      return model.contextWindow ? `${id.padEnd(width)}  ${model.contextWindow} tokens context` : id;
    });
    write(`${lines.join('\n')}\n`);
  }
  return code;
}
