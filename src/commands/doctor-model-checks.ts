/**
 * The `openai-acp doctor` lines about the model of one endpoint, from what was found
 * (`doctor-facts.ts`): whether its model list has the model, whether a one-token completion
 * worked (with a fix for each way it fails), whether usage was reported and whether reasoning
 * effort was accepted. Pure.
 */
import { ProviderConnectionError, ProviderHttpError, ProviderTimeoutError } from '../openai/errors.js';
import { describeProviderError } from '../openai/user-errors.js';
import type { EndpointFacts } from './doctor-facts.js';
import { CHECK_TITLES, isAuthStatus, line, type CheckLine } from './doctor-lines.js';
import { maskUrl } from './mask.js';
import type { CompletionProbe } from './probes.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The model-list line: ✓ when the list has the model; a stand-in picker explained otherwise; – when the endpoint did not answer (`answered`). */
export function modelsLine(facts: EndpointFacts, answered: boolean): CheckLine {
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

/** The completion line: ✓ with the finish reason, or ✗ with the provider's words (`scrub`bed of secrets) and the fix for that failure. */
export function completionLine(facts: EndpointFacts, scrub: (text: string) => string): CheckLine {
  const { completion } = facts;
  if (!completion) return line('fail', CHECK_TITLES.completion, 'not attempted: the endpoint did not answer', 'fix the endpoint first (see above)');
  if (completion.ok) return line('pass', CHECK_TITLES.completion, `the model ${facts.model} answered (finish reason: ${completion.finishReason ?? 'none'})`);
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
  return line('fail', CHECK_TITLES.completion, words.replace(/\n/g, ' '), fix);
}

/** The usage line: the token counts the completion's stream reported; – when the completion failed. */
export function usageLine(completion: CompletionProbe | undefined): CheckLine {
  if (!completion?.ok) return line('skip', CHECK_TITLES.usage, 'not checked: the completion failed');
  if (completion.usage) {
    const u = completion.usage;
    const counts = [
      typeof u.prompt_tokens === 'number' ? `${u.prompt_tokens} prompt` : '',
      typeof u.completion_tokens === 'number' ? `${u.completion_tokens} completion` : '',
    ].filter(Boolean);
    return line('pass', CHECK_TITLES.usage, counts.length > 0 ? `${counts.join(' + ')} tokens` : 'a usage object arrived');
  }
  return line(
    'fail',
    CHECK_TITLES.usage,
    'the stream carried no token counts',
    'nothing breaks, but editors show no token usage or context meter; a newer server version may send usage with stream_options.include_usage',
  );
}

/** The reasoning-effort line: ✓ accepted, ✗ refused (the provider's words `scrub`bed), – not applicable or not checked. */
export function reasoningLine(facts: EndpointFacts, scrub: (text: string) => string): CheckLine {
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
