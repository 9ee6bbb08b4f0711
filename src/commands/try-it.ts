/**
 * The closing "Try it" line of `doctor`: the command that chats through acpx with the settings
 * doctor was run with, so what just passed can be tried as is. Secrets are never repeated: the
 * key, `OPENAI_HEADERS` and `OPENAI_EXTRA_BODY` are named, not shown, and a value carrying
 * credentials (a URL with a user, or any query value but `api-version`) is left out with a note.
 */
import type { CliFlags } from '../config/config.js';
import { PUBLIC_QUERY } from '../redact.js';

/** The settings repeated, in this order, when set (flags count as their variable). */
const REPEATED = [
  'OPENAI_BASE_URL',
  'OPENAI_MODEL',
  'OPENAI_PROVIDER',
  'OPENAI_MODELS',
  'OPENAI_QUERY',
  'OPENAI_SYSTEM_PROMPT',
  'OPENAI_MAX_TOKENS',
  'OPENAI_TEMPERATURE',
  'OPENAI_CONTEXT_WINDOW',
  'OPENAI_TIMEOUT_MS',
  'OPENAI_MAX_RETRIES',
  'OPENAI_ACP_CONFIG',
  'OPENAI_ACP_STATE_DIR',
] as const;
/** Secret settings: named when set, never shown (an extra body may carry an upstream key, as config.ts treats it). */
const SECRET = ['OPENAI_API_KEY', 'OPENAI_HEADERS', 'OPENAI_EXTRA_BODY'] as const;

/** `value` quoted for a POSIX shell when it needs it. */
export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Whether a value carries credentials: a URL with a user, or a query value other than `api-version` (all others count as secrets, as in `secretsOf`). */
function carriesSecret(name: string, value: string): boolean {
  if (name === 'OPENAI_BASE_URL' && /^[a-z]+:\/\/[^/]*@/i.test(value)) return true;
  const query = name === 'OPENAI_QUERY' ? value : name === 'OPENAI_BASE_URL' ? (value.split('?')[1] ?? '') : '';
  return query.split('&').some((piece) => piece.includes('=') && !PUBLIC_QUERY.test(piece.split('=')[0] ?? ''));
}

/**
 * `Try it: OPENAI_BASE_URL=… OPENAI_MODEL=… npx acpx --agent "<agent>" exec "hello"`, plus a
 * note naming the secret settings that must be set too (never their values).
 *
 * @param env - the environment doctor ran with (`.env` values are not repeated: the agent reads
 *   the same `.env` when started in the same directory).
 * @param agent - the command acpx starts, e.g. `node dist/cli.js` or `openai-acp`.
 */
export function tryItLine(env: Record<string, string | undefined>, flags: CliFlags, agent: string): string {
  const fromFlags: Record<string, string | undefined> = { OPENAI_BASE_URL: flags.baseUrl, OPENAI_MODEL: flags.model, OPENAI_SYSTEM_PROMPT: flags.systemPrompt };
  const parts: string[] = [];
  const withheld: string[] = [];
  for (const name of REPEATED) {
    const value = (fromFlags[name] ?? env[name])?.trim();
    if (!value) continue;
    if (carriesSecret(name, value)) withheld.push(name);
    else parts.push(`${name}=${shellQuote(value)}`);
  }
  for (const name of SECRET) if (env[name]?.trim()) withheld.push(name);
  const command = [...parts, 'npx', 'acpx', '--agent', shellQuote(agent), 'exec', shellQuote('hello')].join(' ');
  const note = withheld.length > 0 ? ` (with ${withheld.join(', ')} set as now; not repeated here)` : '';
  return `Try it: ${command}${note}`;
}
