// The stand-in for the Dockerfile's base image (`node:<major>-trixie-slim`), made from Debian's
// packages where no image registry is reachable: `debootstrap --variant=minbase` of Debian trixie
// (bookworm when trixie cannot be fetched), Debian's `nodejs`, npm 11 from the npm registry
// (Debian's npm 9 cannot read a lockfile of version 3 written by npm 11) and a `node` user with
// uid 1000, as the official image has. Kept as a tar file in a cache directory outside the
// repository, so a second run only imports it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Runs a command, its output on stderr; throws with the command line when it fails. */
export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: ['ignore', options.capture ? 'pipe' : process.stderr, process.stderr], encoding: 'utf8', ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
  return result.stdout ?? '';
}

/** The first Debian suite whose release file the mirror serves (trixie, else bookworm). */
function reachableSuite(mirror) {
  for (const suite of ['trixie', 'bookworm']) {
    const probe = spawnSync('curl', ['-fsI', '--max-time', '30', `${mirror}/dists/${suite}/InRelease`], { stdio: 'ignore' });
    if (probe.status === 0) return suite;
  }
  throw new Error(`neither trixie nor bookworm could be fetched from ${mirror}`);
}

/**
 * The stand-in base as a root file system tar file, made once and cached in `cacheDir`.
 * Returns `{ tar, suite, nodeMajor }` (the Node.js major Debian ships, which the build must be
 * given as `NODE_MAJOR`: the code cache the build trains is only accepted by that Node version).
 * Throws when debootstrap, apt or the npm registry fails.
 */
export function standInBase(cacheDir, log) {
  const stamp = join(cacheDir, 'base.json');
  if (existsSync(stamp)) {
    const base = JSON.parse(readFileSync(stamp, 'utf8'));
    if (existsSync(base.tar)) {
      log(`stand-in base from the cache: ${base.tar} (Debian ${base.suite}, Node.js ${base.nodeVersion})`);
      return base;
    }
  }
  mkdirSync(cacheDir, { recursive: true });
  const mirror = process.env.OPENAI_ACP_DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';
  const suite = reachableSuite(mirror);
  const rootfs = join(cacheDir, 'rootfs.partial');
  rmSync(rootfs, { recursive: true, force: true });
  log(`stand-in base: debootstrap --variant=minbase ${suite} with nodejs (a few minutes)`);
  run('debootstrap', ['--variant=minbase', '--include=nodejs,ca-certificates', suite, rootfs, mirror], { stdio: ['ignore', 'ignore', process.stderr] });
  const nodeVersion = run('chroot', [rootfs, 'node', '--version'], { capture: true }).trim();
  log(`stand-in base: npm 11 from the registry for Debian's Node.js ${nodeVersion}`);
  const packs = join(cacheDir, 'npm-pack');
  rmSync(packs, { recursive: true, force: true });
  mkdirSync(packs, { recursive: true });
  run('npm', ['pack', 'npm@11', '--pack-destination', packs, '--silent'], { capture: true });
  const npmDir = join(rootfs, 'usr/local/lib/node_modules/npm');
  mkdirSync(npmDir, { recursive: true });
  run('tar', ['-xzf', join(packs, readdirSync(packs)[0]), '-C', npmDir, '--strip-components=1']);
  rmSync(packs, { recursive: true, force: true });
  mkdirSync(join(rootfs, 'usr/local/bin'), { recursive: true });
  run('ln', ['-sf', '../lib/node_modules/npm/bin/npm-cli.js', join(rootfs, 'usr/local/bin/npm')]);
  run('ln', ['-sf', '../lib/node_modules/npm/bin/npx-cli.js', join(rootfs, 'usr/local/bin/npx')]);
  // The official image's user: uid and gid 1000, home /home/node.
  run('chroot', [rootfs, 'useradd', '--create-home', '--uid', '1000', '--user-group', '--shell', '/bin/bash', 'node']);
  run('chroot', [rootfs, 'apt-get', 'clean']);
  rmSync(join(rootfs, 'var/lib/apt/lists'), { recursive: true, force: true });
  mkdirSync(join(rootfs, 'var/lib/apt/lists/partial'), { recursive: true });
  const tar = join(cacheDir, `node${nodeVersion.slice(1).split('.')[0]}-${suite}.tar`);
  run('tar', ['-cf', `${tar}.partial`, '-C', rootfs, '.']);
  renameSync(`${tar}.partial`, tar);
  rmSync(rootfs, { recursive: true, force: true });
  const base = { tar, suite, nodeVersion, nodeMajor: nodeVersion.slice(1).split('.')[0] };
  writeFileSync(stamp, `${JSON.stringify(base, null, 2)}\n`);
  return base;
}
