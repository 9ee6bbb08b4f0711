/**
 * Container detection (injected file hints) and the zero-configuration search inside a container,
 * which also looks on host.docker.internal (an injected transport stands in for the network).
 */
import { describe, expect, it } from 'vitest';
import { DOCKER_HOST, inContainer, probeNearbyServers, type ContainerHints } from '../../src/endpoints/container.js';
import { noLocalServerHelp } from '../../src/endpoints/no-server-help.js';
import type { StaticRuntimeConfig } from '../../src/endpoints/runtime-config.js';
import { chooseEndpoints } from '../../src/endpoints/endpoint-choice.js';
import { loadConfig } from '../../src/config/load-config.js';
import { createLogger } from '../../src/shared/log.js';
import type { FetchLike } from '../../src/openai/http.js';

const hints = (files: Record<string, string>): ContainerHints => ({ exists: (path) => path in files, read: (path) => files[path] });

describe('inContainer', () => {
  it.each([
    ['/.dockerenv', { '/.dockerenv': '' }],
    ['/run/.containerenv (Podman)', { '/run/.containerenv': '' }],
    ['a docker cgroup (v1)', { '/proc/1/cgroup': '12:pids:/docker/3f2a9c\n0::/' }],
    ['a Kubernetes cgroup', { '/proc/1/cgroup': '0::/kubepods/besteffort/pod1234/abcd' }],
    [
      'an overlay root under /var/lib/docker/containers (cgroup v2)',
      { '/proc/1/cgroup': '0::/', '/proc/self/mountinfo': '1 0 0:1 /var/lib/docker/containers/abc/hostname /etc/hostname rw' },
    ],
  ])('is true with %s', (_name, files) => {
    expect(inContainer(hints(files))).toBe(true);
  });

  it('is false on a plain machine, and when the hints cannot be read', () => {
    expect(inContainer(hints({ '/proc/1/cgroup': '0::/init.scope\n', '/proc/self/mountinfo': '22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw' }))).toBe(false);
    expect(inContainer(hints({}))).toBe(false);
    expect(
      inContainer({
        exists: () => {
          throw new Error('EACCES');
        },
        read: () => undefined,
      }),
    ).toBe(false);
  });
});

/** A transport where only `host:port` in `answering` lists models; every other address refuses. */
function network(answering: Record<string, string[]>): { fetch: FetchLike; asked: string[] } {
  const asked: string[] = [];
  const fetch: FetchLike = async (url) => {
    const { host } = new URL(url);
    asked.push(host);
    const models = answering[host];
    if (!models) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    return new Response(JSON.stringify({ object: 'list', data: models.map((id) => ({ id })) }), { status: 200 });
  };
  return { fetch, asked };
}

describe('probeNearbyServers', () => {
  it('outside a container, looks on 127.0.0.1 only', async () => {
    const { fetch, asked } = network({ [`${DOCKER_HOST}:11434`]: ['qwen3:8b'] });
    const found = await probeNearbyServers({ fetch, container: false, timeoutMs: 1000 });
    expect(found.server).toBeUndefined();
    expect(found.container).toBe(false);
    expect(asked.every((host) => host.startsWith('127.0.0.1:'))).toBe(true);
  });

  it('inside a container, finds a server on the host as host.docker.internal', async () => {
    const { fetch, asked } = network({ [`${DOCKER_HOST}:11434`]: ['nomic-embed-text', 'qwen3:8b'] });
    const found = await probeNearbyServers({ fetch, container: true, timeoutMs: 1000 });
    expect(found.server).toMatchObject({ baseUrl: 'http://host.docker.internal:11434/v1', provider: 'ollama', defaultModel: 'qwen3:8b' });
    expect(asked).toContain('127.0.0.1:11434');
  });

  it('inside a container, prefers a server in the container itself', async () => {
    const { fetch } = network({ [`${DOCKER_HOST}:11434`]: ['qwen3:8b'], '127.0.0.1:8000': ['Qwen/Qwen3-8B'] });
    const found = await probeNearbyServers({ fetch, container: true, timeoutMs: 1000 });
    expect(found.server?.baseUrl).toBe('http://127.0.0.1:8000/v1');
  });
});

describe('the no-server message inside a container', () => {
  it('says how to point at the host', () => {
    const text = noLocalServerHelp({ container: true });
    expect(text).toContain('--add-host=host.docker.internal:host-gateway');
    expect(text).toContain('OPENAI_BASE_URL=http://host.docker.internal:11434/v1');
    expect(text).toContain('OLLAMA_HOST=0.0.0.0');
    expect(noLocalServerHelp()).not.toContain('host.docker.internal');
  });

  it('is what chooseEndpoints reports when the search inside a container finds nothing', async () => {
    const config = loadConfig({});
    const resolved: StaticRuntimeConfig = { config, endpoints: [], model: undefined, configFilePath: undefined, needsDiscovery: true, warnings: [] };
    const logger = createLogger({ level: 'error', write: () => undefined });
    const chosen = await chooseEndpoints(resolved, logger, async () => ({ server: undefined, probes: [], container: true }));
    expect(chosen.missing).toContain('--add-host=host.docker.internal:host-gateway');
  });
});
