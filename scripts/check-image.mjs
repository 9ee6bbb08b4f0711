#!/usr/bin/env node
// `npm run check:image`: builds the Dockerfile and runs the image, where no image registry is
// reachable. Debian's `buildah` (vfs storage, chroot isolation, --pull=never) builds it on a
// stand-in for `node:<major>-trixie-slim` made from Debian's packages (scripts/image/stand-in-base.mjs),
// then the image must answer `--help`, `initialize` and a prompt on stdio, and `serve` with
// `/ready` and a prompt from scripts/serve-client.mjs (scripts/image/image-checks.mjs).
//
// The stand-in base and npm's download cache stay in OPENAI_ACP_IMAGE_CACHE (default
// /var/tmp/openai-acp-image-base) so a second run is quick; the build's storage is a scratch
// directory in /var/tmp, removed at the end. Needs root on Linux with buildah and debootstrap
// (installed with apt-get when missing); elsewhere it prints one line saying why it is skipped
// and exits 0.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkImage } from './image/image-checks.mjs';
import { run, standInBase } from './image/stand-in-base.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const cacheDir = process.env.OPENAI_ACP_IMAGE_CACHE ?? '/var/tmp/openai-acp-image-base';
const started = Date.now();
const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;
const log = (line) => console.error(`check:image: ${line} [${elapsed()}]`);
const skip = (reason) => {
  console.log(`check:image: skipped: ${reason}`);
  process.exit(0);
};
const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

if (process.platform !== 'linux') skip(`the builder (buildah, chroot isolation) runs on Linux only, not ${process.platform}`);
if (process.getuid?.() !== 0) skip('buildah with chroot isolation and debootstrap need root (run it as root, or in CI)');
if (!has('buildah') || !has('debootstrap')) {
  if (!has('apt-get')) skip('buildah or debootstrap is missing and there is no apt-get to install them');
  log('installing buildah and debootstrap from Debian');
  const installed = spawnSync(
    'sh',
    ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends buildah debootstrap'],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (installed.status !== 0 || !has('buildah') || !has('debootstrap')) skip('buildah and debootstrap could not be installed with apt-get');
}

const scratch = mkdtempSync('/var/tmp/openai-acp-image-check-');
const storage = ['--root', join(scratch, 'storage'), '--runroot', join(scratch, 'run'), '--storage-driver', 'vfs'];
/** buildah with the scratch storage; `stdio` given: spawned and returned, else run to the end. */
const buildah = (args, stdio) => (stdio ? spawn('buildah', [...storage, ...args], { stdio }) : run('buildah', [...storage, ...args], { capture: true }).trim());
const probe = spawnSync('buildah', [...storage, 'info'], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
if (probe.status !== 0) {
  rmSync(scratch, { recursive: true, force: true });
  skip(`buildah cannot run here: ${probe.stderr.trim().split('\n').pop()}`);
}

/**
 * Where the host trusts more certificate authorities than Node's own (a TLS-inspecting proxy:
 * `NODE_EXTRA_CA_CERTS`, or npm's `cafile`), the build's `npm ci` is given them too, through
 * npm's global config in a volume of the build only (`/usr/etc/npmrc`: npm's prefix is that of
 * Debian's `/usr/bin/node`): nothing of it reaches the image but the empty mount point. Returns buildah's `--volume` arguments, none when the host adds nothing.
 */
function hostCertificates() {
  const npmCafile = spawnSync('npm', ['config', 'get', 'cafile'], { encoding: 'utf8' }).stdout?.trim();
  const bundle = [process.env.NODE_EXTRA_CA_CERTS, npmCafile].find((path) => path && path !== 'null' && path !== 'undefined' && existsSync(path));
  if (!bundle) return [];
  const dir = join(scratch, 'npm-etc');
  mkdirSync(dir);
  copyFileSync(bundle, join(dir, 'host-ca.crt'));
  writeFileSync(join(dir, 'npmrc'), 'cafile=/usr/etc/host-ca.crt\n');
  log(`the build's npm trusts the host's certificate authorities too (${bundle})`);
  return ['--volume', `${dir}:/usr/etc:ro`];
}

let failed = false;
try {
  const base = standInBase(cacheDir, log);
  const baseName = `docker.io/library/node:${base.nodeMajor}-trixie-slim`;
  const from = buildah(['from', 'scratch']);
  buildah(['add', from, base.tar, '/']);
  buildah(['config', '--env', 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', '--cmd', 'node', from]);
  buildah(['commit', '--quiet', '--rm', from, baseName]);
  log(`stand-in base committed as ${baseName}${base.suite === 'trixie' ? '' : ` (from Debian ${base.suite})`}`);

  const npmCache = join(cacheDir, 'npm-cache');
  mkdirSync(npmCache, { recursive: true });
  log(`buildah bud --build-arg NODE_MAJOR=${base.nodeMajor} (npm ci and the build inside; several minutes)`);
  run(
    'buildah',
    [
      ...storage,
      'bud',
      '--isolation',
      'chroot',
      '--pull=never',
      '--layers=false',
      '--network',
      'host',
      '--volume',
      `${npmCache}:/root/.npm`,
      ...hostCertificates(),
      '--build-arg',
      `NODE_MAJOR=${base.nodeMajor}`,
      '--tag',
      'localhost/openai-acp:check',
      '--file',
      join(root, 'Dockerfile'),
      root,
    ],
    { stdio: ['ignore', process.stderr, process.stderr] },
  );
  log('image built: localhost/openai-acp:check');

  const config = JSON.parse(buildah(['inspect', '--type', 'image', 'localhost/openai-acp:check'])).OCIv1.config;
  if (config.User !== 'node' || JSON.stringify(config.Entrypoint) !== '["node","/app/dist/cli.js"]')
    throw new Error(`the image's user or entrypoint is not the Dockerfile's: ${JSON.stringify(config)}`);
  const container = buildah(['from', '--pull=never', 'localhost/openai-acp:check']);
  await checkImage(buildah, container, log);
  log(`passed in ${elapsed()}`);
} catch (error) {
  failed = true;
  console.error(`check:image: FAILED: ${error.message}`);
} finally {
  // Containers first (unmounted by buildah), then the storage as plain directories.
  spawnSync('buildah', [...storage, 'rm', '--all'], { stdio: 'ignore' });
  rmSync(scratch, { recursive: true, force: true });
  log('scratch storage removed');
}
process.exit(failed ? 1 : 0);
