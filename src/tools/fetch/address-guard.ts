/**
 * Which addresses `fetch_url` never connects to, and the DNS lookup that enforces it at connect
 * time: link-local addresses, IPv4 `169.254.0.0/16` (where cloud metadata services answer, e.g.
 * `169.254.169.254` on AWS, GCP and Azure) and IPv6 `fe80::/10`, also written as IPv4-mapped IPv6
 * (`::ffff:169.254.169.254`) or through the NAT64 well-known prefix (`64:ff9b::a9fe:a9fe`, which
 * a NAT64 gateway turns into `169.254.169.254`). A name whose DNS answer holds such an address is refused before any
 * socket is opened, so a redirect to a harmless-looking host cannot reach them either.
 *
 * Sources: RFC 3927 (IPv4 link-local), RFC 4291 §2.5.6 (IPv6 link-local), RFC 6052 §2.1 (the
 * NAT64 well-known prefix `64:ff9b::/96`, the IPv4 address in its last 32 bits), AWS IMDS
 * https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-retrieval.html.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

const forbidden = new BlockList();
forbidden.addSubnet('169.254.0.0', 16, 'ipv4');
forbidden.addSubnet('fe80::', 10, 'ipv6');
forbidden.addSubnet('64:ff9b::a9fe:0', 112, 'ipv6');

/** Whether `address` (an IP literal, brackets allowed) is one `fetch_url` must never connect to. Not an IP: false. */
export function isForbiddenAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return false;
  return forbidden.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

/** The error a refused address gives (code `EFORBIDDENADDR`), naming the address. */
export class ForbiddenAddressError extends Error {
  override readonly name = 'ForbiddenAddressError';
  readonly code = 'EFORBIDDENADDR';
  constructor(
    readonly address: string,
    readonly host: string,
  ) {
    super(`${host === address ? address : `${host} resolves to ${address}`}, a link-local address (such as a cloud metadata service), which is never fetched`);
  }
}

/** Node's `dns.lookup` shape, as `net.connect({lookup})` calls it. */
export type LookupFunction = (
  hostname: string,
  options: LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

/**
 * A `lookup` for `http.request` that refuses forbidden answers: it resolves with `resolve`
 * (default `dns.lookup`) and fails with a {@link ForbiddenAddressError} when any address of the
 * answer is forbidden, so no connection is attempted. `onChecked` sees every answer (tests).
 */
export function guardedLookup(resolve: LookupFunction = dnsLookup as unknown as LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      const all = Array.isArray(address) ? address.map((entry) => entry.address) : [address];
      const bad = all.find(isForbiddenAddress);
      if (bad !== undefined) return callback(new ForbiddenAddressError(bad, hostname) as NodeJS.ErrnoException, address, family);
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
