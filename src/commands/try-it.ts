/**
 * The closing "Try it" line of `doctor`: the command that chats through acpx with the settings
 * doctor was run with, so what just passed can be tried as is, on the Node that ran doctor: an
 * acpx version pinned to one that runs there, and the agent by a command the shell finds.
 * Secrets are never repeated: the key, `OPENAI_HEADERS` and `OPENAI_EXTRA_BODY` are named, not
 * shown, and a value carrying credentials (a URL with a user, or any query value but
 * `api-version`) is left out with a note.
 */
import { delimiter, join } from 'node:path';
import type { CliFlags } from '../config/config.js';
import { PUBLIC_QUERY } from '../shared/redact.js';

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

/**
 * `value` quoted for a POSIX shell when it needs it.
 * @internal a pure step checked on strings with quotes, which doctor's output shows only inside a whole line.
 */
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
 * acpx releases the line pins, newest first, with the oldest Node each declares (their `engines`
 * in the npm registry: acpx 0.19.1 `>=22.13.0`; 0.1.16 to 0.5.x `>=22.12.0`; 0.1.15 `>=18`, the
 * newest that declares Node 20, so npm installs it there without an EBADENGINE warning; 0.19.1
 * runs on Node 20 too, docs/install.md "acpx and Node.js"). Both take `--agent <command> exec <prompt>`.
 */
const ACPX_RELEASES: readonly { version: string; node: readonly [number, number] }[] = [
  { version: '0.19.1', node: [22, 13] },
  { version: '0.1.15', node: [18, 0] },
];

/**
 * `acpx@<version>` for the newest pinned release that runs on Node `nodeVersion` (e.g. `20.20.0`); the oldest when none claims to.
 * @internal a pure step checked per version, without running doctor.
 */
export function acpxSpec(nodeVersion: string): string {
  const [major = 0, minor = 0] = nodeVersion.replace(/^v/, '').split('.').map(Number);
  const fits = ACPX_RELEASES.find(({ node }) => major > node[0] || (major === node[0] && minor >= node[1]));
  return `acpx@${(fits ?? ACPX_RELEASES[ACPX_RELEASES.length - 1]!).version}`;
}

/**
 * How the shell should start this agent: `openai-acp` when the first `openai-acp` on `PATH` is
 * this very script (an install on the PATH), else `node <absolute path of the script>` (a clone,
 * an npx run, or another version first on the PATH). Directories only npm's runners put on the
 * PATH (`node_modules/.bin`, npx's cache) are skipped: the user's shell does not have them.
 *
 * @param script - the running script, `process.argv[1]` (may be the bin symlink)
 * @param realpath - the resolved path of a file, or `undefined` when there is none
 */
export function agentCommandFor(script: string, pathEnv: string | undefined, realpath: (path: string) => string | undefined): string {
  const self = realpath(script) ?? script;
  for (const dir of (pathEnv ?? '').split(delimiter)) {
    if (!dir || /[\\/]node_modules[\\/]\.bin[\\/]?$/.test(dir)) continue;
    const found = realpath(join(dir, 'openai-acp'));
    if (found !== undefined) return found === self ? 'openai-acp' : `node ${shellQuote(self)}`;
  }
  return `node ${shellQuote(self)}`;
}

/**
 * `Try it: OPENAI_BASE_URL=… OPENAI_MODEL=… npx --yes acpx@<pinned> --agent "<agent>" exec hello`, plus a
 * note naming the secret settings that must be set too (never their values).
 *
 * @param env - the environment doctor ran with (`.env` values are not repeated: the agent reads
 *   the same `.env` when started in the same directory).
 * @param agent - the command acpx starts ({@link agentCommandFor}), e.g. `node /abs/dist/cli.js` or `openai-acp`.
 * @param nodeVersion - the Node that will run acpx ({@link acpxSpec}). @defaultValue this process's
 */
export function tryItLine(env: Record<string, string | undefined>, flags: CliFlags, agent: string, nodeVersion: string = process.versions.node): string {
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
  const command = [...parts, 'npx', '--yes', acpxSpec(nodeVersion), '--agent', shellQuote(agent), 'exec', shellQuote('hello')].join(' ');
  const note = withheld.length > 0 ? ` (with ${withheld.join(', ')} set as now; not repeated here)` : '';
  return `Try it: ${command}${note}`;
}
