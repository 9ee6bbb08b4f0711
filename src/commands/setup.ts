/**
 * `openai-acp setup`: an interactive wizard that asks for the provider, the base URL, the API key
 * (preferably the name of the variable holding it) and the model (from the endpoint's live list),
 * then writes the config file with mode 0600. Works on a terminal and on a pipe; end of input
 * aborts without writing anything; a bad answer is explained and asked again.
 */
import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { defaultConfigPath, writeConfigFile, type ConfigFileData, type ConfigFileProvider } from '../config/config-file.js';
import { secretsOf } from '../config/config.js';
import { loadConfig } from '../config/load-config.js';
import { parseBaseUrl, InvalidValue } from '../config/config-values.js';
import type { FetchLike } from '../openai/http.js';
import { pickLocalModel } from '../endpoints/local-discovery.js';
import { createLogger } from '../shared/log.js';
import { looksLikeModelId } from '../app/model-picker.js';
import { parseProviderId, PROVIDER_IDS } from '../config/providers.js';
import { PROVIDER_PROFILES, type ProviderId } from '../config/provider-profiles.js';
import { createLinePrompter, type LinePrompter } from './line-prompter.js';
import { modelsProblem } from './models.js';
import { scrubSecrets } from '../shared/redact.js';
import { probeModels } from './probes.js';

/** What the wizard runs with. */
export interface SetupOptions {
  /** The process environment: where the config file goes, and the values of key variables. */
  env: Record<string, string | undefined>;
  /** @defaultValue `process.stdin` */
  input?: (Readable & { isTTY?: boolean }) | undefined;
  /** Questions and the summary. @defaultValue `process.stdout` */
  output?: (NodeJS.WritableStream & { isTTY?: boolean }) | undefined;
  /** Problems that end the wizard. @defaultValue `process.stderr.write` */
  writeError?: ((text: string) => void) | undefined;
  /** Bound of the model list request, in ms. @defaultValue 10000 */
  timeoutMs?: number | undefined;
  /** Injectable transport (tests). */
  fetch?: FetchLike | undefined;
}

/** An environment variable name as people write them for keys: upper case, digits, `_`. */
const KEY_VARIABLE = /^[A-Z_][A-Z0-9_]*$/;
/** Characters that cannot be sent in an HTTP header value. */
const NOT_SENDABLE = /[\u0000-\u001f\u007f]|[^\u0000-\u00ff]/;
/** Most models listed by number; any other id can still be typed. */
const MAX_LISTED = 40;

/** Thrown when input ends (or Ctrl-C) in the middle of the wizard. */
class SetupAborted extends Error {}

/** The conversation: questions, and lines of explanation. */
interface Conversation {
  prompter: LinePrompter;
  say(text: string): void;
}

/**
 * Asks until `parse` accepts the (trimmed) answer. `parse` returns the value, or a {@link InvalidValue}
 * whose text is shown before asking again.
 * @throws {SetupAborted} when input ends.
 */
async function askUntil<T>(talk: Conversation, question: string, parse: (answer: string) => T | InvalidValue, secret = false): Promise<T> {
  for (;;) {
    const answer = await talk.prompter.ask(question, { secret });
    if (answer === undefined) throw new SetupAborted();
    const result = parse(answer.trim());
    if (!(result instanceof InvalidValue)) return result;
    talk.say(`  ${result.text}`);
  }
}

/** Reads the existing config file: its data, `undefined` when absent, or a problem that stops the wizard. */
async function readExisting(path: string): Promise<{ data: ConfigFileData | undefined } | { problem: string }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { data: undefined } : { problem: `cannot read ${path} (${code ?? 'error'})` };
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null && Array.isArray((parsed as ConfigFileData).providers)) return { data: parsed as ConfigFileData };
  } catch {
    // reported below
  }
  return { problem: `${path} exists but is not a config file (a JSON object with a "providers" array); fix or move it, then run openai-acp setup again` };
}

