/**
 * The address classes (forbidden, private, public) and the policy over them: what `fetch_url` and
 * HTTP MCP servers may connect to, written every way an address can be written; the DNS answer
 * checked at connect time (each address of it), and a `fetch` whose connections are refused before
 * a socket opens, a redirect's too.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AddressPolicy,
  addressRefusal,
  classifyAddress,
  guardedLookup,
  type LookupFunction,
  OPEN_POLICY,
  parseRange,
} from '../../../src/tools/fetch/address-guard.js';
import { guardedFetch } from '../../../src/tools/mcp/mcp-fetch.js';

const NONE: AddressPolicy = { privateRanges: [] };

describe('classifyAddress', () => {
  it('forbids link-local and metadata addresses however written', () => {
    for (const address of [
      '169.254.169.254',
      '[fe80::1%eth0]',
      'fd00:ec2::254',
      '[fd00:ec2::254]',
      '100.100.100.200',
      '::ffff:169.254.169.254',
      '64:ff9b::a9fe:a9fe',
      'metadata.google.internal',
      'METADATA.GOOGLE.INTERNAL.',
      'metadata',
      'instance-data',
    ])
      expect(classifyAddress(address), address).toBe('forbidden');
  });

  it('knows loopback, private, unique-local, CGNAT, "this network", multicast, and their mapped forms as private', () => {
    for (const address of [
      '127.0.0.1',
      '127.8.9.10',
      '::1',
      '[::1]',
      '::',
      '0.0.0.0',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '100.64.0.1',
      'fd12:3456::1',
      'fc00::1',
      '224.0.0.1',
      '255.255.255.255',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '64:ff9b::7f00:1',
      'localhost',
      'api.localhost',
    ])
      expect(classifyAddress(address), address).toBe('private');
  });

  it('leaves public addresses and names public', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '169.255.0.1', '2606:4700::1111', 'example.com', 'metadata.example.com'])
      expect(classifyAddress(address), address).toBe('public');
  });

  it('classes every IPv4 address the same as its IPv4-mapped IPv6 form', () => {
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        expect(classifyAddress(`::ffff:${ip}`)).toBe(classifyAddress(ip));
      }),
    );
  });
});

describe('the policy', () => {
  it('allows private addresses only in the ranges named, never a forbidden one', () => {
    const some: AddressPolicy = { privateRanges: ['10.0.0.0/8', '127.0.0.1', 'fd00::/8'] };
    expect(addressRefusal('10.9.9.9', some)).toBeUndefined();
    expect(addressRefusal('127.0.0.1', some)).toBeUndefined();
    expect(addressRefusal('127.0.0.2', some)).toBe('private');
    expect(addressRefusal('192.168.0.1', some)).toBe('private');
    expect(addressRefusal('fd00:ec2::254', some)).toBe('forbidden');
    expect(addressRefusal('fd12::1', some)).toBeUndefined();
    expect(addressRefusal('localhost', some)).toBe('private');
    expect(addressRefusal('8.8.8.8', NONE)).toBeUndefined();
    expect(addressRefusal('127.0.0.1', OPEN_POLICY)).toBeUndefined();
    expect(addressRefusal('169.254.169.254', OPEN_POLICY)).toBe('forbidden');
  });

  it('reads ranges, refusing what is not one', () => {
    expect(parseRange('10.0.0.0/8')).toEqual(['10.0.0.0', 8]);
    expect(parseRange('::1')).toEqual(['::1', 128]);
    for (const bad of ['10.0.0.0/33', 'example.com', '10.0.0.0/8/1', '1.2.3', 'fd00::/200', '']) expect(parseRange(bad), bad).toBeUndefined();
  });
});

describe('guardedLookup under a policy', () => {
  const answer =
    (addresses: string[]): LookupFunction =>
    (_host, _options, callback) =>
      callback(
        null,
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
        4,
      );
  const lookUp = (lookup: LookupFunction, host: string) =>
    new Promise<NodeJS.ErrnoException | null>((resolve) => lookup(host, { all: true }, (error) => resolve(error)));

  it('refuses an answer holding one private address, naming it and the flag', async () => {
    const error = await lookUp(guardedLookup(answer(['93.184.216.34', '10.0.0.5']), NONE), 'mixed.test');
    expect(error?.code).toBe('EFORBIDDENADDR');
    expect(error?.message).toBe(
      'mixed.test resolves to 10.0.0.5, a private or loopback address, which this server does not connect to (the operator may allow it: openai-acp serve --allow-private-urls)',
    );
    expect(await lookUp(guardedLookup(answer(['93.184.216.34']), NONE), 'public.test')).toBeNull();
    expect(await lookUp(guardedLookup(answer(['10.0.0.5']), OPEN_POLICY), 'mixed.test')).toBeNull();
  });

  it('refuses a metadata name before asking DNS', async () => {
    let asked = 0;
    const counting: LookupFunction = (host, options, callback) => {
      asked++;
      answer(['93.184.216.34'])(host, options, callback);
    };
    expect((await lookUp(guardedLookup(counting, OPEN_POLICY), 'metadata.google.internal'))?.code).toBe('EFORBIDDENADDR');
    expect(asked).toBe(0);
  });
});

describe('guardedFetch (HTTP MCP servers under serve)', () => {
  let server: http.Server;
  let port = 0;
  const seen: { path: string; authorization: string | undefined }[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
      if (req.url === '/redirect') res.writeHead(307, { location: 'http://169.254.169.254/latest/' }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, body: req.method === 'POST' ? 'posted' : '' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  /** Every name resolves to the loopback server. */
  const toLoopback: LookupFunction = (_host, options, callback) =>
    options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }], 4) : callback(null, '127.0.0.1', 4);

  it('reaches an allowed address with the client’s headers and body', async () => {
    const fetch = guardedFetch({ privateRanges: ['127.0.0.1'] }, toLoopback);
    const response = await fetch(`http://mcp.test:${port}/mcp`, { method: 'POST', headers: { Authorization: 'Bearer client-chosen' }, body: '{}' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ method: 'POST', body: 'posted' });
    expect(seen.at(-1)).toEqual({ path: '/mcp', authorization: 'Bearer client-chosen' });
  });

  it('refuses a name resolving to a private address, and a literal, before any request (the headers go nowhere)', async () => {
    const before = seen.length;
    const fetch = guardedFetch(NONE, toLoopback);
    await expect(fetch(`http://mcp.test:${port}/mcp`, { headers: { Authorization: 'Bearer client-chosen' } })).rejects.toMatchObject({
      code: 'EFORBIDDENADDR',
    });
    await expect(fetch(`http://127.0.0.1:${port}/mcp`)).rejects.toMatchObject({ code: 'EFORBIDDENADDR' });
    await expect(fetch('http://[fd00:ec2::254]/latest/')).rejects.toMatchObject({ code: 'EFORBIDDENADDR' });
    expect(seen.length).toBe(before);
  });

  it('gives a redirect as it came (the SDK follows only those it accepts, through the same guard)', async () => {
    const fetch = guardedFetch({ privateRanges: ['127.0.0.1'] }, toLoopback);
    const response = await fetch(`http://mcp.test:${port}/redirect`);
    expect(response.status).toBe(307);
    await expect(fetch(response.headers.get('location')!)).rejects.toMatchObject({ code: 'EFORBIDDENADDR' });
  });
});
