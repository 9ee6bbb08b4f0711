import { describe, expect, it } from 'vitest';
import { bwrapArgs } from '../../../src/tools/sandbox/bwrap-args.js';

describe('the bubblewrap command line', () => {
  const spec = {
    writable: ['/work/app', '/work/lib'],
    hidden: [
      { path: '/home/u/.local/state/openai-acp/sessions', directory: true },
      { path: '/run/secrets/key', directory: false },
    ],
    network: false,
    cwd: '/work/app/src',
  };

  it('binds / read-only, the roots read-write after the private /tmp, then hides, unshares everything and runs the command', () => {
    expect(bwrapArgs(spec, '/bin/sh', ['-c', 'echo hi'])).toEqual([
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
      '/tmp',
      '--bind',
      '/work/app',
      '/work/app',
      '--bind',
      '/work/lib',
      '/work/lib',
      '--tmpfs',
      '/home/u/.local/state/openai-acp/sessions',
      '--ro-bind',
      '/dev/null',
      '/run/secrets/key',
      '--unshare-all',
      '--die-with-parent',
      '--new-session',
      '--chdir',
      '/work/app/src',
      '--',
      '/bin/sh',
      '-c',
      'echo hi',
    ]);
  });

  it('shares the network only when allowed', () => {
    expect(bwrapArgs(spec, 'x', [])).not.toContain('--share-net');
    const args = bwrapArgs({ ...spec, network: true }, 'x', []);
    expect(args.indexOf('--share-net')).toBe(args.indexOf('--unshare-all') + 1);
  });

  it('passes a command argument that looks like an option after --, untouched', () => {
    const args = bwrapArgs(spec, '/bin/echo', ['--bind', '/', '/']);
    expect(args.slice(args.indexOf('--') + 1)).toEqual(['/bin/echo', '--bind', '/', '/']);
  });
});
