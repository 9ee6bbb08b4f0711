/**
 * The shape of the map of tool-call formats (`formats/*.ts`): each format a model family writes
 * its calls in, as data: the markers that open a call (each with the reader of what follows), the
 * argument syntax, the chat-template text that shows the family, and the server code it was read
 * from (file and commit). `markers.ts` builds the reader's marker table from it. Types only.
 */
import type { TextCallFormat } from '../text-call.js';

/** A model server whose tool-call parsers the map was read from. */
type ServerName = 'vLLM' | 'SGLang' | 'llama.cpp' | 'Ollama' | 'framework';

/** One parser of one server: its name there, and the file and commit it was read from. */
export interface ServerParser {
  server: ServerName;
  /** The parser's name on that server (`--tool-call-parser hermes`, llama.cpp's `COMMON_CHAT_FORMAT_…`, Ollama's parser). */
  parser: string;
  /** The repository and path. */
  file: string;
  /** The commit the file was read at (short hash). */
  commit: string;
}

/**
 * How the text after a marker is read:
 * - `body`: a wrapper; what stands before its closing tag (any of `close`) is read by
 *   `tag-body.ts` (JSON envelopes, `<function=…>` or `<invoke>` blocks, pythonic calls, GLM pairs);
 * - `function-tag`, `invoke-tag`, `atem-invoke`: one XML-like call block;
 * - `mistral-tokens`, `gemma`, `gemma-bare`, `harmony`, `call-tokens` (DeepSeek, Kimi, Step-3),
 *   `dsml`, `react`: the format's own reader.
 */
type ReaderKind =
  | 'body'
  | 'function-tag'
  | 'invoke-tag'
  | 'atem-invoke'
  | 'mistral-tokens'
  | 'gemma'
  | 'gemma-bare'
  | 'harmony'
  | 'call-tokens'
  | 'dsml'
  | 'react';

/** One marker that opens a call. */
export interface CallMarker {
  /** The marker as the model writes it (a special token, a tag, a fence, a word). */
  open: string;
  read: ReaderKind;
  /** Closing tags of a `body` marker. */
  close?: readonly string[];
  /** The family recorded for a JSON body (`hermes`, `granite`, …); the format's own for other readers. */
  body?: TextCallFormat;
  /**
   * A marker that is also ordinary text (`<tools>`, `<response>`, a stray `</tool_call>`, `Action:`,
   * `call:`): what follows is a call only when every name in it is an offered tool.
   */
  offeredOnly?: true;
}

/** One format family. */
export interface CallFormat {
  id: string;
  /** The models that write it, as their makers name them. */
  models: string;
  markers: readonly CallMarker[];
  /** How the arguments are written, in a few words. */
  arguments: string;
  /** Text whose presence in a chat template shows the family (the first match picks its reader first). */
  template?: readonly string[];
  /** The servers' parsers of this format, read for the markers and the argument syntax. */
  servers: readonly ServerParser[];
}
