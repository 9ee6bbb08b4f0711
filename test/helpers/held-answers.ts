/**
 * A fake OpenAI chat handler whose answers the test writes, so a turn can be held mid-answer:
 * each chat request waits in line until the test streams text into it and ends it.
 */
import type http from 'node:http';
import { chunk, type ChatHandler } from './fake-openai.js';
import { patientDeadline } from './patience.js';

/** Polls `check` every 5 ms until it holds, or throws after `ms` (at least `PATIENCE_MS`). */
async function waitFor(check: () => boolean, ms: number, what: string): Promise<void> {
  const until = patientDeadline(ms);
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** One held chat request. */
interface HeldAnswer {
  /** The request body as sent (`messages`, `model`, …). */
  body: Record<string, any>;
  /** Streams `text` as one chunk of the answer. */
  say(text: string): void;
  /** Streams `text` (when given), then `finish_reason: stop` and `[DONE]`, and ends the answer. */
  end(text?: string): void;
}

/** The handler and the requests it holds, oldest first. */
export interface HeldAnswers {
  handler: ChatHandler;
  /** Every request so far, answered or not. */
  readonly all: HeldAnswer[];
  /** The `index`th request (0-based), once it has come. */
  at(index: number, ms?: number): Promise<HeldAnswer>;
}

/** A new handler holding every chat request it gets. */
export function heldAnswers(): HeldAnswers {
  const all: HeldAnswer[] = [];
  const handler: ChatHandler = (_req: http.IncomingMessage, res: http.ServerResponse, body) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    all.push({
      body,
      say: (text) => void res.write(chunk({ content: text })),
      end: (text) => {
        if (text) res.write(chunk({ content: text }));
        res.write(chunk({}, 'stop'));
        res.end('data: [DONE]\n\n');
      },
    });
  };
  return {
    handler,
    all,
    at: async (index, ms = 5000) => {
      await waitFor(() => all.length > index, ms, `chat request ${index + 1}`);
      return all[index]!;
    },
  };
}

/** The messages of a request as `role: content` strings (content parts as JSON). */
export function roles(body: Record<string, any>): string[] {
  return body.messages.map((m: { role: string; content: unknown }) => `${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`);
}
