/**
 * The verdicts of `openai-acp doctor`, kept pure: what the probes found becomes one line per
 * check (✓ passed, ✗ failed with a fix in plain words, ⚠ failed without stopping the agent, –
 * not applicable or not checked).
 */
import type { ConfigError } from '../config/config.js';
import { describeConfigProblems } from '../config/config.js';
import { ProviderConnectionError, ProviderHttpError, ProviderTimeoutError } from '../openai/errors.js';
import { describeProviderError } from '../openai/user-errors.js';
import { maskUrl } from './mask.js';
import { scrubSecrets } from '../redact.js';
import type { CompletionProbe, ModelsProbe } from './probes.js';
import { WINDOW_TITLE, windowLine, type WindowFacts } from './doctor-window.js';

/**
 * `pass` ✓, `fail` ✗ (the agent would not work), `warn` ⚠ (something is missing, but the agent
 * works: the model list, usage, reasoning effort), `skip` – (not applicable, or not checked
 * because an earlier check failed).
 */
type CheckStatus = 'pass' | 'fail' | 'warn' | 'skip';

/** The checks whose failure does not stop the agent: reported as ⚠, not ✗. */
const NON_BLOCKING: readonly string[] = ['model list (GET /models)', 'usage reported', 'reasoning effort accepted', WINDOW_TITLE];

/** One line of the report. */
export interface CheckLine {
  status: CheckStatus;
  /** The check's name, e.g. `endpoint answers`. */
  title: string;
  /** What was found, e.g. `HTTP 200 from http://127.0.0.1:11434/v1/models`. */
  detail: string;
  /** On `fail`: what to do, in plain words. */
  fix?: string;
}

/** The check names, in report order. */
const CHECK_TITLES = {
  config: 'configuration is valid',
  endpoint: 'endpoint answers',
  auth: 'authentication accepted',
  models: 'model list (GET /models)',
  completion: 'one-token streamed completion',
  usage: 'usage reported',
  reasoning: 'reasoning effort accepted',
} as const;

/** Whether and how reasoning effort was checked. */
export type ReasoningFacts = { kind: 'not-applicable'; why: string } | { kind: 'probed'; level: string; parameter: string; result: CompletionProbe };

/** Everything found about one endpoint. */
export interface EndpointFacts {
  /** The configured model id on this endpoint. */
  model: string;
  /** Where the key comes from, for fixes: `OPENAI_API_KEY`, or `apiKeyEnv` of the config file… */
  keySetting: string;
  /** Whether a key is sent. */
  hasKey: boolean;
  /** The base URL setting and its value, for fixes. */
  baseUrlSetting: string;
  baseUrl: string;
  /** Where the model is configured, for fixes: `OPENAI_MODEL` or the config file's `model`. */
  modelSetting: string;
  models: ModelsProbe;
  /** `undefined` when not attempted (the endpoint could not be reached). */
  completion: CompletionProbe | undefined;
  /** `undefined` when not checked (the completion failed). */
  reasoning: ReasoningFacts | undefined;
  /** Secret values to scrub from provider messages. */
  secrets: readonly string[];
  /** Keyless cloud credentials in use (`AWS SigV4 signature`, `Entra ID token`), and the fix when refused. */
  credentials?: { what: string; fix: string } | undefined;
  /** After a 404 of the completion: the base URL with `/v1` added, when that one lists models. */
  missingV1?: string | undefined;
  /** The context window found after a working completion; `undefined`: not checked (no line). */
  window?: WindowFacts | undefined;
}

/** A line of the report; `fix` only when there is one. */
export const line = (status: CheckStatus, title: string, detail: string, fix?: string): CheckLine =>
  fix ? { status, title, detail, fix } : { status, title, detail };
const isAuthStatus = (status: number | undefined) => status === 401 || status === 403;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The configuration check: ✓, or ✗ listing every invalid value. */
export function configCheck(error: ConfigError | undefined): CheckLine {
  if (!error) return line('pass', CHECK_TITLES.config, 'every setting is valid');
  return line(
    'fail',
    CHECK_TITLES.config,
    describeConfigProblems(error.problems).replace(/\n/g, ' '),
    'correct the values named above; until then every prompt only explains them',
  );
}

