/**
 * The tool-process lines of `openai-acp doctor`: whether the bubblewrap sandbox can run here (and
 * when it is used), and which variables of this environment local commands and stdio MCP servers
 * would not get (names only, never values).
 */
import type { Config } from '../config/config.js';
import { dropReason, probeSandbox } from '../tools/index.js';

/**
 * The lines, e.g. `  sandbox           bubblewrap (/usr/bin/bwrap): used under serve …`.
 * @param env - the environment tool processes would inherit.
 */
export function sandboxLines(config: Pick<Config, 'sandbox' | 'toolEnvKeep' | 'toolEnvDrop'>, env: Readonly<Record<string, string | undefined>>): string[] {
  const found = probeSandbox();
  const mode = config.sandbox === undefined ? 'auto under serve, off on stdio' : `OPENAI_ACP_SANDBOX=${config.sandbox}`;
  const sandbox = found.available
    ? `  sandbox           bubblewrap (${found.bwrap}) works here; ${mode}`
    : `  sandbox           ⚠ cannot run: ${found.reason} (${mode}); ${found.remedy}`;
  const policy = { keep: config.toolEnvKeep, drop: config.toolEnvDrop };
  const dropped = Object.entries(env)
    .filter(([name, value]) => value !== undefined && dropReason(name, value, policy) !== undefined)
    .map(([name]) => name)
    .sort();
  const shown = dropped.length > 12 ? `${dropped.slice(0, 12).join(', ')}, … (${dropped.length} in all)` : dropped.join(', ');
  const environment = `  tool environment  ${dropped.length === 0 ? 'nothing of this environment is held back' : `held back from commands and MCP servers: ${shown}`} (OPENAI_ACP_TOOL_ENV_KEEP keeps one)`;
  return [sandbox, environment];
}
