/**
 * The guards that keep a call written in a message from running when the message only shows it:
 * a call introduced as an example ("you can call it like this:", "for example:", "this is not a
 * tool call:"), and a call inside a code block that more prose follows (a parser the user asked
 * for, a template being documented). The rule they keep: the whole answer, or its tail, is the
 * call. Pure; linear in the text.
 */

/**
 * Words that introduce an example rather than a call, at the end of the text before a call: the
 * last line (a colon or not), looked at for at most 200 characters.
 */
const EXAMPLE_INTRO =
  /(?:\bfor (?:example|instance)\b|\be\.g\.|\bexamples?\b|\bas follows\b|\bsyntax\b|\bwould look like\b|\b(?:is|are) not an? (?:real |actual )?(?:tool |function )?call|\bnot a tool call\b|\b(?:you|one|users?) (?:can|could|would|should|may|might) (?:call|use|invoke|run|write)\b|\bhere(?: is|'s) how\b|\btemplate\b|\bformat(?:ted)?(?: is| like)?\s*:)[^\n]{0,200}$/i;

/** Whether the text before a call (`prose`, the answer up to the call's marker or fence) introduces it as an example. */
export function introducesExample(prose: string): boolean {
  const line = prose
    .trimEnd()
    .replace(/\n?[ \t]*```[\w-]*$/, '')
    .trimEnd();
  const last = line.slice(line.lastIndexOf('\n') + 1).slice(-200);
  return EXAMPLE_INTRO.test(last);
}

/**
 * A test of positions of `text`, in increasing order: whether the text at a position stands
 * inside a code block that closes before the end, with more text after it (the call is shown in
 * the block, not made). The fences (line-leading ```` ``` ````) are found once.
 */
export function shownInBlock(text: string): (at: number) => boolean {
  const marks: number[] = [];
  for (let i = text.indexOf('```'); i >= 0; i = text.indexOf('```', i + 3)) {
    let j = i - 1;
    while (j >= 0 && (text[j] === ' ' || text[j] === '\t')) j--;
    if (j < 0 || text[j] === '\n') marks.push(i);
  }
  let last = text.length - 1;
  while (last >= 0 && /\s/.test(text[last]!)) last--;
  let cursor = 0;
  return (at) => {
    while (cursor < marks.length && marks[cursor]! < at) cursor++;
    // An odd number of fences before `at`: inside a block, which the next fence closes.
    const close = marks[cursor];
    return cursor % 2 === 1 && close !== undefined && last > close + 2;
  };
}
