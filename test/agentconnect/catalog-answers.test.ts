/**
 * The provider and model answers over a scripted catalog: the endpoint's state kept for 8 s (the
 * reference host's `statusCacheTtlMs`), asked again after, at once when forced, and a model id
 * the endpoints do not list refused with the list.
 */
import { describe, expect, it } from 'vitest';
import type { AgentCatalog, ModelInfo } from '../../src/acp/agent.js';
import { CatalogAnswers, STATUS_TTL_MS, unknownModel } from '../../src/agentconnect/catalog-answers.js';
import { createLogger } from '../../src/shared/log.js';

const quiet = createLogger({ level: 'error', write: () => undefined });

/** A catalog whose endpoint is up or down as the test sets it; `asked` counts the looks at it. */
function scriptedCatalog(models: ModelInfo[]) {
  const state = { up: true, asked: 0, list: models };
  const catalog: AgentCatalog = {
    models: async () => state.list,
    defaultModel: async () => state.list[0]?.id,
    window: async () => undefined,
    status: async (options) => {
      if (options?.recheck) state.asked++;
      return { configured: true, answers: state.up };
    },
  };
  return { catalog, state };
}

describe('CatalogAnswers', () => {
  it('follows the endpoint: its state kept for 8 s, asked again after, at once when forced or logged in', async () => {
    const { catalog, state } = scriptedCatalog([{ id: 'a' }]);
    let now = 1_000_000;
    const answers = new CatalogAnswers(catalog, '1.0.0', quiet, () => now);
    const status = async (options?: unknown) =>
      ((await answers.provider('acp.providers.status', { provider: 'local', options })) as { provider: { loggedIn: boolean } }).provider.loggedIn;
    expect(await status()).toBe(true);
    state.up = false;
    now += STATUS_TTL_MS - 1;
    expect(await status()).toBe(true);
    expect(state.asked).toBe(1);
    now += 1;
    expect(await status()).toBe(false);
    state.up = true;
    expect(await status({ force: true })).toBe(true);
    state.up = false;
    expect(await answers.provider('acp.providers.login', { provider: 'local' })).toEqual({ loggedIn: false });
    expect(state.asked).toBe(4);
  });

  it('refuses a model the endpoints do not list, naming those they do (after asking the endpoint again)', async () => {
    const { catalog, state } = scriptedCatalog([{ id: 'a' }, { id: 'b' }]);
    const answers = new CatalogAnswers(catalog, '1.0.0', quiet);
    await expect(answers.checkModel('b')).resolves.toBeUndefined();
    await expect(answers.checkModel('nope')).rejects.toMatchObject({ code: 'AC_ERR_INVALID_ARGS', message: 'Unknown model "nope": this host offers a, b' });
    expect(state.asked).toBe(1);
    // A model the server has now is found once asked again.
    const grows = scriptedCatalog([{ id: 'a' }]);
    const later = new CatalogAnswers(grows.catalog, '1.0.0', quiet);
    grows.catalog.status = async () => {
      grows.state.list = [{ id: 'a' }, { id: 'new' }];
      return { configured: true, answers: true };
    };
    await expect(later.checkModel('new')).resolves.toBeUndefined();
  });

  it('names at most 20 models, then how many more the list has', () => {
    const ids = Array.from({ length: 25 }, (_, i) => `m${i}`);
    expect(unknownModel('x', ids).message).toBe(`Unknown model "x": this host offers ${ids.slice(0, 20).join(', ')} and 5 more (acp.models.list)`);
    expect(unknownModel('x', []).message).toBe('Unknown model "x": this host lists no model');
  });
});
