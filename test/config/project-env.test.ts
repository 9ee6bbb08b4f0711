/**
 * The project environment: `.env` merged under the process environment with each setting's
 * source, and the rule that a `.env` key goes only to the base URL the same file names.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeSource, projectEnv, readProjectDotEnv } from '../../src/config/project-env.js';

const PATH = '/work/project/.env';
const dotEnv = (text: string) => ({ path: PATH, text });

describe('projectEnv', () => {
  it('leaves out a .env key when the file names no base URL, so a local setup is not sent to api.openai.com', () => {
    const result = projectEnv(dotEnv('OPENAI_API_KEY=sk-app-key-0123456789\nOPENAI_MODEL=gpt-4o-mini\n'), {});
    expect(result.env['OPENAI_API_KEY']).toBeUndefined();
    expect(result.env['OPENAI_MODEL']).toBe('gpt-4o-mini');
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toContain(`OPENAI_API_KEY in ${PATH} is not used`);
    expect(result.warnings[0]).toContain('names no OPENAI_BASE_URL');
    expect(result.warnings[0]).toContain('would go to https://api.openai.com/v1');
    expect(result.warnings[0]).not.toContain('sk-app-key');
    expect(result.sources).toEqual({ OPENAI_MODEL: { kind: 'dotenv', path: PATH } });
  });

  it('uses a .env key for the base URL the same file names', () => {
    const result = projectEnv(dotEnv('OPENAI_BASE_URL=https://openrouter.ai/api/v1/\nOPENAI_API_KEY=sk-or-key\n'), {});
    expect(result.env).toMatchObject({ OPENAI_BASE_URL: 'https://openrouter.ai/api/v1/', OPENAI_API_KEY: 'sk-or-key' });
    expect(result.warnings).toEqual([]);
    // The environment naming the same base URL (trailing slash aside) keeps it.
    expect(
      projectEnv(dotEnv('OPENAI_BASE_URL=https://openrouter.ai/api/v1\nOPENAI_API_KEY=k\n'), { OPENAI_BASE_URL: 'https://openrouter.ai/api/v1/' }).env[
        'OPENAI_API_KEY'
      ],
    ).toBe('k');
  });

  it('leaves out a .env key when the environment or a flag points elsewhere', () => {
    const local = 'http://127.0.0.1:11434/v1';
    const fromEnv = projectEnv(dotEnv('OPENAI_BASE_URL=https://api.openai.com/v1\nOPENAI_API_KEY=sk-app\n'), { OPENAI_BASE_URL: local });
    expect(fromEnv.env['OPENAI_API_KEY']).toBeUndefined();
    expect(fromEnv.warnings[0]).toContain(`would go to ${local} (set in the environment)`);
    const fromFlag = projectEnv(dotEnv('OPENAI_BASE_URL=https://api.openai.com/v1\nOPENAI_API_KEY_FILE=/run/secrets/key\n'), {}, { baseUrl: local });
    expect(fromFlag.env['OPENAI_API_KEY_FILE']).toBeUndefined();
    expect(fromFlag.warnings[0]).toMatch(/^OPENAI_API_KEY_FILE in .* would go to http:\/\/127\.0\.0\.1:11434\/v1 \(set by --base-url\)/);
  });

  it('keeps a key of the environment whatever the .env says, and the environment wins over .env', () => {
    const result = projectEnv(dotEnv('OPENAI_API_KEY=file-key\nOPENAI_MODEL=file-model\n'), { OPENAI_API_KEY: 'env-key', OPENAI_MODEL: '' });
    expect(result.env['OPENAI_API_KEY']).toBe('env-key');
    expect(result.env['OPENAI_MODEL']).toBe('');
    expect(result.warnings).toEqual([]);
    expect(result.sources).toEqual({ OPENAI_API_KEY: { kind: 'environment' } });
  });

  it('names each set setting with its source: flag over environment over .env', () => {
    const result = projectEnv(
      dotEnv('OPENAI_MODEL=from-file\nOPENAI_TEMPERATURE=0.2\n'),
      { OPENAI_BASE_URL: 'http://127.0.0.1:8080/v1', OPENAI_MODEL: 'from-env', HOME: '/h' },
      { model: 'from-flag' },
    );
    expect(result.sources).toEqual({
      OPENAI_BASE_URL: { kind: 'environment' },
      OPENAI_MODEL: { kind: 'flag', flag: '--model' },
      OPENAI_TEMPERATURE: { kind: 'dotenv', path: PATH },
    });
    expect(result.dotEnvPath).toBe(PATH);
    expect(['OPENAI_BASE_URL', 'OPENAI_MODEL', 'OPENAI_TEMPERATURE'].map((name) => describeSource(result.sources[name]!))).toEqual([
      'environment',
      '--model',
      `.env (${PATH})`,
    ]);
  });

  it('reads nothing without a .env', () => {
    expect(projectEnv(undefined, { OPENAI_API_KEY: 'k' })).toEqual({
      env: { OPENAI_API_KEY: 'k' },
      sources: { OPENAI_API_KEY: { kind: 'environment' } },
      dotEnvPath: undefined,
      warnings: [],
    });
  });
});

describe('readProjectDotEnv', () => {
  const dir = mkdtempSync(join(tmpdir(), 'openai-acp-dotenv-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it('returns the path and text of .env in the directory, or undefined', () => {
    expect(readProjectDotEnv(dir)).toBeUndefined();
    writeFileSync(join(dir, '.env'), 'OPENAI_MODEL=m\n');
    expect(readProjectDotEnv(dir)).toEqual({ path: join(dir, '.env'), text: 'OPENAI_MODEL=m\n' });
  });
});
