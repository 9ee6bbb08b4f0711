import { describe, expect, it } from 'vitest';
import { TurnInbox } from '../../src/sessions/turn-inbox.js';

const text = (t: string) => [{ type: 'text' as const, text: t }];
const clock = () => {
  let n = 0;
  return () => new Date(Date.UTC(2026, 0, 1, 0, 0, n++));
};

describe('TurnInbox', () => {
  it('while open, takes each message at once and gives them to the model in order, with the answers before them', async () => {
    const inbox = new TurnInbox(clock());
    inbox.open();
    await expect(inbox.put(text('a'))).resolves.toBe(true);
    await expect(inbox.put(text('b'))).resolves.toBe(true);
    expect(inbox.take(1)).toEqual([text('a'), text('b')]);
    expect(inbox.take(2)).toEqual([]);
    await inbox.put(text('c'));
    expect(inbox.take(3)).toEqual([text('c')]);
    expect(inbox.close(4)).toEqual([
      { at: '2026-01-01T00:00:00.000Z', afterStep: 1, prompt: text('a') },
      { at: '2026-01-01T00:00:01.000Z', afterStep: 1, prompt: text('b') },
      { at: '2026-01-01T00:00:02.000Z', afterStep: 3, prompt: text('c') },
    ]);
  });

  it("a message put before the loop starts waits for it, and is the turn's once it opens", async () => {
    const inbox = new TurnInbox(clock());
    let answered: boolean | undefined;
    void inbox.put(text('early')).then((taken) => (answered = taken));
    await Promise.resolve();
    expect(answered).toBeUndefined();
    expect(inbox.take(1)).toEqual([]);
    inbox.open();
    await Promise.resolve();
    expect(answered).toBe(true);
    expect(inbox.take(1)).toEqual([text('early')]);
  });

  it('a prompt that ends without a loop refuses what waited, and keeps no record of it', async () => {
    const inbox = new TurnInbox();
    const waiting = inbox.put(text('for a command'));
    expect(inbox.close(0)).toEqual([]);
    await expect(waiting).resolves.toBe(false);
    await expect(inbox.put(text('late'))).resolves.toBe(false);
  });

  it('closeIfEmpty lets the loop end only when nothing waits; after that every put is refused', async () => {
    const inbox = new TurnInbox();
    inbox.open();
    await inbox.put(text('x'));
    expect(inbox.closeIfEmpty()).toBe(false);
    expect(inbox.isOpen).toBe(true);
    expect(inbox.take(1)).toEqual([text('x')]);
    expect(inbox.closeIfEmpty()).toBe(true);
    expect(inbox.isClosed).toBe(true);
    await expect(inbox.put(text('after the end'))).resolves.toBe(false);
    expect(inbox.close(2).map((s) => s.prompt)).toEqual([text('x')]);
  });

  it('messages still waiting when an open turn ends are kept, after all its answers', async () => {
    const inbox = new TurnInbox(clock());
    inbox.open();
    await inbox.put(text('given'));
    inbox.take(1);
    await inbox.put(text('never given'));
    const records = inbox.close(2);
    expect(records.map((s) => [s.afterStep, s.prompt])).toEqual([
      [1, text('given')],
      [2, text('never given')],
    ]);
    // Closing again changes nothing.
    expect(inbox.close(5)).toEqual(records);
  });
});
