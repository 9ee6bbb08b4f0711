/**
 * Running inside a container: detection, and the zero-configuration search that then also looks
 * on the container's host. Inside a container `127.0.0.1` is the container itself, so a server
 * running on the host (Ollama, LM Studio, …) is reached as `host.docker.internal`: Docker Desktop
 * defines that name, and on Linux `docker run --add-host=host.docker.internal:host-gateway` does
 * (https://docs.docker.com/reference/cli/docker/container/run/#add-host).
 */
import { existsSync, readFileSync } from 'node:fs';
import { probeLocalServers, type DiscoverOptions, type LocalDiscovery } from './local-discovery.js';

/**
 * The host name of the container's host, as Docker Desktop and `--add-host=…:host-gateway` define it.
 * @internal the tests build their cases from this name rather than a copy of it.
 */
export const DOCKER_HOST = 'host.docker.internal';

/**
 * What container detection reads.
 * @internal the tests hand {@link inContainer} their own files through it.
 */
export interface ContainerHints {
  /** Whether a path exists. @defaultValue `fs.existsSync` */
  exists(path: string): boolean;
  /** A file's text, or `undefined` when it cannot be read. @defaultValue `fs.readFileSync(path, 'utf8')` */
  read(path: string): string | undefined;
}

const SYSTEM_HINTS: ContainerHints = {
  exists: (path) => existsSync(path),
  read: (path) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  },
};

/** Container runtimes named in `/proc/1/cgroup` (cgroup v1) or `/proc/self/mountinfo` (cgroup v2 overlay roots). */
const CONTAINER_CGROUP = /\/(docker|kubepods|containerd|libpod|lxc)[/-]|\/docker\/containers\//;

/**
 * Whether this process runs in a container: Docker's `/.dockerenv`, Podman's
 * `/run/.containerenv`, or a container runtime named in `/proc/1/cgroup` or
 * `/proc/self/mountinfo`. Never throws; `false` when unsure.
 * @internal takes the files it reads as arguments, so it is checked without a container.
 */
export function inContainer(hints: ContainerHints = SYSTEM_HINTS): boolean {
  try {
    if (hints.exists('/.dockerenv') || hints.exists('/run/.containerenv')) return true;
    return ['/proc/1/cgroup', '/proc/self/mountinfo'].some((path) => CONTAINER_CGROUP.test(hints.read(path) ?? ''));
  } catch {
    return false;
  }
}

/** {@link probeLocalServers}'s result, and whether the container's host was searched too. */
export interface NearbyDiscovery extends LocalDiscovery {
  /** True when running in a container: {@link DOCKER_HOST} was searched as well. */
  container: boolean;
}

/**
 * The zero-configuration search: {@link probeLocalServers} on 127.0.0.1 and, inside a container,
 * at the same time on {@link DOCKER_HOST} (same ports, same time bound). A server on 127.0.0.1
 * wins; `probes` are those of 127.0.0.1 (the help text adds how to reach the host). Never rejects.
 *
 * @param options.container - whether to search the host too. @defaultValue {@link inContainer}()
 */
export async function probeNearbyServers(options: DiscoverOptions & { container?: boolean | undefined } = {}): Promise<NearbyDiscovery> {
  const container = options.container ?? inContainer();
  if (!container) return { ...(await probeLocalServers(options)), container };
  const [local, host] = await Promise.all([probeLocalServers(options), probeLocalServers({ ...options, host: DOCKER_HOST })]);
  return { ...local, server: local.server ?? host.server, waitedMs: Math.max(local.waitedMs, host.waitedMs), container };
}
