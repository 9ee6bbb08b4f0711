/**
 * Types of `proxy-from-env` (it ships none). Source: its README,
 * https://www.npmjs.com/package/proxy-from-env.
 */
declare module 'proxy-from-env' {
  /**
   * The proxy URL for `url` from `<scheme>_proxy`/`ALL_PROXY` (either case), or `''` for a direct
   * connection (no proxy set, or the host matches `NO_PROXY`).
   */
  export function getProxyForUrl(url: string | URL): string;
}
