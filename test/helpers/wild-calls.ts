/**
 * The real-call corpus (`test/fixtures/wild-calls/`, its README says how each case was taken):
 * the cases, a scripted model that answers a case's first request with its recorded answer
 * streamed as SSE (reasoning, content in small pieces, structured `tool_calls`) and every later
 * request with "done.", and the verdict on what the agent did with it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { chunk, type ChatHandler } from './fake-openai.js';

/** A call as the corpus states it: the tool's name and its arguments as values. */
export interface WildCall {
  name: string;
  arguments: unknown;
}

/** One corpus case (the fields the replay reads). */
export interface WildCase {
  id: string;
  kind: string;
  format: string;
  source: string;
  model: string;
  server: string;
  tools: { name: string; description?: string; parameters?: { properties?: Record<string, unknown> } }[];
  answer: { content: string | null; reasoning?: string | null; tool_calls?: { name: string; arguments: string }[]; finish_reason: string };
  expect: { run: WildCall[] } | { refuse: { because: string; mentions: string[] } } | { text: true };
  inventedResultAfter?: boolean;
}

const DIR = new URL('../fixtures/wild-calls/', import.meta.url);

/** Every case, in file order. */
export function wildCases(): WildCase[] {
  return readdirSync(DIR)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(readFileSync(new URL(name, DIR), 'utf8')) as WildCase);
}

