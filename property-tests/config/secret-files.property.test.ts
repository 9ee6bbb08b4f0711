/**
 * Secrets from files: whatever the file holds (or however reading it fails), and whether the
 * setting is also set, `loadConfig` throws only `ConfigError`, never shows a file's content in its
 * message, and a file value equals the same text given directly, less one trailing newline.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, type Config } from '../../src/config/config.js';
import { loadConfig } from '../../src/config/load-config.js';

/** What loading gives: the config, or the error (only ConfigError may be thrown). */
function load(env: Record<string, string | undefined>, read: (path: string) => string): Config | ConfigError {
  try {
    return loadConfig(env, {}, read);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
}

const content = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.string({ maxLength: 60 }).map((s) => `${s}\n`),
  fc.string({ maxLength: 60 }).map((s) => `${s}\r\n`),
);
const failure = fc.constantFrom('ENOENT', 'EACCES', 'EISDIR', undefined);

describe('OPENAI_API_KEY_FILE and OPENAI_HEADERS_FILE', () => {
  it('throw only ConfigError, never with the file content in the message', () => {
    fc.assert(
      fc.property(content, content, fc.option(failure, { nil: null }), fc.boolean(), (key, headers, fails, alsoDirect) => {
        const marker = 'zz-secret-marker-zz';
        const read = (path: string) => {
          if (fails !== null) throw Object.assign(new Error('no'), fails ? { code: fails } : {});
          return path.endsWith('key') ? `${marker}${key}` : `${marker}${headers}`;
        };
        const env = {
          OPENAI_API_KEY_FILE: '/run/secrets/key',
          OPENAI_HEADERS_FILE: '/run/secrets/headers',
          ...(alsoDirect ? { OPENAI_API_KEY: 'direct' } : {}),
        };
        const result = load(env, read);
        if (result instanceof ConfigError) expect(result.message).not.toContain(marker);
        if (alsoDirect || fails !== null) expect(result).toBeInstanceOf(ConfigError);
      }),
    );
  });

  it('a key from a file is the same key given directly, less one trailing newline', () => {
    fc.assert(
      fc.property(content, (text) => {
        const fromFile = load({ OPENAI_API_KEY_FILE: '/k' }, () => text);
        const direct = load({ OPENAI_API_KEY: text.replace(/\r?\n$/, '') }, () => '');
        const key = (r: Config | ConfigError) => (r instanceof ConfigError ? `error: ${r.problems.map((p) => p.problem).join()}` : r.apiKey);
        expect(key(fromFile)).toBe(key(direct));
      }),
    );
  });
});
