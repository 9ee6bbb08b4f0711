/**
 * The package's name and version, read from `package.json` (one directory above the bundled
 * `dist/cli.js`, two above this source file), so `--version`, `initialize.agentInfo` and the
 * registry entry agree.
 */
import { readFileSync } from 'node:fs';

interface PackageJson {
  name: string;
  version: string;
}

function readPackageJson(): PackageJson {
  for (const path of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as PackageJson;
      if (pkg.name === 'openai-acp') return pkg;
    } catch {
      // Not this one: the bundle and the source sit at different depths.
    }
  }
  return { name: 'openai-acp', version: '0.0.0' };
}

const pkg = readPackageJson();

/** The package version, e.g. `0.1.0`. */
export const VERSION: string = pkg.version;
/** The agent's name as reported in `initialize.agentInfo.name`. */
export const AGENT_NAME = 'openai-acp';
