/**
 * `doctor`'s lines about a llama.cpp `llama-server`, from its `/props` answer
 * (https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md#get-props-get-server-global-properties):
 * the window it runs (`default_generation_settings.n_ctx`, per slot), whether its chat template
 * takes tools (`chat_template_caps.supports_tools`), and how to fix either: `-c` for the window,
 * `--jinja` with a template that takes tools (`--chat-template-file`). Without such a template
 * llama-server drops a request's `tools` and the model writes its calls as text.
 */
import type { LlamaCppProps } from '../endpoints/server-identity.js';
import { SMALL_WINDOW_TOKENS } from '../endpoints/window-resolver.js';
import { grouped } from '../shared/grouped.js';

const tokens = (value: number) => `${grouped(value)} tokens`;

/**
 * The rows for one endpoint, indented like the configuration rows.
 * @param props - the server's `/props` facts; `undefined` when it did not answer as llama.cpp does
 */
export function llamaCppRows(props: LlamaCppProps | undefined): string[] {
  const rows: [string, string][] = [];
  if (!props) {
    rows.push(['llama.cpp', 'unknown: /props did not answer as llama-server does (an old build, or a proxy in front of it)']);
    return format(rows);
  }
  if (props.build) rows.push(['server build', props.build]);
  if (props.nCtx) {
    const slots = props.slots && props.slots > 1 ? `; ${props.slots} slots` : '';
    rows.push(['runtime window', `${tokens(props.nCtx)} per request (/props n_ctx${slots})`]);
  } else rows.push(['runtime window', 'not reported (/props has no n_ctx)']);
  if (props.supportsTools === undefined) rows.push(['template tools', 'not reported (/props has no chat_template_caps)']);
  else if (props.supportsTools) rows.push(['template tools', 'yes: the chat template takes tools (/props chat_template_caps.supports_tools)']);
  else rows.push(['template tools', "no: the chat template cannot take tools; llama-server drops the request's tools and the model writes its calls as text"]);
  const fixes: string[] = [];
  if (props.nCtx && props.nCtx < SMALL_WINDOW_TOKENS)
    fixes.push('restart llama-server with a larger window, e.g. `-c 32768` (with `--parallel N` each slot gets 1/N of it; memory permitting)');
  if (props.supportsTools === false)
    fixes.push(
      'start llama-server with `--jinja` and a chat template that takes tools: ' +
        "`--chat-template-file <template>.jinja` (the model family's tool-use template, e.g. Qwen2.5/Hermes style)",
    );
  for (const [index, fix] of fixes.entries()) rows.push([index === 0 ? 'fix' : '', fix]);
  return format(rows);
}

const format = (rows: [string, string][]) => rows.map(([name, value]) => `    ${name.padEnd(16)}${value}`);
