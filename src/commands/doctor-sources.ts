/**
 * Where `doctor` says each setting came from (a flag, the environment, `.env` with its path; the
 * config file and the local server search are named with each endpoint), and the warning for a
 * cloud key that takes the agent away from a local server that answers.
 */
import { describeSource, type SettingSource } from '../config/project-env.js';
import type { FoundServers } from '../endpoints/endpoint-choice.js';
import type { NamedEndpointSettings } from '../endpoints/endpoint-registry.js';
import type { CheckLine } from './doctor-lines.js';

/**
 * The Configuration lines naming the source of every set `OPENAI_*` setting, in name order:
 * `  settings          OPENAI_API_KEY from the environment`, then one line each under it; and
 * the local server the search found, with how long it took. Values are not repeated (the
 * endpoint lines show them, secrets masked).
 */
export function sourceLines(sources: Readonly<Record<string, SettingSource>> | undefined, discovery: FoundServers | undefined): string[] {
  const names = Object.keys(sources ?? {}).sort();
  const rows = names.map((name) => `${name} from ${sourceWords(sources![name]!)}`);
  const lines =
    rows.length === 0
      ? ["  settings          none set: the endpoint is the config file's, or found by the local server search"]
      : rows.map((row, i) => `  ${(i === 0 ? 'settings' : '').padEnd(18)}${row}`);
  if (discovery) {
    const took =
      discovery.waitedMs === undefined ? '' : ` (${discovery.waitedMs} ms${discovery.timeoutMs === undefined ? '' : ` of at most ${discovery.timeoutMs} ms`})`;
    const found = discovery.server ? `found ${discovery.server.baseUrl}` : `found nothing on ports ${discovery.probes.map((p) => p.port).join(', ')}`;
    lines.push(`  local search      ${found}${took}`);
  }
  return lines;
}

const sourceWords = (source: SettingSource): string => (source.kind === 'environment' ? 'the environment' : describeSource(source));

/**
 * The environment endpoint sends a key to the default cloud base URL (`OPENAI_API_KEY` set,
 * `OPENAI_BASE_URL` not): the case where a local server may be running and silently not used.
 * Returns that endpoint, or `undefined`.
 */
export function cloudKeyEndpoint(
  endpoints: readonly NamedEndpointSettings[],
  sources: Readonly<Record<string, SettingSource>> | undefined,
): NamedEndpointSettings | undefined {
  if (sources?.['OPENAI_BASE_URL']) return undefined;
  return endpoints.find((e) => e.source === 'environment' && e.apiKey && !e.provider);
}

/**
 * The ⚠ line for a cloud key overriding a local server that answers, or `undefined` when the
 * search found none. `endpoint` is {@link cloudKeyEndpoint}'s.
 */
export function cloudOverLocalCheck(
  endpoint: NamedEndpointSettings,
  sources: Readonly<Record<string, SettingSource>> | undefined,
  found: FoundServers,
): CheckLine | undefined {
  const server = found.server;
  if (!server) return undefined;
  const keySource = sources?.['OPENAI_API_KEY'] ?? sources?.['OPENAI_API_KEY_FILE'];
  return {
    status: 'warn',
    title: 'local server not used',
    detail:
      `a local server answers at ${server.baseUrl} (${server.models.length} ${server.models.length === 1 ? 'model' : 'models'}), ` +
      `but OPENAI_API_KEY${keySource ? ` (from ${sourceWords(keySource)})` : ''} sends every request to ${endpoint.baseUrl}`,
    fix: `to use the local server, unset OPENAI_API_KEY, or set OPENAI_BASE_URL=${server.baseUrl}`,
  };
}
