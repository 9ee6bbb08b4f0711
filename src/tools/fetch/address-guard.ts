/**
 * Which addresses the agent's own HTTP requests on a model's or a client's behalf (`fetch_url`,
 * and HTTP MCP servers under `openai-acp serve`) may connect to, and the DNS lookup that enforces
 * it at connect time, so every connection (each redirect too) is checked on the address it really
 * opens, not on a name resolved earlier.
 *
 * Three classes ({@link classifyAddress}):
 * - **forbidden**, never connected to, whatever the policy: link-local (IPv4 `169.254.0.0/16`,
 *   where AWS, GCP and Azure answer metadata at `169.254.169.254`; IPv6 `fe80::/10`), AWS's IPv6
 *   metadata address `fd00:ec2::254`, Alibaba's `100.100.100.200`, and the metadata host names
 *   (`metadata.google.internal`, `metadata`, `instance-data`…); also written as IPv4-mapped IPv6
 *   (`::ffff:169.254.169.254`) or through the NAT64 well-known prefix (`64:ff9b::a9fe:a9fe`).
 * - **private**: loopback (`127.0.0.0/8`, `::1`), "this network" (`0.0.0.0/8`, `::`, which Linux
 *   connects to loopback), RFC 1918 (`10/8`, `172.16/12`, `192.168/16`), shared CGNAT space
 *   (`100.64/10`), benchmarking (`198.18/15`), unique local IPv6 (`fc00::/7`), multicast and
 *   broadcast, the same through the mappings above, and the name `localhost`. Connected to only
 *   when the {@link AddressPolicy} allows it: always for the user's own editor (stdio), under
 *   `serve` only for the ranges the operator named (`--allow-private-urls`).
 * - **public**: the rest.
 *
 * Sources: RFC 3927 (IPv4 link-local), RFC 4291 §2.5.6 (IPv6 link-local), RFC 6890 (special-purpose
 * registries), RFC 4193 (unique local), RFC 6598 (shared address space), RFC 6052 §2.1 (the NAT64
 * well-known prefix `64:ff9b::/96`, the IPv4 address in its last 32 bits); AWS IMDS
 * https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-retrieval.html (also
 * `fd00:ec2::254`); GCP https://cloud.google.com/compute/docs/metadata/querying-metadata
 * (`metadata.google.internal`); Alibaba ECS metadata at `100.100.100.200`.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** One address range, `a.b.c.d/n` or `x::/n`, or a single address. */
type Range = readonly [string, number];

/** IPv4 ranges (and their NAT64 forms) of each class. */
const FORBIDDEN_V4: Range[] = [
  ['169.254.0.0', 16],
  ['100.100.100.200', 32],
];
const PRIVATE_V4: Range[] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
];
const FORBIDDEN_V6: Range[] = [
  ['fe80::', 10],
  ['fd00:ec2::254', 128],
];
const PRIVATE_V6: Range[] = [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['ff00::', 8],
];

/** The IPv4 range as the NAT64 well-known prefix writes it (`64:ff9b::a.b.c.d/96+n`). */
const nat64 = ([address, bits]: Range): Range => [`64:ff9b::${address}`, 96 + bits];

function blockList(v4: Range[], v6: Range[]): BlockList {
  const list = new BlockList();
  for (const [address, bits] of v4) list.addSubnet(address, bits, 'ipv4');
  for (const [address, bits] of [...v6, ...v4.map(nat64)]) list.addSubnet(address, bits, 'ipv6');
  return list;
}
const forbidden = blockList(FORBIDDEN_V4, FORBIDDEN_V6);
const privateRanges = blockList(PRIVATE_V4, PRIVATE_V6);

/** Host names of cloud metadata services (lower case, no trailing dot). */
const METADATA_HOSTS = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.internal',
]);

/** The class of an address or host name, see the module comment. */
type AddressClass = 'forbidden' | 'private' | 'public';

const bare = (address: string) => address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
const family = (ip: string) => (isIP(ip) === 4 ? 'ipv4' : 'ipv6');

/**
 * The class of `address`: an IP literal (brackets and a zone allowed) by its ranges; a name by
 * the metadata names and `localhost`, else `public` (its DNS answer is classed at connect time).
 * @internal the tests check the classes of every way an address is written.
 */
export function classifyAddress(address: string): AddressClass {
  const ip = bare(address);
  if (isIP(ip) === 0) {
    const name = ip.toLowerCase().replace(/\.$/, '');
    if (METADATA_HOSTS.has(name)) return 'forbidden';
    return name === 'localhost' || name.endsWith('.localhost') ? 'private' : 'public';
  }
  if (forbidden.check(ip, family(ip))) return 'forbidden';
  return privateRanges.check(ip, family(ip)) ? 'private' : 'public';
}

/**
 * Whether `address` (an IP literal or a metadata host name) is one that is never connected to.
 * @internal the tests of `fetch_url` check the forbidden class through it.
 */
