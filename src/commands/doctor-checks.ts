/**
 * The verdicts of `openai-acp doctor`, kept pure: what the probes found (`doctor-facts.ts`)
 * becomes one line per check (`doctor-lines.ts`: ✓ passed, ✗ failed with a fix in plain words, ⚠
 * failed without stopping the agent, – not applicable or not checked): the configuration, whether
 * the endpoint answers and accepts the credentials, then the model's lines
 * (`doctor-model-checks.ts`) and the window's (`doctor-window.ts`).
 */
import type { ConfigError } from '../config/config.js';
import { describeConfigProblems } from '../config/config.js';
import { ProviderConnectionError, ProviderHttpError } from '../openai/errors.js';
import { scrubSecrets } from '../shared/redact.js';
import type { EndpointFacts } from './doctor-facts.js';
import { CHECK_TITLES, isAuthStatus, line, NON_BLOCKING, type CheckLine } from './doctor-lines.js';
import { completionLine, modelsLine, reasoningLine, usageLine } from './doctor-model-checks.js';
import { windowLine } from './doctor-window.js';
import { maskUrl } from './mask.js';

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
  lines.push(completionLine(facts, scrub));

  // 5. Usage.
  lines.push(usageLine(completion));

  // 6. The context window, runtime beside trained.
  if (facts.window) lines.push(windowLine(facts.window));

  // 7. Reasoning effort.
  lines.push(reasoningLine(facts, scrub));
  // What does not stop the agent is a warning, not a failure.
  for (const check of lines) if (check.status === 'fail' && NON_BLOCKING.includes(check.title)) check.status = 'warn';
  return { lines, works: answered && authOk && completion?.ok === true };
}
