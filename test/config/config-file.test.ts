/**
 * `config-file.ts`: where the file is, how it is validated (every problem, each naming the file
 * and the JSON path, never a secret), and how it is written (atomic, 0600 in a 0700 directory).
 */
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfigPath, parseConfigFile, writeConfigFile, type ConfigFileData, type ConfigFileResult } from '../../src/config/config-file.js';
import type { ConfigProblem } from '../../src/config/config-values.js';

const LABEL = '/home/u/.config/openai-acp/config.json';

function parsed(value: unknown, env: Record<string, string | undefined> = {}): ConfigFileResult {
  const result = parseConfigFile(typeof value === 'string' ? value : JSON.stringify(value), env, LABEL);
  if (Array.isArray(result)) throw new Error(`unexpected problems: ${JSON.stringify(result)}`);
  return result;
}
function problems(value: unknown, env: Record<string, string | undefined> = {}): ConfigProblem[] {
  const result = parseConfigFile(typeof value === 'string' ? value : JSON.stringify(value), env, LABEL);
  if (!Array.isArray(result)) throw new Error(`expected problems, got ${JSON.stringify(result)}`);
  return result;
}
const where = (list: ConfigProblem[]) => list.map((p) => p.variable);
const ollama = { id: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1' };

describe('defaultConfigPath', () => {
  it('is OPENAI_ACP_CONFIG when set (trimmed)', () => {
    expect(defaultConfigPath({ OPENAI_ACP_CONFIG: ' /etc/acp.json ', XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe('/etc/acp.json');
  });

  it('is under an absolute XDG_CONFIG_HOME', () => {
    expect(defaultConfigPath({ XDG_CONFIG_HOME: '/xdg', HOME: '/h' })).toBe('/xdg/openai-acp/config.json');
  });

  it('ignores a relative or blank XDG_CONFIG_HOME and uses HOME/.config', () => {
    expect(defaultConfigPath({ XDG_CONFIG_HOME: 'relative/dir', HOME: '/h' })).toBe('/h/.config/openai-acp/config.json');
    expect(defaultConfigPath({ XDG_CONFIG_HOME: '  ', HOME: '/h' })).toBe('/h/.config/openai-acp/config.json');
    expect(defaultConfigPath({ HOME: '/h' })).toBe('/h/.config/openai-acp/config.json');
  });

  it('treats a blank OPENAI_ACP_CONFIG as unset', () => {
    expect(defaultConfigPath({ OPENAI_ACP_CONFIG: '   ', HOME: '/h' })).toBe('/h/.config/openai-acp/config.json');
  });

  it('falls back to the home directory of the OS without HOME', () => {
    expect(defaultConfigPath({})).toMatch(/\/\.config\/openai-acp\/config\.json$/);
  });
});

describe('parseConfigFile: valid files', () => {
  it('reads the documented example, providers in file order', () => {
    const result = parsed(
      {
        providers: [ollama, { id: 'openrouter', baseUrl: 'https://openrouter.ai/api/v1', apiKeyEnv: 'OPENROUTER_API_KEY' }],
        model: 'ollama/llama3.2',
      },
      { OPENROUTER_API_KEY: 'sk-or-123' },
    );
    expect(result).toEqual({
      path: LABEL,
      model: 'ollama/llama3.2',
      providers: [
        { id: 'ollama', provider: undefined, baseUrl: 'http://127.0.0.1:11434/v1', query: undefined, apiKey: undefined, headers: {}, models: undefined },
        {
          id: 'openrouter',
          provider: undefined,
          baseUrl: 'https://openrouter.ai/api/v1',
          query: undefined,
          apiKey: 'sk-or-123',
          headers: {},
          models: undefined,
        },
      ],
    });
  });

  it('normalizes the base URL like OPENAI_BASE_URL: trailing slashes and /chat/completions dropped, its query kept apart', () => {
    const [provider] = parsed({ providers: [{ id: 'az', baseUrl: ' https://x.example/openai/chat/completions/?api-version=1 ' }] }).providers;
    expect(provider!.baseUrl).toBe('https://x.example/openai');
    expect(provider!.query).toBe('api-version=1');
  });

  it('merges "query" over the base URL query (its keys win)', () => {
    const [provider] = parsed({ providers: [{ id: 'az', baseUrl: 'https://x.example/v1?a=1&b=2', query: '?b=3&c=4' }] }).providers;
    expect(provider!.query).toBe('a=1&b=3&c=4');
  });

  it('reads the provider family case-insensitively', () => {
    const [provider] = parsed({ providers: [{ ...ollama, provider: ' Azure ' }] }).providers;
    expect(provider!.provider).toBe('azure');
  });

  it('takes the key from apiKeyEnv first, else from apiKey (without a "Bearer " prefix)', () => {
    expect(parsed({ providers: [{ ...ollama, apiKeyEnv: 'K', apiKey: 'from-file' }] }, { K: ' from-env ' }).providers[0]!.apiKey).toBe('from-env');
    expect(parsed({ providers: [{ ...ollama, apiKey: ' Bearer  sk-abc ' }] }).providers[0]!.apiKey).toBe('sk-abc');
    expect(parsed({ providers: [{ ...ollama, apiKey: '' }] }).providers[0]!.apiKey).toBeUndefined();
  });

  it('marks an apiKeyEnv naming an unset (or blank) variable, and sends no key', () => {
    const [unset] = parsed({ providers: [{ ...ollama, apiKeyEnv: 'NOPE_KEY' }] }, {}).providers;
    expect(unset).toMatchObject({ apiKey: undefined, missingKeyEnv: 'NOPE_KEY' });
    const [blank] = parsed({ providers: [{ ...ollama, apiKeyEnv: 'NOPE_KEY' }] }, { NOPE_KEY: '  ' }).providers;
    expect(blank).toMatchObject({ apiKey: undefined, missingKeyEnv: 'NOPE_KEY' });
  });

  it('uses apiKey when apiKeyEnv names an unset variable, and then nothing is missing', () => {
    const [provider] = parsed({ providers: [{ ...ollama, apiKeyEnv: 'NOPE_KEY', apiKey: 'sk-file' }] }, {}).providers;
    expect(provider!.apiKey).toBe('sk-file');
    expect(provider).not.toHaveProperty('missingKeyEnv');
  });

  // A key read through apiKeyEnv is checked like `apiKey`: a "Bearer " prefix is dropped (else
  // requests would carry "Bearer Bearer …"), and a value that cannot be sent in a header is a
  // problem at start, named at `providers[i].apiKeyEnv` without the value.
  it('treats a key read through apiKeyEnv like apiKey: "Bearer " dropped', () => {
    expect(parsed({ providers: [{ ...ollama, apiKeyEnv: 'K' }] }, { K: 'Bearer sk-abc' }).providers[0]!.apiKey).toBe('sk-abc');
  });

  it('treats a key read through apiKeyEnv like apiKey: an unsendable value is a problem', () => {
    expect(where(problems({ providers: [{ ...ollama, apiKeyEnv: 'K' }] }, { K: 'sk-\u0001abc' }))).toEqual([`${LABEL} providers[0].apiKeyEnv`]);
  });

  it('reads headers (numbers and booleans as strings) and model lists (trimmed, deduplicated)', () => {
    const [provider] = parsed({ providers: [{ ...ollama, headers: { 'X-Title': 'me', 'X-N': 3, 'X-B': true }, models: [' a ', 'b', 'a', ''] }] }).providers;
    expect(provider!.headers).toEqual({ 'X-Title': 'me', 'X-N': '3', 'X-B': 'true' });
    expect(provider!.models).toEqual(['a', 'b']);
  });

  it('an empty model list is no list', () => {
    expect(parsed({ providers: [{ ...ollama, models: ['', ' '] }] }).providers[0]!.models).toBeUndefined();
  });

  it('trims the model; an absent model is undefined', () => {
    expect(parsed({ providers: [ollama], model: ' ollama/qwen3 ' }).model).toBe('ollama/qwen3');
    expect(parsed({ providers: [ollama] }).model).toBeUndefined();
  });

  it('ignores unknown keys', () => {
    expect(parsed({ providers: [{ ...ollama, comment: 'x' }], version: 2 }).providers).toHaveLength(1);
  });
});

describe('parseConfigFile: problems', () => {
  it('text that is not JSON: one problem naming the file', () => {
    const list = problems('{ "providers": [ ');
    expect(list).toHaveLength(1);
    expect(list[0]!.variable).toBe(LABEL);
    expect(list[0]!.problem).toMatch(/^is not valid JSON/);
  });

  it.each([['[]'], ['{}'], ['{"providers": {}}'], ['null'], ['"text"']])('%s has no providers array', (text) => {
    expect(problems(text)).toEqual([expect.objectContaining({ variable: LABEL, problem: 'has no "providers" array' })]);
  });

  it('an empty providers array', () => {
    expect(where(problems({ providers: [] }))).toEqual([`${LABEL} providers`]);
  });

  it('names each bad entry by its JSON path, and reports every one of them', () => {
    const list = problems({
      providers: [
        ollama,
        { id: 'b', baseUrl: 'ftp://x' },
        'not an object',
        { id: 'has/slash', baseUrl: 'http://x' },
        { id: 'ollama', baseUrl: 'http://x' },
        { id: 'e', baseUrl: 'http://x', provider: 'anthropic', apiKeyEnv: 'not a name', query: 'a b', models: [1] },
        { id: 'f' },
      ],
      model: 7,
    });
    expect(where(list)).toEqual([
      `${LABEL} providers[1].baseUrl`,
      `${LABEL} providers[2]`,
      `${LABEL} providers[3].id`,
      `${LABEL} providers[4].id`,
      `${LABEL} providers[5].provider`,
      `${LABEL} providers[5].apiKeyEnv`,
      `${LABEL} providers[5].query`,
      `${LABEL} providers[5].models`,
      `${LABEL} providers[6].baseUrl`,
      `${LABEL} model`,
    ]);
    expect(list[3]!.problem).toContain('"ollama"');
    for (const problem of list) {
      expect(problem.problem.length).toBeGreaterThan(3);
      expect(problem.accepted.length).toBeGreaterThan(3);
    }
  });

  it.each([
    [{ id: '' }, 'id'],
    [{ id: '-x' }, 'id'],
    [{ id: 'a'.repeat(65) }, 'id'],
    [{ id: 5 }, 'id'],
    [{ baseUrl: 'not a url' }, 'baseUrl'],
    [{ baseUrl: 'http://u:p@host/v1' }, 'baseUrl'],
    [{ baseUrl: 'http://host/v1#frag' }, 'baseUrl'],
    [{ baseUrl: 42 }, 'baseUrl'],
    [{ apiKeyEnv: 12 }, 'apiKeyEnv'],
    [{ apiKeyEnv: '1ABC' }, 'apiKeyEnv'],
    [{ apiKey: 12 }, 'apiKey'],
    [{ apiKey: 'line\nbreak' }, 'apiKey'],
    [{ apiKey: 'ключ' }, 'apiKey'],
    [{ headers: [] }, 'headers'],
    [{ headers: 'x' }, 'headers'],
    [{ headers: { 'bad name': 'v' } }, 'headers'],
    [{ headers: { ok: null } }, 'headers'],
    [{ query: 3 }, 'query'],
    [{ query: 'a=%zz' }, 'query'],
    [{ models: 'a,b' }, 'models'],
    [{ provider: 7 }, 'provider'],
  ])('%j is a problem at providers[0].%s', (change, key) => {
    expect(where(problems({ providers: [{ ...ollama, ...change }] }))).toEqual([`${LABEL} providers[0].${key}`]);
  });

  it('ids are letters, digits, ".", "_" and "-" (up to 64 characters)', () => {
    expect(parsed({ providers: [{ ...ollama, id: 'A1._-z' }] }).providers[0]!.id).toBe('A1._-z');
    expect(parsed({ providers: [{ ...ollama, id: 'a'.repeat(64) }] }).providers[0]!.id).toHaveLength(64);
  });

  it('returns only the problems when any entry is bad', () => {
    const result = parseConfigFile(JSON.stringify({ providers: [ollama, { id: 'x' }] }), {}, LABEL);
    expect(Array.isArray(result)).toBe(true);
  });

  // A model naming a provider but no model id ("b/") is a problem, not an empty `model`.
  it('a model naming a provider with nothing after the "/" is a problem', () => {
    expect(where(problems({ providers: [ollama, { id: 'b', baseUrl: 'http://127.0.0.1:1/v1' }], model: 'b/' }))).toEqual([`${LABEL} model`]);
  });

  it.each([[''], ['  '], [5], [null]])('model %j is a problem', (model) => {
    expect(where(problems({ providers: [ollama], model }))).toEqual([`${LABEL} model`]);
  });
});

describe('parseConfigFile never shows a secret', () => {
  const KEY = 'sk-live-Zq8wX3vB7nM2kL5p';
  const HEADER_SECRET = 'hdr-secret-9Tg4Rf2Ws6Ya1Ue';
  const ENV_SECRET = 'env-secret-Hj3Kl9Mn2Bv5Cx';
  const textOf = (list: ConfigProblem[]) => JSON.stringify(list);

  it('in problems of entries that carry a key and secret headers', () => {
    const list = problems(
      {
        providers: [
          { id: 'a', baseUrl: 'nope', apiKey: KEY, headers: { Authorization: `Bearer ${HEADER_SECRET}`, 'x-api-key': HEADER_SECRET } },
          { id: 'b', baseUrl: 'http://x', apiKey: `${KEY}\n`, headers: { Authorization: `Bearer ${HEADER_SECRET}\u0001` } },
          { id: 'c', baseUrl: 'http://x', apiKey: `${KEY}é€` },
          { id: 'd', baseUrl: `https://user:${KEY}@host/v1` },
          { id: 'e', baseUrl: `https://host/v1?api_key=${KEY}#x` },
          { id: 'f', baseUrl: `https://host/v1?api_key=${KEY}%z` },
          { id: 'g', baseUrl: 'http://x', headers: { 'x-api-key': { nested: HEADER_SECRET } } },
          { id: 'h', baseUrl: 'http://x', headers: { [`bad name ${HEADER_SECRET}`]: 'v' } },
          { id: 'i', baseUrl: 'http://x', apiKeyEnv: 'SET_KEY', provider: 'nope' },
          { id: 'j', baseUrl: 'http://x', query: `token=${KEY} x` },
        ],
      },
      { SET_KEY: ENV_SECRET },
    );
    expect(list.length).toBeGreaterThanOrEqual(10);
    for (const secret of [KEY, HEADER_SECRET, ENV_SECRET, 'Zq8wX3vB7nM2kL5p', '9Tg4Rf2Ws6Ya1Ue']) expect(textOf(list)).not.toContain(secret);
  });

  it('for any mix of bad fields next to a key and secret headers', () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9]{16,24}$/).map((s) => `sk-${s}`);
    const badField = fc.constantFrom<Record<string, unknown>>(
      { baseUrl: 'not a url' },
      { baseUrl: 'ftp://x' },
      { baseUrl: undefined },
      { provider: 'anthropic' },
      { apiKeyEnv: 'no such name' },
      { query: 'a b' },
      { models: 'x' },
      { headers: { 'bad name': 'v' } },
      { id: 'bad/id' },
      {},
    );
    fc.assert(
      fc.property(
        secret,
        secret,
        fc.array(fc.tuple(badField, fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        (key, header, entries, badModel) => {
          const providers = entries.map(([bad, withKey, controlChar], n) => ({
            id: `p${n}`,
            baseUrl: 'http://127.0.0.1:1/v1',
            ...(withKey ? { apiKey: controlChar ? `${key}\u0007` : key } : { apiKeyEnv: 'THE_KEY' }),
            headers: { Authorization: `Bearer ${header}${controlChar ? '\n' : ''}`, 'X-Api-Key': header },
            ...bad,
          }));
          const result = parseConfigFile(JSON.stringify({ providers, ...(badModel ? { model: 3 } : {}) }), { THE_KEY: key }, LABEL);
          const text = JSON.stringify(result);
          if (!Array.isArray(result)) return; // a valid file: no problem text at all
          expect(text).not.toContain(key);
          expect(text).not.toContain(header);
          expect(text).not.toContain(key.slice(3));
        },
      ),
    );
  });

  // The "not valid JSON" problem gives the line and column only: V8's message quotes the text
  // around the bad token, which may be an unquoted key.
  it('in the "not valid JSON" problem, when the key itself is what breaks the JSON', () => {
    const shortKey = 'sk-9f3k2';
    const texts = [
      `{"providers": [{"id": "a", "baseUrl": "http://x", "apiKey": ${shortKey}}]}`,
      `{"providers": [{"id": "a", "baseUrl": "http://x", "headers": {"x-api-key": ${shortKey}}}]}`,
      `{"providers": [{"id": "a", "baseUrl": "http://x", "apiKey": "${shortKey}" "id": "b"}]}`,
    ];
    for (const text of texts) {
      const list = problems(text);
      expect(list[0]!.problem).toMatch(/^is not valid JSON/);
      expect(JSON.stringify(list)).not.toContain(shortKey.slice(3));
    }
  });
});

describe('writeConfigFile', () => {
  let root: string;
  const savedUmask = process.umask();
  const data: ConfigFileData = {
    providers: [
      { id: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1', models: ['llama3.2'] },
      { id: 'openrouter', baseUrl: 'https://openrouter.ai/api/v1', apiKeyEnv: 'OPENROUTER_API_KEY' },
    ],
    model: 'ollama/llama3.2',
  };
  const mode = async (path: string) => (await stat(path)).mode & 0o777;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'config-file-test-'));
  });
  afterEach(() => {
    process.umask(savedUmask);
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('creates the missing directories with mode 0700 and the file with mode 0600, whatever the umask', async () => {
    for (const umask of [0o000, 0o022, 0o002]) {
      process.umask(umask);
      const dir = join(root, `umask-${umask}`, 'openai-acp');
      const path = join(dir, 'config.json');
      await writeConfigFile(path, data);
      expect(await mode(dir)).toBe(0o700);
      expect(await mode(join(root, `umask-${umask}`))).toBe(0o700);
      expect(await mode(path)).toBe(0o600);
    }
  });

  it('writes JSON that parseConfigFile reads back', async () => {
    const path = join(root, 'roundtrip', 'config.json');
    await writeConfigFile(path, data);
    const text = await readFile(path, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(JSON.parse(text)).toEqual(data);
    const result = parseConfigFile(text, { OPENROUTER_API_KEY: 'k' }, path);
    expect(Array.isArray(result) ? result : result.providers.map((p) => p.id)).toEqual(['ollama', 'openrouter']);
  });

  it('replaces an existing file (and its lax mode) without leaving a temp file', async () => {
    const dir = join(root, 'replace');
    await mkdir(dir, { recursive: true });
    const path = join(dir, 'config.json');
    await writeFile(path, '{"old": true}', { mode: 0o644 });
    await chmod(path, 0o644);
    await writeConfigFile(path, data);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(data);
    expect(await mode(path)).toBe(0o600);
    expect(await readdir(dir)).toEqual(['config.json']);
  });

  it('leaves an existing directory as it is', async () => {
    const dir = join(root, 'existing');
    await mkdir(dir, { mode: 0o755 });
    await chmod(dir, 0o755);
    await writeConfigFile(join(dir, 'config.json'), data);
    expect(await mode(dir)).toBe(0o755);
    expect(await mode(join(dir, 'config.json'))).toBe(0o600);
  });

  it('rejects with the file system error when the directory cannot be made, and writes nothing', async () => {
    const blocker = join(root, 'blocker');
    await writeFile(blocker, 'a file where a directory should be');
    await expect(writeConfigFile(join(blocker, 'sub', 'config.json'), data)).rejects.toMatchObject({ code: expect.stringMatching(/ENOTDIR|EEXIST/) });
    expect(await readFile(blocker, 'utf8')).toBe('a file where a directory should be');
  });

  it('rejects when the target is a directory, and removes its temp file', async () => {
    const dir = join(root, 'target-is-dir');
    await mkdir(join(dir, 'config.json'), { recursive: true });
    await expect(writeConfigFile(join(dir, 'config.json'), data)).rejects.toMatchObject({ code: expect.any(String) });
    expect((await readdir(dir)).sort()).toEqual(['config.json']);
  });

  // Each write has a temp file of its own (opened with 'wx'), so overlapping writes to one path
  // never share one: both succeed and the file is one of them, whole.
  it('two overlapping writes both succeed and leave one of the two files whole', async () => {
    const long: ConfigFileData = { providers: Array.from({ length: 50 }, (_, n) => ({ id: `p${n}`, baseUrl: 'http://127.0.0.1:1/v1' })) };
    const short: ConfigFileData = { providers: [{ id: 'a', baseUrl: 'http://127.0.0.1:2/v1' }] };
    for (let round = 0; round < 10; round++) {
      const path = join(root, `overlap-${round}`, 'config.json');
      const results = await Promise.allSettled([writeConfigFile(path, long), writeConfigFile(path, short)]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
      expect([long, short]).toContainEqual(JSON.parse(await readFile(path, 'utf8')));
    }
  });

  it('two writes one after the other: the last one wins', async () => {
    const path = join(root, 'twice', 'config.json');
    await writeConfigFile(path, data);
    await writeConfigFile(path, { providers: [data.providers[0]!] });
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ providers: [data.providers[0]] });
  });
});