export function isForbiddenAddress(address: string): boolean {
  return classifyAddress(address) === 'forbidden';
}

/**
 * Which private addresses may be connected to: `'all'` (the user's own editor), or only those
 * inside the listed ranges (`10.0.0.0/8`, `127.0.0.1`, `fd12::/16`; none: `[]`). Forbidden
 * addresses are never allowed.
 */
export interface AddressPolicy {
  privateRanges: 'all' | readonly string[];
}

/** The policy of the user's own editor: every private address allowed. */
export const OPEN_POLICY: AddressPolicy = { privateRanges: 'all' };

/**
 * Reads one range of `--allow-private-urls` (`a.b.c.d`, `a.b.c.d/n`, `x::y`, `x::/n`).
 * @returns the range, or `undefined` when it is not one.
 */
export function parseRange(text: string): Range | undefined {
  const [address = '', bits, extra] = text.trim().split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return undefined;
  const max = version === 4 ? 32 : 128;
  if (bits === undefined) return [address, max];
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return undefined;
  return [address, Number(bits)];
}

/** The allowed-ranges list of a policy, built once per policy object. */
const compiled = new WeakMap<AddressPolicy, BlockList>();
function allowedList(policy: AddressPolicy): BlockList | undefined {
  if (policy.privateRanges === 'all') return undefined;
  let list = compiled.get(policy);
  if (!list) {
    list = new BlockList();
    for (const text of policy.privateRanges) {
      const range = parseRange(text);
      if (range) list.addSubnet(range[0], range[1], family(range[0]));
    }
    compiled.set(policy, list);
  }
  return list;
}

/** Why `address` may not be connected to under `policy`, or `undefined` when it may. */
export function addressRefusal(address: string, policy: AddressPolicy): 'forbidden' | 'private' | undefined {
  const kind = classifyAddress(address);
  if (kind !== 'private') return kind === 'forbidden' ? kind : undefined;
  const allowed = allowedList(policy);
  if (!allowed) return undefined;
  const ip = bare(address);
  return isIP(ip) !== 0 && allowed.check(ip, family(ip)) ? undefined : 'private';
}

/** The error a refused address gives (code `EFORBIDDENADDR`), naming the address. */
export class ForbiddenAddressError extends Error {
  override readonly name = 'ForbiddenAddressError';
  readonly code = 'EFORBIDDENADDR';
  constructor(
    readonly address: string,
    readonly host: string,
    readonly kind: 'forbidden' | 'private' = 'forbidden',
  ) {
    const where = host === address ? address : `${host} resolves to ${address}`;
    super(
      kind === 'forbidden'
        ? isIP(address) === 0
          ? `${where}, the name of a cloud metadata service, which is never fetched`
          : `${where}, a link-local address (such as a cloud metadata service), which is never fetched`
        : `${where}, a private or loopback address, which this server does not connect to (the operator may allow it: openai-acp serve --allow-private-urls)`,
    );
  }
}

/** The refusal of the URL host `hostname` itself (a literal or a known name), before any lookup; `undefined` when it may be looked up. */
export function hostRefusal(hostname: string, policy: AddressPolicy = OPEN_POLICY): ForbiddenAddressError | undefined {
  const kind = addressRefusal(hostname, policy);
  return kind ? new ForbiddenAddressError(bare(hostname), bare(hostname), kind) : undefined;
}

/** Node's `dns.lookup` shape, as `net.connect({lookup})` calls it. */
export type LookupFunction = (
  hostname: string,
  options: LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

/**
 * A `lookup` for `http.request` (or `net.connect`) that refuses what `policy` does not allow: it
 * resolves with `resolve` (default `dns.lookup`) and fails with a {@link ForbiddenAddressError}
 * when any address of the answer is refused, so no connection is attempted.
 */
export function guardedLookup(resolve: LookupFunction = dnsLookup as unknown as LookupFunction, policy: AddressPolicy = OPEN_POLICY): LookupFunction {
  return (hostname, options, callback) => {
    const early = hostRefusal(hostname, policy);
    if (early) return callback(early as NodeJS.ErrnoException, '', 4);
    resolve(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      const all = Array.isArray(address) ? address.map((entry) => entry.address) : [address];
      for (const one of all) {
        const kind = addressRefusal(one, policy);
        if (kind) return callback(new ForbiddenAddressError(one, hostname, kind) as NodeJS.ErrnoException, address, family);
      }
      callback(null, address, family);
    });
  };
}

/**
 * Every address `host` resolves to, or `undefined` when it cannot be resolved here (then a proxy
 * may still reach it: it resolves names itself). Never rejects.
 */
export function resolveAll(host: string, resolve: LookupFunction = dnsLookup as unknown as LookupFunction): Promise<string[] | undefined> {
  return new Promise((done) => {
    resolve(host, { all: true }, (error, address) => done(error ? undefined : Array.isArray(address) ? address.map((entry) => entry.address) : [address]));
  });
}