/** Step 1: the provider family, by number, id or alias. */
async function askProvider(talk: Conversation): Promise<ProviderId> {
  talk.say('Which provider?');
  for (const [i, id] of PROVIDER_IDS.entries()) talk.say(`  ${String(i + 1).padStart(2)}) ${id.padEnd(11)} ${PROVIDER_PROFILES[id].label}`);
  const range = `a number from 1 to ${PROVIDER_IDS.length} or a name such as ollama`;
  return askUntil(talk, 'Provider: ', (answer) => {
    if (!answer) return new InvalidValue(`Please choose a provider: ${range}.`);
    const byNumber = /^\d+$/.test(answer) ? PROVIDER_IDS[Number(answer) - 1] : undefined;
    return byNumber ?? parseProviderId(answer) ?? new InvalidValue(`"${answer.slice(0, 40)}" is not one of the providers: type ${range}.`);
  });
}

/** Step 2: the base URL, the profile's default on an empty answer. */
async function askBaseUrl(talk: Conversation, provider: ProviderId): Promise<string> {
  const suggested = PROVIDER_PROFILES[provider].defaultBaseUrl;
  const exampleUrl = PROVIDER_PROFILES[provider].baseUrlExample;
  const example = exampleUrl ? ` (e.g. ${exampleUrl})` : '';
  return askUntil(talk, `Base URL${example}${suggested ? ` [${suggested}]` : ''}: `, (answer) => {
    const url = answer || suggested;
    if (!url) return new InvalidValue('Please type the base URL, e.g. https://host/v1.');
    const parsed = parseBaseUrl(url);
    return parsed instanceof InvalidValue
      ? new InvalidValue(`That URL ${parsed.text}; expected an http:// or https:// URL such as http://127.0.0.1:11434/v1.`)
      : url;
  });
}

/** Where the key comes from: a variable's name, the key itself, or none. */
type KeyChoice = { apiKeyEnv: string } | { apiKey: string } | Record<string, never>;

/** Step 3: the key variable's name (preferred) or the key itself; never echoed. */
async function askKey(talk: Conversation, provider: ProviderId): Promise<KeyChoice> {
  const variable = PROVIDER_PROFILES[provider].apiKeyEnv;
  talk.say(`API key: type the name of the environment variable that holds it (recommended${variable ? `, e.g. ${variable}` : ''}), or paste the key itself.`);
  const empty = variable ? `[${variable}]` : '(empty for none)';
  return askUntil(
    talk,
    `Key variable or key ${empty}: `,
    (answer): KeyChoice | InvalidValue => {
      if (!answer) return variable ? { apiKeyEnv: variable } : {};
      if (KEY_VARIABLE.test(answer)) return { apiKeyEnv: answer };
      const key = answer.replace(/^bearer\s+/i, '');
      if (!key || /\s/.test(key) || NOT_SENDABLE.test(key))
        return new InvalidValue('That is neither a variable name (LIKE_THIS) nor a key that can be sent in an HTTP header (one word, plain text). Try again.');
      return { apiKey: key };
    },
    true,
  );
}

/** Step 4: the model, from the endpoint's live list when it can be read, else typed. */
async function askModel(talk: Conversation, provider: ProviderId, baseUrl: string, apiKey: string | undefined, options: SetupOptions): Promise<string> {
  const config = loadConfig({ OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: apiKey, OPENAI_PROVIDER: provider, OPENAI_MAX_RETRIES: '0' });
  const settings = { ...config, id: provider, provider, source: 'config file' as const };
  talk.say('Reading the model list…');
  const logger = createLogger({ level: 'error', secrets: secretsOf(settings), write: () => undefined });
  const probe = await probeModels(settings, { logger, timeoutMs: options.timeoutMs ?? 10_000, fetch: options.fetch });
  const typed = (answer: string) => (looksLikeModelId(answer) ? answer : new InvalidValue('A model id is one word without spaces, e.g. llama3.2. Try again.'));
  if (probe.kind !== 'listed') {
    talk.say(`Could not read the model list: ${scrubSecrets(modelsProblem(probe) ?? '', secretsOf(settings))}`);
    return askUntil(talk, 'Model id: ', (answer) => (answer ? typed(answer) : new InvalidValue('Please type the model id.')));
  }
  const models = probe.models;
  const shown = models.slice(0, MAX_LISTED);
  talk.say(`The endpoint lists ${models.length} model${models.length === 1 ? '' : 's'}:`);
  for (const [i, model] of shown.entries())
    talk.say(`  ${String(i + 1).padStart(2)}) ${model.id}${model.contextWindow ? `  (${model.contextWindow} tokens context)` : ''}`);
  if (models.length > shown.length) talk.say(`  … and ${models.length - shown.length} more: type any id.`);
  const fallback = pickLocalModel(models) ?? models[0]!.id;
  const index = shown.findIndex((model) => model.id === fallback);
  const suggested = index === -1 ? fallback : String(index + 1);
  return askUntil(talk, `Model (a number or an id) [${suggested}]: `, (answer) => {
    if (!answer) return fallback;
    if (/^\d+$/.test(answer)) return shown[Number(answer) - 1]?.id ?? new InvalidValue(`Please type a number from 1 to ${shown.length}, or a model id.`);
    return typed(answer);
  });
}

