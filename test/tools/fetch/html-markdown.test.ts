import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '../../../src/tools/fetch/html-markdown.lazy.js';

const page = (body: string, head = '<title>T</title><style>.x{color:red}</style><script>var secret = 1;</script>') =>
  `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

describe('htmlToMarkdown', () => {
  it('keeps the content and drops scripts, styles, the title, navigation and page chrome', () => {
    const md = htmlToMarkdown(
      page(
        '<header><nav><a href="/">Home</a></nav>Site banner</header><main><article><header><h1>Hello</h1></header><p>Some <b>bold</b> and <a href="/docs/a">a link</a>.</p></article></main><aside>ads</aside><footer>(c) corp</footer><script>track()</script>',
      ),
      'https://example.com/x/page',
    );
    expect(md).toBe('# Hello\n\nSome **bold** and [a link](https://example.com/docs/a).');
  });

  it('without <main>, keeps everything but the chrome; code blocks fenced, lists, tables as pipes', () => {
    const md = htmlToMarkdown(
      page(
        '<header>banner</header><h2>Title</h2><pre><code class="language-js">const a = 1;</code></pre><ul><li>one</li><li>two</li></ul><table><thead><tr><th>a</th><th>b|c</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table><div hidden>hidden</div><div role="navigation">menu</div><footer>foot</footer>',
      ),
      'https://example.com/',
    );
    expect(md).toBe('## Title\n\n```js\nconst a = 1;\n```\n\n-   one\n-   two\n\n| a | b\\|c |\n| --- | --- |\n| 1 | 2 |');
  });

  it('images: alt text with an absolute URL, or nothing; fragment and javascript links become their text', () => {
    const md = htmlToMarkdown(
      page('<p><img src="/i.png" alt="A cat"> <img src="/spacer.gif"> <a href="#top">top</a> <a href="javascript:void(0)">js</a></p>'),
      'https://e.org/a/',
    );
    expect(md).toBe('![A cat](https://e.org/i.png)  top js');
  });

  it('survives broken HTML', () => {
    expect(htmlToMarkdown('<p>open <b>bold <i>both</p><div>', 'https://e.org/')).toBe('open **bold _both_**');
  });
});
