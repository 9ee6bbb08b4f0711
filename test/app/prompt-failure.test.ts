/**
 * The answer of a turn: a successful or cancelled one as the runner made it, a failed one as a
 * JSON-RPC error (-32603, the kind of failure in `data`) whose message is the failure in the
 * user's words, never the SDK's generic `Internal error: ` prefix.
 */
import type { PromptResponse } from '@agentclientprotocol/sdk/unstable';
import { describe, expect, it } from 'vitest';
import { promptResponse } from '../../src/app/prompt-failure.js';
import type { ErrorMeta } from '../../src/openai/failure-facts.js';

const failed = (error: ErrorMeta, stopReason: PromptResponse['stopReason'] = 'end_turn'): PromptResponse => ({
  stopReason,
  usage: { inputTokens: 3, outputTokens: 0, totalTokens: 3 },
  _meta: { 'openai-acp': { error } },
});

/** What `promptResponse` threw for `response`. */
function thrown(response: PromptResponse): { code: number; message: string; data: unknown } {
  try {
    promptResponse(response);
  } catch (error) {
    const { code, message, data } = error as { code: number; message: string; data: unknown };
    return { code, message, data };
  }
  throw new Error('did not throw');
}

describe('promptResponse', () => {
  it('returns a successful answer as it is: stop reason, usage and _meta untouched', () => {
    for (const stopReason of ['end_turn', 'max_tokens', 'max_turn_requests', 'refusal'] as const) {
      const response: PromptResponse = { stopReason, usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 }, _meta: { other: true } };
      expect(promptResponse(response)).toBe(response);
    }
    expect(promptResponse({ stopReason: 'end_turn' })).toEqual({ stopReason: 'end_turn' });
  });

  it('returns a cancelled turn as cancelled, even one that carries a failure', () => {
    const response = failed({ kind: 'connection', retryable: true }, 'cancelled');
    expect(promptResponse(response)).toBe(response);
  });

  it.each<[ErrorMeta, string]>([
    [{ kind: 'connection', retryable: false }, 'the endpoint could not be reached'],
    [{ kind: 'http', status: 401, retryable: false }, 'the endpoint answered HTTP 401'],
    [{ kind: 'http', status: 404, retryable: false }, 'the endpoint answered HTTP 404'],
    [{ kind: 'http', retryable: false }, 'the endpoint rejected the request'],
    [{ kind: 'timeout', retryable: true }, 'the endpoint sent nothing for too long'],
    [{ kind: 'stream', retryable: true }, "the endpoint's answer broke off"],
    [{ kind: 'provider', status: 503, retryable: true }, 'the provider reported an error (HTTP 503)'],
    [{ kind: 'config', retryable: false }, 'the model request could not be sent as set up'],
    [{ kind: 'internal', retryable: false }, 'openai-acp failed'],
    [{ kind: 'loop', retryable: false }, 'the turn was stopped: the model kept asking for tools'],
  ])('a failed turn without words (%o) is -32603 with its summary as a sentence and the failure as data', (error, summary) => {
    expect(thrown(failed(error))).toEqual({ code: -32603, message: `${summary[0]!.toUpperCase()}${summary.slice(1)}.`, data: error });
  });

  it('a failed turn with words is -32603 with the words as its message (once, no generic prefix), the facts in data without them', () => {
    const words = 'The endpoint had a server error (HTTP 500) after 2 retries at http://127.0.0.1:9/v1/chat/completions. Try again later.';
    const answer = thrown(failed({ kind: 'http', status: 500, retryable: true, message: words }));
    expect(answer).toEqual({ code: -32603, message: words, data: { kind: 'http', status: 500, retryable: true } });
    expect(answer.message).not.toMatch(/internal error/i);
  });

  it('a failed turn with any stop reason but cancelled is a failure', () => {
    expect(thrown(failed({ kind: 'stream', retryable: true }, 'max_tokens')).code).toBe(-32603);
  });
});
