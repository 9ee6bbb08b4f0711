/** `OPENAI_API_KEY_FILE` and `OPENAI_HEADERS_FILE`: secrets read from files (Docker, Kubernetes). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySecretFiles, secretFilePaths, takeSecretsFromEnvironment } from '../../src/config/secret-files.js';
import { ConfigError } from '../../src/config/config.js';
import { loadConfig } from '../../src/config/load-config.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'secret-files-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

describe('applySecretFiles', () => {
  it('puts the file content in the setting, one trailing newline stripped', () => {
    const { env, problems } = applySecretFiles({
      OPENAI_API_KEY_FILE: file('key', 'sk-from-file\n'),
      OPENAI_HEADERS_FILE: file('headers', '{"x-team":"a"}\r\n'),
    });
    expect(problems).toEqual([]);
    expect(env['OPENAI_API_KEY']).toBe('sk-from-file');
    expect(env['OPENAI_HEADERS']).toBe('{"x-team":"a"}');
  });

  it('names the setting and the path of a missing file, never a value', () => {
    const missing = join(dir, 'nope');
    const { env, problems } = applySecretFiles({ OPENAI_API_KEY_FILE: missing });
    expect(problems).toEqual([{ variable: 'OPENAI_API_KEY_FILE', problem: `cannot read the file ${missing} (ENOENT)`, accepted: expect.any(String) }]);
    expect(env['OPENAI_API_KEY']).toBeUndefined();
  });

  it('refuses both the setting and its _FILE', () => {
    const { problems } = applySecretFiles({ OPENAI_API_KEY: 'sk-env-secret', OPENAI_API_KEY_FILE: file('k2', 'sk-file') });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ variable: 'OPENAI_API_KEY_FILE', problem: 'is set together with OPENAI_API_KEY' });
    expect(JSON.stringify(problems)).not.toContain('sk-env-secret');
  });

  it('reads through an injected reader', () => {
    const read = (path: string) => (path === '/run/secrets/key' ? 'injected\n' : '');
    expect(applySecretFiles({ OPENAI_API_KEY_FILE: ' /run/secrets/key ' }, read).env['OPENAI_API_KEY']).toBe('injected');
  });
});

describe('loadConfig with _FILE settings', () => {
  it('uses the key and headers from files', () => {
    const config = loadConfig({ OPENAI_API_KEY_FILE: file('k3', 'Bearer sk-abc\n'), OPENAI_HEADERS_FILE: file('h3', '{"api-key":"az"}\n') });
    expect(config.apiKey).toBe('sk-abc');
    expect(config.headers).toEqual({ 'api-key': 'az' });
    expect(config.endpointConfigured).toBe(true);
  });

  it('reports an unreadable file as a ConfigError without the content of other secrets', () => {
    let error: unknown;
    try {
      loadConfig({ OPENAI_API_KEY_FILE: join(dir, 'missing-key'), OPENAI_HEADERS: '{"authorization":"Bearer top-secret"}' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(`OPENAI_API_KEY_FILE: cannot read the file ${join(dir, 'missing-key')} (ENOENT)`);
    expect((error as ConfigError).message).not.toContain('top-secret');
  });
});

describe('config file apiKeyFile', () => {
  it('reads the key from the file, and names the path when it cannot', async () => {
    const { parseConfigFile } = await import('../../src/config/config-file.js');
    const keyFile = file('provider-key', 'sk-provider\n');
    const ok = parseConfigFile(JSON.stringify({ providers: [{ id: 'p', baseUrl: 'https://api.example/v1', apiKeyFile: keyFile }] }), {}, 'config.json');
    expect(Array.isArray(ok) ? ok : ok.providers[0]?.apiKey).toBe('sk-provider');
    const missing = join(dir, 'no-provider-key');
    const bad = parseConfigFile(JSON.stringify({ providers: [{ id: 'p', baseUrl: 'https://api.example/v1', apiKeyFile: missing }] }), {}, 'config.json');
    expect(bad).toEqual([
      { variable: 'config.json providers[0].apiKeyFile', problem: `cannot read the file ${missing} (ENOENT)`, accepted: expect.any(String) },
    ]);
    const both = parseConfigFile(
      JSON.stringify({ providers: [{ id: 'p', baseUrl: 'https://api.example/v1', apiKey: 'k', apiKeyFile: keyFile }] }),
      {},
      'config.json',
    );
    expect(both).toMatchObject([{ problem: 'is set together with apiKey or apiKeyEnv' }]);
  });
});

describe('the secrets leave the live environment', () => {
  it('takeSecretsFromEnvironment returns a whole copy and deletes the secret values (not the _FILE paths) from the live one', () => {
    const live: NodeJS.ProcessEnv = { PATH: '/bin', OPENAI_API_KEY: 'k', OPENAI_ACP_SERVE_TOKEN: 't', OPENAI_HEADERS_FILE: '/run/secrets/h' };
    const copy = takeSecretsFromEnvironment(live);
    expect(copy).toEqual({ PATH: '/bin', OPENAI_API_KEY: 'k', OPENAI_ACP_SERVE_TOKEN: 't', OPENAI_HEADERS_FILE: '/run/secrets/h' });
    expect(live).toEqual({ PATH: '/bin', OPENAI_HEADERS_FILE: '/run/secrets/h' });
  });

  it('the serve token comes from its file when asked for by name, and the secret files are listed for the sandbox to hide', () => {
    const tokenFile = file('serve-token', 'tok-from-file\n');
    const env = { OPENAI_ACP_SERVE_TOKEN_FILE: tokenFile, OPENAI_API_KEY_FILE: join(dir, 'not-read') };
    const { env: out, problems } = applySecretFiles(env, undefined, ['OPENAI_ACP_SERVE_TOKEN']);
    expect(out['OPENAI_ACP_SERVE_TOKEN']).toBe('tok-from-file');
    expect(problems).toEqual([]);
    expect(secretFilePaths(env)).toEqual([join(dir, 'not-read'), tokenFile]);
  });
});
