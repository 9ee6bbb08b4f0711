/**
 * Properties of `EndpointRegistry` model values over any endpoint ids and model ids (model ids
 * may contain `/`, as OpenRouter's `openai/gpt-4o` does).
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { EndpointRegistry, type NamedEndpointSettings } from '../../src/endpoints/endpoint-registry.js';
import { createLogger } from '../../src/shared/log.js';
import { endpointSettings } from '../../test/helpers/endpoint-settings.js';

const logger = createLogger({ level: 'error', write: () => undefined });

const settings = (id: string, model = 'm'): NamedEndpointSettings => endpointSettings(id, 'http://127.0.0.1:9/v1', { model, timeoutMs: 1000 });

/** Provider ids as the config file accepts them. */
const providerId = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,15}$/);
const ids = fc.uniqueArray(providerId, { minLength: 1, maxLength: 6 });
/**
 * The parts of model ids, built once: `modelId` runs inside `chain`, once per case, and a
 * `stringMatching` arbitrary costs far more to build than to draw from.
 */
const anyModel = fc.string({ minLength: 1, maxLength: 30 });
const modelSegment = fc.stringMatching(/^[a-z0-9.:-]{1,10}$/);
/** Model ids: anything non-empty, often with `/` segments that may even look like provider ids. */
const modelId = (known: string[]) =>
  fc.oneof(
    anyModel,
    fc.array(fc.oneof(fc.constantFrom(...known), modelSegment), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/')),
  );

it('resolve(valueOf(id, model)) gives back that endpoint and that model', () => {
  fc.assert(
    fc.property(
      ids.chain((list) => fc.tuple(fc.constant(list), fc.constantFrom(...list), modelId(list))),
      ([list, id, model]) => {
        const registry = new EndpointRegistry(
          list.map((i) => settings(i)),
          { logger },
        );
        const resolved = registry.resolve(registry.valueOf(id, model));
        expect(resolved?.endpoint.settings.id).toBe(id);
        expect(resolved?.model).toBe(model);
      },
    ),
  );
});

it('defaultValue() resolves to the first endpoint and its configured model', async () => {
  await fc.assert(
    fc.asyncProperty(
      ids.chain((list) => fc.tuple(fc.constant(list), modelId(list))),
      async ([list, model]) => {
        const registry = new EndpointRegistry(
          list.map((i, n) => settings(i, n === 0 ? model : 'other')),
          { logger },
        );
        const resolved = registry.resolve((await registry.defaultValue())!);
        expect(resolved?.endpoint.settings.id).toBe(list[0]);
        expect(resolved?.model).toBe(model);
      },
    ),
  );
});

it('any value resolves: to the endpoint its first segment names, else to the default endpoint unchanged', () => {
  fc.assert(
    fc.property(
      ids.chain((list) => fc.tuple(fc.constant(list), modelId(list))),
      ([list, value]) => {
        const registry = new EndpointRegistry(
          list.map((i) => settings(i)),
          { logger },
        );
        const resolved = registry.resolve(value)!;
        const slash = value.indexOf('/');
        const named = list.length > 1 && slash > 0 && list.includes(value.slice(0, slash));
        expect(resolved.endpoint.settings.id).toBe(named ? value.slice(0, slash) : list[0]);
        expect(resolved.model).toBe(named ? value.slice(slash + 1) : value);
        // and the value is rebuilt from what it resolved to
        expect(named ? registry.valueOf(resolved.endpoint.settings.id, resolved.model) : resolved.model).toBe(value);
      },
    ),
  );
});

it('set keeps the order of existing ids and appends new ones; disable removes exactly one', () => {
  const op = fc.oneof(
    providerId.map((id) => ({ kind: 'set' as const, id })),
    providerId.map((id) => ({ kind: 'disable' as const, id })),
  );
  fc.assert(
    fc.property(ids, fc.array(op, { maxLength: 15 }), (initial, ops) => {
      const registry = new EndpointRegistry(
        initial.map((i) => settings(i)),
        { logger },
      );
      let model = [...initial];
      for (const { kind, id } of ops) {
        if (kind === 'set') {
          registry.set(settings(id, `${id}-v${ops.length}`));
          if (!model.includes(id)) model.push(id);
          expect(registry.get(id)?.settings.model).toBe(`${id}-v${ops.length}`);
        } else {
          expect(registry.disable(id)).toBe(model.includes(id));
          model = model.filter((m) => m !== id);
        }
        expect(registry.list().map((e) => e.settings.id)).toEqual(model);
        expect(registry.size).toBe(model.length);
      }
    }),
  );
});
