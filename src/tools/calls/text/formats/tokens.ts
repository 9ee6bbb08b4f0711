/**
 * Formats written with the model's own special tokens around the name and the arguments. Data:
 * see `call-format.ts`.
 */
import type { CallFormat } from './call-format.js';
import { llamaCpp, ollama, sglang, vllm } from './servers.js';

/** DeepSeek's and Kimi's call tokens, in the tokenizer's spelling (`｜`, `▁`) and the ASCII one servers print. */
const DEEPSEEK_TOKENS = [
  '<｜tool▁calls▁begin｜>',
  '<｜tool▁calls｜>',
  '<｜tool▁call▁begin｜>',
  '<|tool▁calls▁begin|>',
  '<|tool▁call▁begin|>',
  '<|tool_calls_begin|>',
  '<|tool_call_begin|>',
];

export const TOKENS: readonly CallFormat[] = [
  {
    id: 'mistral',
    models: 'Mistral 7B v0.3, Nemo, Small 3.x, Devstral, Magistral, Ministral',
    markers: [{ open: '[TOOL_CALLS]', read: 'mistral-tokens', body: 'mistral-tokens' }],
    arguments: 'a JSON list of envelopes (v0.3), or NAME[ARGS]{json} (v11 and later)',
    template: ['[TOOL_CALLS]'],
    servers: [
      vllm('mistral', 'mistral_tool_parser', 'a5cdcfa'),
      sglang('mistral', 'mistral_detector', 'a343daa'),
      llamaCpp('MISTRAL_NEMO'),
      llamaCpp('MAGISTRAL'),
      ollama('ministral', 'model/parsers/ministral.go'),
    ],
  },
  {
    id: 'deepseek',
    models: 'DeepSeek V3, R1 (and distills), V3.1, Cogito',
    markers: DEEPSEEK_TOKENS.map((open) => ({ open, read: 'call-tokens' as const, body: 'deepseek-tokens' as const })),
    arguments: 'function<｜tool▁sep｜>NAME then ```json{…}``` (V3, R1), or NAME<｜tool▁sep｜>{…} (V3.1)',
    template: ['tool▁calls▁begin', 'tool▁call▁begin'],
    servers: [
      vllm('deepseek_v3', 'deepseekv3_tool_parser', '98ba358'),
      vllm('deepseek_v31', 'deepseekv31_tool_parser', '9d6a1c3'),
      sglang('deepseekv3', 'deepseekv3_detector', 'eec3d3c'),
      sglang('deepseekv31', 'deepseekv31_detector', 'f45359b'),
      llamaCpp('DEEPSEEK_R1'),
      llamaCpp('DEEPSEEK_V3_1'),
      ollama('deepseek3', 'model/parsers/deepseek3.go'),
      ollama('cogito', 'model/parsers/cogito.go'),
    ],
  },
  {
    id: 'step3',
    models: 'Step-3',
    markers: [{ open: '<｜tool_calls_begin｜>', read: 'call-tokens', body: 'deepseek-tokens' }],
    arguments: 'function<｜tool_sep｜><steptml:invoke name="NAME"><steptml:parameter name="KEY">VALUE</steptml:parameter>',
    template: ['steptml'],
    servers: [vllm('step3', 'step3_tool_parser', '0a426f5'), sglang('step3', 'step3_detector', '5d2c83e')],
  },
  {
    id: 'kimi-k2',
    models: 'Kimi K2, K2 Thinking',
    markers: [{ open: '<|tool_calls_section_begin|>', read: 'call-tokens', body: 'deepseek-tokens' }],
    arguments: 'functions.NAME:IDX<|tool_call_argument_begin|>{json}',
    template: ['<|tool_calls_section_begin|>'],
    servers: [vllm('kimi_k2', 'kimi_k2_tool_parser', '63c2b7a'), sglang('kimi_k2', 'kimik2_detector', '0351c1f'), llamaCpp('KIMI_K2')],
  },
  {
    id: 'harmony',
    models: 'gpt-oss 20B / 120B',
    markers: [
      { open: '<|start|>', read: 'harmony', body: 'harmony' },
      { open: '<|channel|>', read: 'harmony', body: 'harmony' },
      { open: 'to=functions.', read: 'harmony', body: 'harmony' },
      { open: 'commentary to=', read: 'harmony', body: 'harmony' },
      { open: '<|constrain|>', read: 'harmony', body: 'harmony' },
    ],
    arguments: 'to=functions.NAME <|constrain|>json<|message|>{json}<|call|>',
    template: ['<|channel|>'],
    servers: [
      vllm('openai', 'openai_tool_parser', '0558e31'),
      sglang('gpt-oss', 'gpt_oss_detector', '0351c1f'),
      llamaCpp('GPT_OSS'),
      ollama('harmony', 'harmony/harmonyparser.go'),
    ],
  },
  {
    id: 'gemma4',
    models: 'Gemma 4, FunctionGemma',
    markers: [
      { open: '<|tool_call>', read: 'gemma', body: 'gemma' },
      { open: '<start_function_call>', read: 'gemma', body: 'gemma' },
      // The token split from its word in multimodal output: `<call>NAME{…}` (vLLM's Gemma 4 tests).
      { open: '<call>', read: 'gemma', body: 'gemma', offeredOnly: true },
      // The tokens gone: `call:NAME{…}` or `call:NAME(key: value)`, of an offered tool.
      { open: 'call:', read: 'gemma-bare', body: 'gemma', offeredOnly: true },
    ],
    arguments: 'call:NAME{key:<|"|>text<|"|>,n:42}; also call:NAME(key: "text")',
    template: ['<|tool_call>', '<start_function_call>'],
    servers: [
      vllm('gemma4', 'gemma4_tool_parser', 'dfcb56b'),
      sglang('gemma4', 'gemma4_detector', '008b79d'),
      ollama('gemma4', 'model/parsers/gemma4.go'),
      ollama('functiongemma', 'model/parsers/functiongemma.go'),
    ],
  },
];