/** The lines of the network checks of one endpoint, and whether the agent would work with it. */
export function endpointChecks(facts: EndpointFacts): { lines: CheckLine[]; works: boolean } {
  const scrub = (text: string) =>
    scrubSecrets(
      text.replace(/https?:\/\/\S+/g, (url) => maskUrl(url)),
      facts.secrets,
    );
  const { models, completion } = facts;
  const completionHttp = completion && !completion.ok && completion.error instanceof ProviderHttpError;
  const modelsAnswered = models.kind === 'listed' || models.kind === 'empty' || models.kind === 'http-error';
  const answered =
    modelsAnswered || completion?.ok === true || completionHttp === true || (completion !== undefined && !completion.ok && completion.status !== undefined);
  const lines: CheckLine[] = [];

  // 1. The endpoint answers: with the API (a model list, a completion, or any status but 404), or only 404s (not the API at this path).
  const modelsFound = modelsAnswered && (models.kind !== 'http-error' || models.status !== 404);
  const completionFound =
    completion?.ok === true || (completion !== undefined && !completion.ok && completion.status !== undefined && completion.status !== 404);
  const apiAnswered = answered && (modelsFound || completionFound);
  if (apiAnswered) {
    const how = modelsFound ? `HTTP ${models.status} from ${maskUrl(models.url)}` : `answered ${facts.baseUrl}/chat/completions`;
    lines.push(line('pass', CHECK_TITLES.endpoint, how));
  } else if (answered) {
    const chatUrl = completion && !completion.ok ? maskUrl(completion.error.url) : undefined;
    const where = [models.kind === 'http-error' ? maskUrl(models.url) : undefined, chatUrl].filter(Boolean).join(' and ');
    const fix = facts.missingV1
      ? `add /v1 to ${facts.baseUrlSetting}: set it to ${facts.missingV1} (now ${facts.baseUrl}), whose /models answers`
      : `check ${facts.baseUrlSetting} (now ${facts.baseUrl}): it is the address before /models and /chat/completions, often ending in /v1`;
    lines.push(line('fail', CHECK_TITLES.endpoint, `HTTP 404 from ${where}: a server answers, but not the API at this path`, fix));
  } else {
    const failure = completion && !completion.ok ? completion.error : undefined;
    const detail =
      models.kind === 'unreachable'
        ? `cannot connect to ${maskUrl(models.url)} (${models.code ?? models.message})`
        : models.kind === 'timeout'
          ? `no answer from ${maskUrl(models.url)} within ${models.timeoutMs} ms`
          : failure
            ? scrub(failure.message)
            : 'no answer';
    const code = (models.kind === 'unreachable' ? models.code : undefined) ?? (failure instanceof ProviderConnectionError ? failure.code : undefined) ?? '';
    const tls = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(code);
    const dns = code === 'ENOTFOUND' || code === 'EAI_AGAIN';
    const fix = tls
      ? 'for a private certificate authority, point NODE_EXTRA_CA_CERTS at its PEM file'
      : dns
        ? `check the host name in ${facts.baseUrlSetting} (now ${facts.baseUrl}) and your network or proxy (HTTPS_PROXY)`
        : `start the server, or point ${facts.baseUrlSetting} at the right address (now ${facts.baseUrl})`;
    lines.push(line('fail', CHECK_TITLES.endpoint, detail, fix));
  }

  // 2. Authentication: refused when the completion (or, without a completion answer, /models) said 401/403.
  const completionStatus = completion && !completion.ok ? completion.status : undefined;
  const refusedStatus = isAuthStatus(completionStatus)
    ? completionStatus
    : completion?.ok !== true && models.kind === 'http-error' && isAuthStatus(models.status)
      ? models.status
      : undefined;
  let authOk = false;
  if (!answered) lines.push(line('skip', CHECK_TITLES.auth, 'not checked: the endpoint did not answer'));
  else if (!apiAnswered) lines.push(line('skip', CHECK_TITLES.auth, 'not checked: the API is not at this address'));
  else if (refusedStatus !== undefined) {
    const said =
      completion && !completion.ok && completion.error instanceof ProviderHttpError
        ? completion.error.providerMessage
        : models.kind === 'http-error'
          ? models.providerMessage
          : undefined;
    const fix = facts.credentials
      ? facts.credentials.fix
      : facts.hasKey
        ? `check the key in ${facts.keySetting}; if the endpoint wants another header (Azure's api-key), set the provider (OPENAI_PROVIDER) or OPENAI_HEADERS`
        : `no API key is set: set ${facts.keySetting}`;
    const what = facts.credentials
      ? `the endpoint refused the ${facts.credentials.what} (HTTP ${refusedStatus})`
      : facts.hasKey
        ? `the endpoint refused the key (HTTP ${refusedStatus})`
        : `the endpoint needs a key; ${facts.keySetting} is not set (HTTP ${refusedStatus})`;
    lines.push(line('fail', CHECK_TITLES.auth, `${what}${said ? `; it said: ${scrub(said)}` : ''}`, fix));
  } else {
    authOk = true;
    lines.push(
      line(
        'pass',
        CHECK_TITLES.auth,
        facts.credentials
          ? `the ${facts.credentials.what} was accepted`
          : facts.hasKey
            ? 'the key was accepted'
            : 'no key is set, and the endpoint did not ask for one',
      ),
    );
  }

  // 3. The model list.
  lines.push(modelsLine(facts, answered));

  // 4. The completion.
  let completionOk = false;
  if (!completion) lines.push(line('fail', CHECK_TITLES.completion, 'not attempted: the endpoint did not answer', 'fix the endpoint first (see above)'));
  else if (completion.ok) {
    completionOk = true;
    lines.push(line('pass', CHECK_TITLES.completion, `the model ${facts.model} answered (finish reason: ${completion.finishReason ?? 'none'})`));
  } else {
    const words = scrub(describeProviderError(completion.error, { model: facts.model, retries: 0, hasKey: facts.hasKey, missingV1: facts.missingV1 }));
    const fix =
      completion.error instanceof ProviderTimeoutError
        ? 'the endpoint is slow or stuck: try again, or raise --timeout-ms'
        : completion.error instanceof ProviderConnectionError
          ? `check ${facts.baseUrlSetting} (now ${facts.baseUrl}) and that the server is running`
          : completion.error instanceof ProviderHttpError && completion.error.status === 404 && facts.missingV1
            ? `add /v1 to ${facts.baseUrlSetting}: set it to ${facts.missingV1} (now ${facts.baseUrl}), whose /models answers`
            : completion.error instanceof ProviderHttpError && completion.error.status === 404
              ? `check ${facts.modelSetting} (now ${facts.model}); openai-acp models lists the ids the endpoint serves`
              : isAuthStatus(completion.status)
                ? 'see the authentication line above'
                : `check ${facts.modelSetting} (now ${facts.model}) and the provider's message above`;
    lines.push(line('fail', CHECK_TITLES.completion, words.replace(/\n/g, ' '), fix));
  }

  // 5. Usage.
  if (!completion?.ok) lines.push(line('skip', CHECK_TITLES.usage, 'not checked: the completion failed'));
  else if (completion.usage) {
    const u = completion.usage;
    const counts = [
      typeof u.prompt_tokens === 'number' ? `${u.prompt_tokens} prompt` : '',
      typeof u.completion_tokens === 'number' ? `${u.completion_tokens} completion` : '',
    ].filter(Boolean);
    lines.push(line('pass', CHECK_TITLES.usage, counts.length > 0 ? `${counts.join(' + ')} tokens` : 'a usage object arrived'));
  } else {
    lines.push(
      line(
        'fail',
        CHECK_TITLES.usage,
        'the stream carried no token counts',
        'nothing breaks, but editors show no token usage or context meter; a newer server version may send usage with stream_options.include_usage',
      ),
    );
  }

  // 6. The context window, runtime beside trained.
  if (facts.window) lines.push(windowLine(facts.window));

  // 7. Reasoning effort.
  lines.push(reasoningLine(facts, scrub));
  // What does not stop the agent is a warning, not a failure.
  for (const check of lines) if (check.status === 'fail' && NON_BLOCKING.includes(check.title)) check.status = 'warn';
  return { lines, works: answered && authOk && completionOk };
}