/**
 * Runs the wizard and returns the exit code: 0 when the file was written, 1 when input ended
 * (nothing is written), the existing file is unusable or writing failed, 130 on Ctrl-C.
 */
export async function runSetup(options: SetupOptions): Promise<number> {
  const output = options.output ?? process.stdout;
  const writeError = options.writeError ?? ((text: string) => void process.stderr.write(text));
  const path = defaultConfigPath(options.env);
  const existing = await readExisting(path);
  if ('problem' in existing) {
    writeError(`openai-acp setup: ${existing.problem}\n`);
    return 1;
  }
  const prompter = createLinePrompter(options.input ?? process.stdin, output);
  const talk: Conversation = { prompter, say: (text) => void output.write(`${text}\n`) };
  try {
    talk.say(`openai-acp setup — writes ${path}`);
    talk.say('');
    const provider = await askProvider(talk);
    const baseUrl = await askBaseUrl(talk, provider);
    const key = await askKey(talk, provider);
    const keyValue = 'apiKey' in key ? key.apiKey : 'apiKeyEnv' in key ? options.env[key.apiKeyEnv]?.trim() || undefined : undefined;
    if ('apiKeyEnv' in key && !keyValue) talk.say(`  (${key.apiKeyEnv} is not set here; asking the endpoint without a key.)`);
    const model = await askModel(talk, provider, baseUrl, keyValue, options);
    prompter.close();

    const entry: ConfigFileProvider = { id: provider, provider, baseUrl, ...key };
    const others = (existing.data?.providers ?? []).filter((p) => p?.id !== provider);
    const replaced = (existing.data?.providers.length ?? 0) > others.length;
    const data: ConfigFileData = { ...existing.data, providers: [entry, ...others], model: `${provider}/${model}` };
    await writeConfigFile(path, data);
    talk.say('');
    const replacedNote = replaced ? `, replacing the earlier "${provider}" provider` : '';
    const keptNote = others.length > 0 ? `; ${others.length} other provider${others.length === 1 ? '' : 's'} kept` : '';
    talk.say(`Wrote ${path} (mode 0600)${replacedNote}${keptNote}.`);
    if ('apiKeyEnv' in key && !options.env[key.apiKeyEnv]?.trim())
      talk.say(`Set ${key.apiKeyEnv} in the environment your editor starts openai-acp with (e.g. export ${key.apiKeyEnv}=...).`);
    if (options.env['OPENAI_BASE_URL']?.trim() || options.env['OPENAI_API_KEY']?.trim())
      talk.say('Note: OPENAI_BASE_URL or OPENAI_API_KEY is set here; the agent uses that endpoint first.');
    talk.say('Try it: openai-acp doctor');
    return 0;
  } catch (error) {
    if (error instanceof SetupAborted) {
      writeError(`openai-acp setup: ${prompter.interrupted ? 'interrupted' : 'input ended'}; nothing was written.\n`);
      return prompter.interrupted ? 130 : 1;
    }
    writeError(`openai-acp setup: could not write ${path}: ${(error as Error).message}\n`);
    return 1;
  } finally {
    prompter.close();
  }
}