/** `text` in pieces of `size` characters (code points kept whole), as a stream delivers it. */
function pieces(text: string, size: number): string[] {
  const chars = [...text];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

/** A model that gives the case's recorded answer to the first request and "done." to the others. */
export function wildModel(c: WildCase): ChatHandler {
  let n = 0;
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (n++ > 0) {
      res.write(chunk({ content: 'done.' }));
      res.write(chunk({}, 'stop'));
      return void res.end('data: [DONE]\n\n');
    }
    const { answer } = c;
    for (const piece of pieces(answer.reasoning ?? '', 7)) res.write(chunk({ reasoning_content: piece }));
    for (const piece of pieces(answer.content ?? '', 5)) res.write(chunk({ content: piece }));
    (answer.tool_calls ?? []).forEach((call, index) => {
      res.write(chunk({ tool_calls: [{ index, id: `call_${index}`, type: 'function', function: { name: call.name, arguments: '' } }] }));
      for (const piece of pieces(call.arguments, 9)) res.write(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
    res.write(chunk({}, answer.finish_reason, { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 }));
    res.end('data: [DONE]\n\n');
  };
}

/** What the agent did with a case: the calls that ran, what the next request told the model, what the user saw. */
export interface Observed {
  ran: WildCall[];
  /** The calls the agent read from the answer and handed on to be run (as the next request's assistant message has them). */
  handed: WildCall[];
  /** What the agent told the model after the answer (the next request's messages past the prompt, but the model's own): empty when there was none. */
  toldModel: string;
  /** The answer's text the user saw, and its reasoning. */
  shown: string;
  thought: string;
}

/**
 * `carried`: run with exactly the arguments meant; `refused`: refused or shown rightly; `missed`:
 * neither, but nothing wrong ran; `wrong`: something ran that was not meant.
 */
export type Verdict = 'carried' | 'refused' | 'missed' | 'wrong';

/** The JSON Schema types a property allows. */
function typesOf(schema: unknown): string[] {
  const type = (schema as { type?: unknown } | undefined)?.type;
  return typeof type === 'string' ? [type] : Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
}

/**
 * Whether `ran` says what `meant` says: equal, or a value the model wrote as a string that the
 * tool's schema types (a number, boolean, array or object written as text) and that ran as that
 * value (`"3"` → 3, `"[1]"` → [1]): the same meaning in the type the tool takes.
 */
function sameMeaning(meant: unknown, ran: unknown, schema: unknown): boolean {
  if (isDeepStrictEqual(meant, ran)) return true;
  if (typeof meant === 'string' && typesOf(schema).some((t) => t !== 'string')) {
    try {
      return isDeepStrictEqual(JSON.parse(meant), ran);
    } catch {
      return false;
    }
  }
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  if (typeof meant !== 'object' || meant === null || typeof ran !== 'object' || ran === null || Array.isArray(meant) !== Array.isArray(ran)) return false;
  const a = meant as Record<string, unknown>;
  const b = ran as Record<string, unknown>;
  if (!isDeepStrictEqual(Object.keys(a).sort(), Object.keys(b).sort())) return false;
  return Object.keys(a).every((key) => sameMeaning(a[key], b[key], Array.isArray(meant) ? (schema as { items?: unknown })?.items : properties[key]));
}

/** The verdict on a case, with why when it is not the expected outcome. */
export function verdict(c: WildCase, seen: Observed): { verdict: Verdict; why?: string } {
  const expect = c.expect;
  const meant = 'run' in expect ? expect.run : [];
  const schema = (name: string) => c.tools.find((tool) => tool.name === name)?.parameters;
  const same = (m: WildCall, call: WildCall) => m.name === call.name && sameMeaning(m.arguments, call.arguments, schema(m.name));
  const stray = seen.ran.filter((call) => !meant.some((m) => same(m, call)));
  if (stray.length > 0) return { verdict: 'wrong', why: `ran ${JSON.stringify(stray)}` };
  const tail = (c.answer.content ?? '').trim().slice(-12);
  if (c.inventedResultAfter && tail && seen.shown.includes(tail))
    return { verdict: 'missed', why: `the invented result was shown: ${JSON.stringify(seen.shown)}` };
  if ('run' in expect) {
    if (seen.ran.length === expect.run.length && expect.run.every((m, i) => same(m, seen.ran[i]!))) return { verdict: 'carried' };
    // Arguments under a name the tool's schema does not have: refusing them, naming what the tool takes, is right too.
    const foreign = expect.run.flatMap((m) => Object.keys(m.arguments as object).filter((key) => !Object.hasOwn(schema(m.name)?.properties ?? {}, key)));
    const named = expect.run.flatMap((m) => Object.keys(schema(m.name)?.properties ?? {})).some((key) => seen.toldModel.includes(`"${key}`));
    if (seen.ran.length === 0 && foreign.length > 0 && named) return { verdict: 'refused' };
    return { verdict: 'missed', why: `ran ${JSON.stringify(seen.ran)}; told the model ${JSON.stringify(seen.toldModel.slice(0, 600))}` };
  }
  if ('refuse' in expect) {
    const absent = expect.refuse.mentions.filter((m) => !seen.toldModel.includes(m));
    return absent.length === 0
      ? { verdict: 'refused' }
      : { verdict: 'missed', why: `the model was not told ${JSON.stringify(absent)}: ${JSON.stringify(seen.toldModel.slice(0, 600))}` };
  }
  // Text: the turn ended on it (no further request), and the user saw it (as the answer or its reasoning).
  return seen.toldModel === '' && `${seen.shown}${seen.thought}`.trim() !== ''
    ? { verdict: 'refused' }
    : { verdict: 'missed', why: `shown ${JSON.stringify(seen.shown)}; told the model ${JSON.stringify(seen.toldModel.slice(0, 300))}` };
}

/**
 * Whether the calls handed on to be run are the ones meant (names without the MCP server's prefix,
 * arguments by value): what the reader of calls in text is answerable for, whatever the argument
 * pipeline then does with them.
 */
export function readRight(c: WildCase, seen: Observed): boolean {
  return 'run' in c.expect && isDeepStrictEqual(seen.handed, c.expect.run);
}

/** The figure: per kind, how many cases were carried out, refused (or shown) rightly, missed and wrong. */
export function figure(results: readonly { c: WildCase; verdict: Verdict }[]): string {
  const kinds = [...new Set(results.map((r) => r.c.kind))].sort();
  const row = (label: string, rs: readonly { verdict: Verdict }[]) => {
    const n = (v: Verdict) => rs.filter((r) => r.verdict === v).length;
    return `| ${label} | ${rs.length} | ${n('carried')} | ${n('refused')} | ${n('missed')} | ${n('wrong')} |`;
  };
  return [
    '| kind | cases | carried out | refused / shown right | missed | wrong |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...kinds.map((kind) =>
      row(
        kind,
        results.filter((r) => r.c.kind === kind),
      ),
    ),
    row('all', results),
  ].join('\n');
}
