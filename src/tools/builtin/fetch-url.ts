/**
 * `fetch_url`: one GET over http(s), HTML as Markdown (runs in `tools/fetch/`). A remembered
 * choice covers one host; a redirect to another host is followed only where a fetch from that
 * host would run unasked.
 */
import { z } from 'zod';
import { executeFetchUrl } from '../fetch/fetch-page.js';
import { argText, MAX_TITLE_COMMAND, shorten } from '../present/present-args.js';
import { defineTool } from './tool-module.js';

/** The `fetch_url` tool. */
export const fetchUrlTool = defineTool({
  name: 'fetch_url',
  description: 'GET a web page or file over http(s). HTML comes back as Markdown.',
  schema: z.object({
    url: z.string().describe('The http or https URL.'),
  }),
  aliases: { uri: 'url', link: 'url' },
  kind: 'fetch',
  permission: 'fetches',
  /** `fetch:<host[:port]>`, lower case (`fetch:` when the argument is not a URL). */
  rememberedAs(args) {
    const host = urlHost(args['url']);
    return { key: `fetch:${host}`, scope: `fetches from ${host || 'this host'}` };
  },
  present(args) {
    const url = argText(args, 'url');
    return { title: url ? `Fetch ${shorten(url.trim(), MAX_TITLE_COMMAND)}` : 'Fetch' };
  },
  run(args, ctx) {
    const runsUnasked = ctx.runsUnasked;
    const limits = runsUnasked ? { ...ctx.settings.fetch, mayFollow: (url: URL) => runsUnasked({ url: url.href }) } : ctx.settings.fetch;
    return executeFetchUrl(args.url, ctx.signal, limits);
  },
});

/** The `host[:port]` of a URL argument, lower case; '' when it is not a URL. */
function urlHost(url: unknown): string {
  try {
    return typeof url === 'string' ? new URL(url.trim()).host.toLowerCase() : '';
  } catch {
    return '';
  }
}
