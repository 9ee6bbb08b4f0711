/**
 * `openai-acp serve` as the serve benches start it: the built CLI (`dist/cli.js`) on 127.0.0.1
 * port 0 with `TOKEN`, tools off, logging only errors, against `base` (a dead endpoint unless
 * given); resolves once it says where it listens.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { scriptEnv } from '../test/helpers/clean-env.mjs';

/** The CLI measured: `BENCH_CLI` (another build, e.g. an older dist/cli.js) or this checkout's. */
const CLI = process.env.BENCH_CLI ?? fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/**
 * Starts the server with `args` after `serve --port 0 --token <token> --root /`; `nodeArgs` go to
 * Node before the CLI. Rejects with its stderr when it exits first.
 * @returns {Promise<{ child: import('node:child_process').ChildProcess, url: string }>}
 */
export async function startServe({ token, args = [], base = 'http://127.0.0.1:9/v1', nodeArgs = [] }) {
  const child = spawn(process.execPath, [...nodeArgs, CLI, 'serve', '--port', '0', '--token', token, '--root', '/', ...args], {
    env: scriptEnv({ OPENAI_BASE_URL: base, OPENAI_MODEL: 'bench', OPENAI_ACP_LOG: 'error', OPENAI_ACP_TOOLS: 'off' }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (data) => {
      stderr += data;
      const found = /openai-acp serve on (http:\/\/\S+)/.exec(stderr);
      if (found) resolve(found[1]);
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${stderr}`)));
  });
  return { child, url };
}
