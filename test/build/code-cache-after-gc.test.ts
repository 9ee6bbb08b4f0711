/**
 * A huge stdin line makes the agent collect garbage (src/shared/collect-garbage.ts), for which it sets
 * V8's `--expose-gc` for a moment. V8 keys code caches by its flags: had the flag stayed set, the
 * cache dist/cli.js writes at exit would be rejected by every later start (and rewritten at each
 * exit). Needs `npm run build` (the `pretest` script) first.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { cleanEnv } from '../helpers/clean-env.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let copy: string | undefined;
afterEach(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

it('a code cache written after a huge line is used by the next start, not rewritten', () => {
  copy = mkdtempSync(join(tmpdir(), 'openai-acp-gc-cache-'));
  // The source maps are left out: the CLI runs without them (no --enable-source-maps).
  cpSync(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true, filter: (path) => !path.endsWith('.map') });
  cpSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
  const dist = join(copy, 'dist');
  const caches = () => readdirSync(dist).filter((name) => name.startsWith('bundle.') && name.endsWith('.cache'));
  for (const name of caches()) rmSync(join(dist, name));
  const env = cleanEnv(copy, { OPENAI_ACP_LOG: 'error' });
  // A 9 MB notification (over the 8 MiB after which the agent collects), then end of input.
  const huge = `${JSON.stringify({ jsonrpc: '2.0', method: 'x/huge', params: { text: 'p'.repeat(9_000_000) } })}\n`;
  execFileSync(process.execPath, [join(dist, 'cli.js')], { env, input: huge, stdio: ['pipe', 'ignore', 'ignore'] });
  expect(caches()).toHaveLength(1);
  const written = readFileSync(join(dist, caches()[0]!));
  // A start with a rejected cache writes a new one at exit; an accepted one is left alone.
  execFileSync(process.execPath, [join(dist, 'cli.js'), '--version'], { env, encoding: 'utf8' });
  expect(readFileSync(join(dist, caches()[0]!)).equals(written)).toBe(true);
});
