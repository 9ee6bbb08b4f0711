/**
 * HTML → Markdown for `fetch_url`, by `turndown` (https://github.com/mixmark-io/turndown, its DOM
 * from `@mixmark-io/domino`). A lazy chunk (scripts/lazy-chunks.mjs): loading turndown and its DOM
 * costs ~100 ms, paid at the first HTML page fetched, never at start-up.
 *
 * What the model gets is the page's text, not its chrome: scripts, styles, forms, frames, SVG,
 * navigation (`nav`, `aside`, `role=navigation|banner|contentinfo|complementary`), hidden
 * elements, and the page-level `header`/`footer` (those inside an `article` or `main` stay) are
 * dropped; when the page marks its content with `main` (or `role=main`), only that is kept.
 * Links and images get absolute URLs; images without alt text are dropped; tables become
 * Markdown pipe tables.
 */
import TurndownService, { type TurndownNode } from 'turndown';

/** Elements dropped with everything inside. */
const DROPPED = [
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'object',
  'embed',
  'svg',
  'canvas',
  'form',
  'button',
  'select',
  'textarea',
  'input',
  'nav',
  'aside',
  'head',
  'title',
  'meta',
  'link',
];
const CHROME_ROLES = /^(navigation|banner|contentinfo|complementary|search|dialog)$/i;

/** The content element of a document (`main`, `[role=main]`), looked up once per document. */
const mains = new WeakMap<object, TurndownNode | null>();
function mainOf(node: TurndownNode): TurndownNode | null {
  const doc = node.ownerDocument;
  if (!doc) return null;
  if (!mains.has(doc)) mains.set(doc, doc.querySelector('main, [role="main"]'));
  return mains.get(doc) ?? null;
}

/** Whether `node` has an ancestor named one of `names` (upper case). */
function inside(node: TurndownNode, names: readonly string[]): boolean {
  for (let parent = node.parentNode as TurndownNode | null; parent; parent = parent.parentNode as TurndownNode | null) {
    if (names.includes(parent.nodeName)) return true;
  }
  return false;
}

/** Whether `node` is page chrome (see the module comment). */
function isChrome(node: TurndownNode): boolean {
  const role = node.getAttribute?.('role') ?? '';
  if (CHROME_ROLES.test(role) || node.hasAttribute?.('hidden') || node.getAttribute?.('aria-hidden') === 'true') return true;
  if ((node.nodeName === 'HEADER' || node.nodeName === 'FOOTER') && !inside(node, ['ARTICLE', 'MAIN'])) return true;
  const main = mainOf(node);
  // Outside the main content, and not one of its ancestors.
  return main !== null && node !== main && !main.contains(node) && !node.contains(main);
}

const cell = (content: string) =>
  content
    .trim()
    .replace(/\s*\n+\s*/g, ' ')
    .replace(/\|/g, '\\|');

/** Builds the converter, once per chunk load. */
function createService(base: string): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_', hr: '---' });
  service.remove(DROPPED);
  service.remove(isChrome);
  const absolute = (href: string) => {
    try {
      return new URL(href, base).href;
    } catch {
      return href;
    }
  };
  service.addRule('link', {
    filter: (node) => node.nodeName === 'A' && node.hasAttribute('href'),
    replacement: (content, node) => {
      const href = node.getAttribute('href') ?? '';
      const text = content.trim();
      if (!text) return '';
      if (href.startsWith('#') || /^javascript:/i.test(href)) return text;
      return `[${text}](${absolute(href).replace(/[()]/g, (c) => encodeURIComponent(c))})`;
    },
  });
  service.addRule('image', {
    filter: 'img',
    replacement: (_content, node) => {
      const alt = (node.getAttribute('alt') ?? '').trim().replace(/\s+/g, ' ');
      const src = node.getAttribute('src');
      return alt && src ? `![${alt}](${absolute(src)})` : '';
    },
  });
  service.addRule('tableCell', { filter: ['th', 'td'], replacement: (content) => `| ${cell(content)} ` });
  service.addRule('tableRow', {
    filter: 'tr',
    replacement: (content, node) => {
      const table = node.closest('table');
      const first = table?.querySelector('tr') === node;
      const cells = node.querySelectorAll('th, td').length;
      return `${content}|\n${first ? `${'| --- '.repeat(Math.max(1, cells))}|\n` : ''}`;
    },
  });
  service.addRule('tableSection', { filter: ['thead', 'tbody', 'tfoot'], replacement: (content) => content });
  service.addRule('table', { filter: 'table', replacement: (content) => `\n\n${content.trim()}\n\n` });
  return service;
}

/**
 * The Markdown of an HTML page; `base` (the page's URL) makes relative links absolute. Never
 * throws for odd HTML (the parser is forgiving); the output has no more than two blank lines in a row.
 */
export function htmlToMarkdown(html: string, base: string): string {
  const markdown = createService(base).turndown(html);
  return markdown.replace(/\n{3,}/g, '\n\n').trim();
}
