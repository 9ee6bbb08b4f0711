/**
 * Formats written as plain text: pythonic calls, code fences, bare JSON envelopes, and the ReAct
 * form of agent frameworks. Bare forms (no marker) are calls only as the whole answer (or its
 * head, followed by prose) and only of offered tools: `read-text-calls.ts` reads them. Data: see
 * `call-format.ts`.
 */
import type { CallFormat } from './call-format.js';
import { framework, llamaCpp, ollama, sglang, vllm } from './servers.js';

export const TEXT_FORMS: readonly CallFormat[] = [
  {
    id: 'pythonic',
    models: 'Llama 3.2 / 4 (pythonic), Gemma 3, LFM2, OLMo 3, ToolACE',
    markers: [
      { open: '<function_calls>', read: 'body', close: ['</function_calls>'], body: 'pythonic' },
      { open: '<|tool_call_start|>', read: 'body', close: ['<|tool_call_end|>'], body: 'pythonic' },
      { open: '```tool_code', read: 'body', close: ['```'], body: 'pythonic' },
    ],
    arguments: '[NAME(key=value, …), …] with Python literals',
    template: ['[func_name1(', '<|tool_call_start|>', '<function_calls>', 'tool_code'],
    servers: [
      vllm('pythonic', 'pythonic_tool_parser', '630fe7e'),
      vllm('llama4_pythonic', 'llama4_pythonic_tool_parser', 'fb6c050'),
      vllm('olmo3', 'olmo3_tool_parser', '935fb9e'),
      sglang('pythonic', 'pythonic_detector', '5d2c83e'),
      sglang('lfm2', 'lfm2_detector', 'a1b6e39'),
      llamaCpp('LFM2_WITH_JSON_TOOLS'),
      ollama('lfm2', 'model/parsers/lfm2.go'),
      ollama('olmo3', 'model/parsers/olmo3.go'),
    ],
  },
  {
    id: 'bare-json',
    models: 'any (Qwen2.5-Coder, Llama 3.x through Ollama, Devstral through llama.cpp)',
    markers: [],
    arguments: 'the whole answer a JSON envelope, a list of them, or {"tool_calls": […]}; calls separated by ";" or lines',
    servers: [
      vllm('llama3_json', 'llama_tool_parser', '500932b'),
      sglang('json_array', 'json_array_detector', 'aa925bf'),
      llamaCpp('GENERIC'),
      ollama('tools (template-derived)', 'tools/tools.go'),
    ],
  },
  {
    id: 'react',
    models: 'models tuned on LangChain / smolagents traces',
    markers: [{ open: 'Action:', read: 'react', body: 'react', offeredOnly: true }],
    arguments: 'Action: NAME, then Action Input: a JSON object or a string; or Action: {JSON envelope}',
    template: ['Action Input:'],
    servers: [
      framework('ReAct (LangChain)', 'langchain-ai/langchain libs/langchain/langchain/agents/output_parsers/react_single_input.py', 'master'),
      framework('ToolCallingAgent (smolagents)', 'huggingface/smolagents src/smolagents/prompts/toolcalling_agent.yaml', 'main'),
    ],
  },
];
