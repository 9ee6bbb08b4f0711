/**
 * The parts of `turndown` 7 used by `html-markdown.lazy.ts` (it ships no types). Source: its
 * README, https://github.com/mixmark-io/turndown#readme.
 */
declare module 'turndown' {
  /** The DOM used by the rules here (a domino element in Node.js; the project has no DOM lib types). */
  export interface TurndownNode {
    nodeName: string;
    parentNode: TurndownNode | null;
    ownerDocument: { querySelector(selector: string): TurndownNode | null } | null;
    getAttribute(name: string): string | null;
    hasAttribute(name: string): boolean;
    contains(other: TurndownNode): boolean;
    closest(selector: string): TurndownNode | null;
    querySelector(selector: string): TurndownNode | null;
    querySelectorAll(selector: string): { length: number };
  }
  /** A rule: which elements it takes, and the Markdown it gives for one (`content` = its converted children). */
  export interface Rule {
    filter: string | string[] | ((node: TurndownNode, options: Options) => boolean);
    replacement: (content: string, node: TurndownNode, options: Options) => string;
  }
  /** Options of the service (the ones used here). */
  export interface Options {
    headingStyle?: 'setext' | 'atx';
    codeBlockStyle?: 'indented' | 'fenced';
    bulletListMarker?: '-' | '+' | '*';
    emDelimiter?: '_' | '*';
    hr?: string;
    linkStyle?: 'inlined' | 'referenced';
  }
  /** Converts HTML to Markdown. */
  export default class TurndownService {
    constructor(options?: Options);
    /** Markdown of an HTML string. */
    turndown(html: string): string;
    addRule(key: string, rule: Rule): this;
    /** Elements dropped with their content. */
    remove(filter: Rule['filter']): this;
  }
}
