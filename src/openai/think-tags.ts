/**
 * Streaming splitter for reasoning written inline in the content as `<think>…</think>`
 * (DeepSeek-R1 and its distills on Together, Hugging Face router, vLLM without a reasoning
 * parser, Ollama's older builds, …).
 *
 * Whitespace is kept verbatim: everything between the tags is reasoning, everything outside is
 * text, and only the tags themselves are removed. This is what
 * `test/fixtures/providers/huggingface__router_together_r1_think_inline_text_and_delta.json`
 * (`expected_if_think_tags_split`) expects: `"<think>\nOkay…robot.\n</think>\nCrossing…"` gives
 * reasoning `"\nOkay…robot.\n"` and text `"\nCrossing…"`.
 */

/** A run of content of one kind. `text` is never empty. */
export interface ThinkSegment {
  type: 'text' | 'reasoning';
  text: string;
}

/** A stateful splitter; feed content deltas in order. */
export interface ThinkTagSplitter {
  /**
   * Feed the next piece of content.
   * @returns the segments now known, adjacent segments of one type merged, none empty. Only a
   * trailing piece that could still become a tag (`<`, `<th`, `</thi`, …) is held back.
   */
  push(text: string): ThinkSegment[];
  /**
   * End of content: release a held-back partial tag as literal content of the current kind.
   * The splitter stays in its current mode (an unclosed `<think>` stays reasoning).
   */
  flush(): ThinkSegment[];
}

const OPEN = '<think>';
const CLOSE = '</think>';

/**
 * Create a {@link ThinkTagSplitter}. Starts in text mode. In text mode `<think>` switches to
 * reasoning (anywhere, not only at the start); in reasoning mode `</think>` switches back. A
 * `</think>` in text mode and a `<think>` in reasoning mode are ordinary content. Tags are
 * matched case-sensitively, without attributes or inner whitespace.
 */
export function createThinkTagSplitter(): ThinkTagSplitter {
  let reasoning = false;
  let held = '';

  const emit = (out: ThinkSegment[], type: ThinkSegment['type'], text: string): void => {
    if (text.length === 0) return;
    const last = out[out.length - 1];
    if (last !== undefined && last.type === type) last.text += text;
    else out.push({ type, text });
  };

  return {
    push(piece: string): ThinkSegment[] {
      const out: ThinkSegment[] = [];
      const input = held.length > 0 ? held + piece : piece;
      held = '';
      let pos = 0;
      for (;;) {
        const tag = reasoning ? CLOSE : OPEN;
        const type = reasoning ? 'reasoning' : 'text';
        const found = input.indexOf(tag, pos);
        if (found !== -1) {
          emit(out, type, input.slice(pos, found));
          reasoning = !reasoning;
          pos = found + tag.length;
          continue;
        }
        // A tag prefix at the end must start at the last '<' (the tags hold one '<', first).
        const lt = input.lastIndexOf('<');
        let end = input.length;
        if (lt >= pos && input.length - lt < tag.length && tag.startsWith(input.slice(lt))) {
          end = lt;
          held = input.slice(lt);
        }
        emit(out, type, end === input.length && pos === 0 ? input : input.slice(pos, end));
        return out;
      }
    },
    flush(): ThinkSegment[] {
      const out: ThinkSegment[] = [];
      emit(out, reasoning ? 'reasoning' : 'text', held);
      held = '';
      return out;
    },
  };
}