function modelsLine(facts: EndpointFacts, answered: boolean): CheckLine {
  const { models, model } = facts;
  const title = CHECK_TITLES.models;
  switch (models.kind) {
    case 'listed': {
      const has = models.models.some((m) => m.id === model);
      if (has) return line('pass', title, `${plural(models.models.length, 'model')}, including ${model}`);
      const some = models.models
        .slice(0, 5)
        .map((m) => m.id)
        .join(', ');
      return line(
        'fail',
        title,
        `${plural(models.models.length, 'model')}, but not ${model}`,
        `set ${facts.modelSetting} to one of ${some}${models.models.length > 5 ? ', …' : ''} (openai-acp models lists ` +
          'all); some endpoints serve models they do not list, so check the completion line',
      );
    }
    case 'empty':
      return line(
        'fail',
        title,
        `HTTP ${models.status}, but no model could be read from the answer`,
        'the model picker will offer only the configured model; list more ids in OPENAI_MODELS (or "models" in the config file)',
      );
    case 'http-error':
      return line(
        'fail',
        title,
        `HTTP ${models.status} from ${maskUrl(models.url)}`,
        isAuthStatus(models.status)
          ? 'see the authentication line'
          : 'the model picker will offer only the configured model; list more ids in OPENAI_MODELS (or "models" in the config file)',
      );
    case 'not-sent':
      return line('skip', title, 'this provider has no model list; the picker offers OPENAI_MODELS (or the config file\'s "models") and the configured model');
    default:
      return answered
        ? line(
            'fail',
            title,
            models.kind === 'timeout' ? `no answer within ${models.timeoutMs} ms` : `could not connect (${models.code ?? models.message})`,
            'the model picker will offer only the configured model; list more ids in OPENAI_MODELS',
          )
        : line('skip', title, 'not checked: the endpoint did not answer');
  }
}

