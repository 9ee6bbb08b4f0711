/**
 * The package's name and version, read from `package.json` (one directory above both `src/` and
 * the bundled `dist/`), so `--version`, `initialize.agentInfo` and the registry entry agree.
 */
import { readFileSync } from 'node:fs';

interface PackageJson {
  name: string;
  version: string;
}

function readPackageJson(): PackageJson {
  try {
    return JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as PackageJson;
  } catch {
    return { name: 'openai-acp', version: '0.0.0' };
  }
}

const pkg = readPackageJson();

/** The package version, e.g. `0.1.0`. */
export const VERSION: string = pkg.version;
/** The agent's name as reported in `initialize.agentInfo.name`. */
export const AGENT_NAME = 'openai-acp';
