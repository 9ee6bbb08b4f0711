/**
 * Where each server keeps its tool-call parsers, and the commit each was read at: the references
 * the map's entries (`formats/*.ts`) cite. Data.
 */
import type { ServerParser } from './call-format.js';

/** vLLM's parser `parser` in `vllm/entrypoints/openai/tool_parsers/<file>.py`, read at `commit`. */
export const vllm = (parser: string, file: string, commit: string): ServerParser => ({
  server: 'vLLM',
  parser,
  file: `vllm-project/vllm vllm/entrypoints/openai/tool_parsers/${file}.py`,
  commit,
});

/** SGLang's detector `parser` in `python/sglang/srt/function_call/<file>.py`, read at `commit`. */
export const sglang = (parser: string, file: string, commit: string): ServerParser => ({
  server: 'SGLang',
  parser,
  file: `sgl-project/sglang python/sglang/srt/function_call/${file}.py`,
  commit,
});

/** llama.cpp's chat format `COMMON_CHAT_FORMAT_<format>` in `common/chat.cpp` (its tests in `tests/test-chat.cpp`), read at e7e2116. */
export const llamaCpp = (format: string): ServerParser => ({
  server: 'llama.cpp',
  parser: format,
  file: 'ggml-org/llama.cpp common/chat.cpp',
  commit: 'e7e2116',
});

/** Ollama's parser in `<file>` (a path in the repository), read at fb30760. */
export const ollama = (parser: string, file: string): ServerParser => ({ server: 'Ollama', parser, file: `ollama/ollama ${file}`, commit: 'fb30760' });

/** An agent framework's prompt format (not a server's parser), with the file that defines it. */
export const framework = (parser: string, file: string, commit: string): ServerParser => ({ server: 'framework', parser, file, commit });
