/**
 * Formats that write a call as XML-like tags, the arguments as tagged parameters whose values
 * are text (typed by the tool's schema). Data: see `call-format.ts`.
 */
import type { CallFormat } from './call-format.js';
import { llamaCpp, ollama, sglang, vllm } from './servers.js';

export const XML_TAGS: readonly CallFormat[] = [
  {
    id: 'qwen3-coder',
    models: 'Qwen3-Coder, Qwen3.5 / 3.6, Qwen3-Next, Nemotron 3 Nano (inside <tool_call>, or alone)',
    markers: [{ open: '<function=', read: 'function-tag', body: 'qwen-xml' }],
    arguments: '<parameter=KEY>VALUE</parameter>, values as text (Functionary v3.1: a JSON object as the body)',
    template: ['<function=', '<parameter='],
    servers: [
      vllm('qwen3_coder', 'qwen3coder_tool_parser', '1936cf3'),
      vllm('qwen3_xml', 'qwen3xml_tool_parser', '6369b33'),
      sglang('qwen3_coder', 'qwen3_coder_detector', '5d2c83e'),
      llamaCpp('QWEN3_CODER_XML'),
      llamaCpp('FUNCTIONARY_V3_1_LLAMA_3_1'),
      ollama('qwen3coder', 'model/parsers/qwen3coder.go'),
      ollama('qwen35', 'model/parsers/qwen35.go'),
      ollama('nemotron3nano', 'model/parsers/nemotron3nano.go'),
    ],
  },
  {
    id: 'seed-oss',
    models: 'Seed-OSS 36B',
    markers: [{ open: '<seed:tool_call>', read: 'body', close: ['</seed:tool_call>'], body: 'qwen-xml' }],
    arguments: '<function=NAME><parameter=KEY>VALUE</parameter></function>',
    template: ['<seed:tool_call>'],
    servers: [vllm('seed_oss', 'seed_oss_tool_parser', '0b2d55a'), llamaCpp('SEED_OSS')],
  },
  {
    id: 'minimax-m2',
    models: 'MiniMax-M2 / M2.1',
    markers: [
      { open: '<minimax:tool_call>', read: 'body', close: ['</minimax:tool_call>'], body: 'minimax' },
      { open: '<invoke ', read: 'invoke-tag', body: 'minimax' },
    ],
    arguments: '<invoke name="NAME"><parameter name="KEY">VALUE</parameter></invoke>',
    template: ['<minimax:tool_call>'],
    servers: [vllm('minimax_m2', 'minimax_m2_tool_parser', 'd848ed6'), sglang('minimax-m2', 'minimax_m2', '9837cea'), llamaCpp('MINIMAX_M2')],
  },
  {
    id: 'glm-4.5',
    models: 'GLM-4.5 / 4.6 / 4.7, Laguna',
    markers: [],
    arguments: '<tool_call>NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value></tool_call> (read inside the Hermes wrapper)',
    template: ['<arg_key>'],
    servers: [
      vllm('glm45', 'glm4_moe_tool_parser', '3e990f4'),
      sglang('glm45', 'glm4_moe_detector', '1d8d19d'),
      sglang('glm47', 'glm47_moe_detector', '665ff34'),
      llamaCpp('GLM_4_5'),
      ollama('glm46', 'model/parsers/glm46.go'),
      ollama('glm47', 'model/parsers/glm47.go'),
      ollama('laguna', 'model/parsers/laguna.go'),
    ],
  },
  {
    id: 'glimmer',
    models: 'Glimmer (Muse)',
    markers: [
      { open: '<atem:function_calls>', read: 'body', close: ['</atem:function_calls>'], body: 'minimax' },
      { open: '<atem:invoke ', read: 'atem-invoke', body: 'minimax' },
    ],
    arguments: '<atem:invoke name="NAME"><atem:parameter name="KEY">VALUE</atem:parameter></atem:invoke>',
    template: ['<atem:function_calls>'],
    servers: [ollama('glimmer', 'model/parsers/glimmer.go'), sglang('muse_glimmer', 'muse_glimmer_detector', '5e86984')],
  },
  {
    id: 'dsml',
    models: 'DeepSeek V3.2, DeepSeek V4 (Flash, Pro)',
    // Both spellings of the bar (the tokenizer's `｜`, the ASCII `|` some servers print); the wrapper may be left out.
    markers: [
      { open: '<｜DSML｜tool_calls>', read: 'dsml' },
      { open: '<｜DSML｜function_calls>', read: 'dsml' },
      { open: '<｜DSML｜invoke ', read: 'dsml' },
      { open: '<|DSML|tool_calls>', read: 'dsml' },
      { open: '<|DSML|function_calls>', read: 'dsml' },
      { open: '<|DSML|invoke ', read: 'dsml' },
    ],
    arguments: '<｜DSML｜parameter name="KEY" string="true|false">VALUE</｜DSML｜parameter>, or a JSON object',
    template: ['DSML'],
    servers: [
      vllm('deepseek_v32', 'deepseekv32_tool_parser', '113121d'),
      sglang('deepseekv32', 'deepseekv32_detector', 'd51fbf8'),
      sglang('deepseekv4', 'deepseekv4_detector', '00a8f59'),
    ],
  },
];