function reasoningLine(facts: EndpointFacts, scrub: (text: string) => string): CheckLine {
  const title = CHECK_TITLES.reasoning;
  const { reasoning } = facts;
  if (!reasoning) return line('skip', title, 'not checked: the completion failed');
  if (reasoning.kind === 'not-applicable') return line('skip', title, reasoning.why);
  if (reasoning.result.ok) return line('pass', title, `${reasoning.parameter}=${reasoning.level} was accepted`);
  const words = scrub(describeProviderError(reasoning.result.error, { model: facts.model, retries: 0 })).replace(/\n/g, ' ');
  return line(
    'fail',
    title,
    `${reasoning.parameter}=${reasoning.level} was refused: ${words}`,
    'leave the reasoning-effort option at "default" for this model (the agent sends nothing then)',
  );
}

/** The mark of a status: `✓`, `✗`, `⚠` or `–`. */
function mark(status: CheckStatus): string {
  return status === 'pass' ? '✓' : status === 'fail' ? '✗' : status === 'warn' ? '⚠' : '–';
}

/** A note as text, `note: …` at `indent`, the lines after its first indented under its first word. Ends without a newline. */
export function renderNote(text: string, indent: string): string {
  return `${indent}note: ${text.split('\n').join(`\n${indent}      `)}`;
}

/** A check as text: `✓ title: detail`, and on failure or warning an indented `fix:` line. Ends without a newline. */
export function renderCheck(check: CheckLine, indent = '  '): string {
  const head = `${indent}${mark(check.status)} ${check.title}: ${check.detail}`;
  return check.fix ? `${head}\n${indent}    fix: ${check.fix}` : head;
}
