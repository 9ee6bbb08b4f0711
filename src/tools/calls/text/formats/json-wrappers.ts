/**
 * Formats that wrap JSON call envelopes (`{"name": …, "arguments": {…}}`, alone, in a list, or
 * one after another) in a tag or a token of their own. Data: see `call-format.ts`.
 */
import type { CallFormat } from './call-format.js';
import { llamaCpp, ollama, sglang, vllm } from './servers.js';

export const JSON_WRAPPERS: readonly CallFormat[] = [
  {
    id: 'hermes',
    models: 'Hermes 2/3, Qwen2.5, Qwen3, QwQ, ERNIE 4.5, Granite 4, many fine-tunes',
    markers: [
      { open: '<tool_call>', read: 'body', close: ['</tool_call>'], body: 'hermes' },
      { open: '```tool_call', read: 'body', close: ['```'], body: 'hermes' },
      // A second call opened with the closing tag, as small models write it.
      { open: '</tool_call>', read: 'body', close: ['</tool_call>'], body: 'hermes', offeredOnly: true },
    ],
    arguments: 'JSON object under "arguments" (or "parameters", "args")',
    template: ['<tool_call>'],
    servers: [
      vllm('hermes', 'hermes_tool_parser', '836d1f3'),
      vllm('qwen2', 'qwen2_tool_parser', 'aa6abe9'),
      vllm('ernie45', 'ernie45_tool_parser', '737189e'),
      sglang('hermes', 'hermes_detector', 'c85d8b2'),
      sglang('qwen25', 'qwen25_detector', '5d2c83e'),
      llamaCpp('HERMES_2_PRO'),
      llamaCpp('XIAOMI_MIMO'),
      ollama('tools (template-derived)', 'tools/tools.go'),
      ollama('qwen3', 'model/parsers/qwen3.go'),
      ollama('qwen3vl', 'model/parsers/qwen3vl.go'),
    ],
  },
  {
    id: 'granite',
    models: 'Granite 3.x, Phi-4-mini (as Granite writes it)',
    markers: [{ open: '<|tool_call|>', read: 'body', close: ['<|/tool_call|>', '</tool_call>'], body: 'granite' }],
    arguments: 'a JSON list of envelopes',
    template: ['<|tool_call|>'],
    servers: [vllm('granite', 'granite_tool_parser', '1a31143'), llamaCpp('GRANITE')],
  },
  {
    id: 'granite-20b-fc',
    models: 'Granite 20B function calling; models told to answer in <function_call>',
    markers: [{ open: '<function_call>', read: 'body', close: ['</function_call>'], body: 'hermes' }],
    arguments: 'JSON envelope after each <function_call>',
    template: ['<function_call>'],
    servers: [vllm('granite-20b-fc', 'granite_20b_fc_tool_parser', '79a6749')],
  },
  {
    id: 'nemotron',
    models: 'Nemotron (Llama-3.1-Nemotron, Nemotron Nano 2)',
    markers: [{ open: '<TOOLCALL>', read: 'body', close: ['</TOOLCALL>'], body: 'hermes' }],
    arguments: 'a JSON list of envelopes',
    template: ['<TOOLCALL>'],
    servers: [llamaCpp('NEMOTRON_V2')],
  },
  {
    id: 'tool-calls-list',
    models: 'Hunyuan-A13B, Jamba, Apriel, MiniMax-M1',
    markers: [{ open: '<tool_calls>', read: 'body', close: ['</tool_calls>'], body: 'hermes' }],
    arguments: 'a JSON list of envelopes, or one envelope a line',
    template: ['<tool_calls>'],
    servers: [
      vllm('hunyuan_a13b', 'hunyuan_a13b_tool_parser', '3866bae'),
      vllm('jamba', 'jamba_tool_parser', '4694df5'),
      vllm('minimax', 'minimax_tool_parser', '359b8ff'),
      sglang('hunyuan', 'hunyuan_detector', 'f8d3276'),
      llamaCpp('APRIEL_1_5'),
    ],
  },
  {
    id: 'internlm2',
    models: 'InternLM 2 / 2.5',
    markers: [{ open: '<|action_start|><|plugin|>', read: 'body', close: ['<|action_end|>'], body: 'hermes' }],
    arguments: 'JSON envelope with "parameters"',
    template: ['<|plugin|>'],
    servers: [vllm('internlm', 'internlm2_tool_parser', '8d39585'), sglang('internlm', 'internlm_detector', '0c50dc9')],
  },
  {
    id: 'longcat',
    models: 'LongCat-Flash',
    markers: [{ open: '<longcat_tool_call>', read: 'body', close: ['</longcat_tool_call>'], body: 'hermes' }],
    arguments: 'JSON envelope',
    template: ['<longcat_tool_call>'],
    servers: [vllm('longcat', 'longcat_tool_parser', '737189e'), sglang('longcat', 'longcat_detector', '23d2260')],
  },
  {
    id: 'phi4-mini',
    models: 'Phi-4-mini, FireFunction v2',
    markers: [{ open: 'functools', read: 'body', close: [], body: 'granite' }],
    arguments: 'a JSON list of envelopes',
    template: ['functools['],
    servers: [vllm('phi4_mini_json', 'phi4mini_tool_parser', 'd3f259f'), llamaCpp('FIREFUNCTION_V2')],
  },
  {
    id: 'gigachat3',
    models: 'GigaChat 3',
    markers: [
      { open: 'function call<|role_sep|>', read: 'body', close: [], body: 'hermes' },
      { open: 'function call', read: 'body', close: [], body: 'hermes' },
    ],
    arguments: 'JSON envelope',
    template: ['function call'],
    servers: [vllm('gigachat3', 'gigachat3_tool_parser', '556d349'), sglang('gigachat3', 'gigachat3_detector', 'ace691e')],
  },
  {
    id: 'command',
    models: 'Command R7B, Command A',
    markers: [{ open: '<|START_ACTION|>', read: 'body', close: ['<|END_ACTION|>'], body: 'json' }],
    arguments: 'a JSON list of {"tool_name", "parameters"}',
    template: ['<|START_ACTION|>'],
    servers: [
      vllm('command', 'command_tool_parser', '3731a3d'),
      sglang('cohere_command4', 'cohere_command4_detector', '6fcb8d8'),
      llamaCpp('COMMAND_R7B'),
      ollama('cohere', 'model/parsers/cohere.go'),
    ],
  },
  {
    id: 'apertus',
    models: 'Apertus',
    markers: [{ open: '<|tools_prefix|>', read: 'body', close: ['<|tools_suffix|>'], body: 'json' }],
    arguments: 'a JSON list of {"NAME": {arguments}}',
    template: ['<|tools_prefix|>'],
    servers: [vllm('apertus', 'apertus_tool_parser', '9a9650d'), sglang('apertus', 'apertus2509_detector', '16739a6'), llamaCpp('APERTUS')],
  },
  {
    id: 'llama3-json',
    models: 'Llama 3.1 / 3.2 / 3.3, Llama 4 (JSON), xLAM',
    markers: [
      { open: '<|python_tag|>', read: 'body', close: ['<|eom_id|>', '<|eot_id|>'], body: 'llama' },
      { open: '<|python_start|>', read: 'body', close: ['<|python_end|>'], body: 'llama' },
    ],
    arguments: 'JSON envelope with "parameters"; calls joined by ";" (or the bare envelope as the whole answer)',
    template: ['<|python_tag|>', '"parameters": dictionary of argument name and its value'],
    servers: [
      vllm('llama3_json', 'llama_tool_parser', '500932b'),
      vllm('llama4_json', 'llama4_tool_parser', 'cfa0534'),
      vllm('xlam', 'xlam_tool_parser', 'a2c5474'),
      sglang('llama3', 'llama32_detector', '1150761'),
      llamaCpp('LLAMA_3_X'),
      llamaCpp('LLAMA_3_X_WITH_BUILTIN_TOOLS'),
    ],
  },
  {
    id: 'wrapped-json',
    models: 'any model told to answer in JSON (<response>, <tools> around one call)',
    markers: [
      { open: '<response>', read: 'body', close: ['</response>'], body: 'json', offeredOnly: true },
      { open: '<tools>', read: 'body', close: ['</tools>'], body: 'json', offeredOnly: true },
    ],
    arguments: 'JSON envelope',
    servers: [],
  },
];
