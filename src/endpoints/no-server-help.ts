/**
 * Words for the user when the zero-configuration search (`local-discovery.ts`) found no local
 * server: the ports tried and how long it waited, what answered without being usable, and how to
 * start each server or point at one.
 */
import { LOCAL_CANDIDATES, LOCAL_HOST, urlHost, type LocalCandidate, type LocalProbe, type LocalProvider } from './local-discovery.js';

/** Each server's name, how to start it, and what to do when it lists no model. */
const HOW: Record<LocalProvider, { name: string; start: string; noModels: string }> = {
  ollama: { name: 'Ollama', start: '`ollama serve`, then `ollama pull qwen3:8b`', noModels: 'run `ollama pull qwen3:8b` (or another model)' },
  lmstudio: {
    name: 'LM Studio',
    start: '`lms server start` (or Developer → Start Server in the app)',
    noModels: 'download a model in LM Studio (or `lms get <model>`)',
  },
  vllm: { name: 'vLLM', start: '`vllm serve <model>`', noModels: 'start it with a model: `vllm serve <model>`' },
  llamacpp: { name: 'llama.cpp', start: '`llama-server -m <model>.gguf`', noModels: 'start it with a model: `llama-server -m <model>.gguf`' },
  litellm: { name: 'LiteLLM', start: '`litellm --model <provider>/<model>`', noModels: 'add a model to its `model_list`' },
};

/** What {@link noLocalServerHelp} says, all optional. */
export interface NoServerHelpOptions {
  /** The places searched. @defaultValue {@link LOCAL_CANDIDATES} */
  candidates?: ReadonlyArray<LocalCandidate> | undefined;
  /** What each probe found: a server that answered without being usable, or did not answer in time, is named. @defaultValue none */
  probes?: ReadonlyArray<LocalProbe> | undefined;
  /** The host searched. @defaultValue {@link LOCAL_HOST} */
  host?: string | undefined;
  /** How long the search waited, in ms; said with the ports tried. @defaultValue not said */
  waitedMs?: number | undefined;
  /** True inside a container: also says how to reach a server on the host (`host.docker.internal`, `--add-host` on Linux, a server listening beyond its loopback). @defaultValue false */
  container?: boolean | undefined;
}

/** `850 ms` below a second, `2.5 s` from one. */
const duration = (ms: number): string => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);

/**
 * Words for the user when no local server was found: the ports tried and how long the search
 * waited, what answered without being usable or did not answer in time (when `probes` are given),
 * how to start each server or point at it with `OPENAI_BASE_URL`, and `OPENAI_API_KEY` for a
 * cloud provider. Markdown, several lines.
 */
export function noLocalServerHelp(options: NoServerHelpOptions = {}): string {
  const { candidates = LOCAL_CANDIDATES, probes = [], host = LOCAL_HOST, waitedMs, container = false } = options;
  const tried = candidates.map(({ port, provider }) => `${HOW[provider].name} :${port}`).join(', ');
  const waited = waitedMs === undefined ? '' : `; waited ${duration(waitedMs)}`;
  const lines = [
    `No OpenAI-compatible server with a model was found on ${host} (tried ${tried}${waited}), and neither OPENAI_BASE_URL nor OPENAI_API_KEY is set.`,
  ];
  for (const p of probes) {
    const where = `${host}:${p.port}`;
    if (p.outcome === 'no-models') lines.push(`${HOW[p.provider].name} answers on ${where} but lists no models: ${HOW[p.provider].noModels}.`);
    if (p.outcome === 'http-error') lines.push(`Something answers on ${where}, but not as an OpenAI-compatible server (HTTP ${p.status} for /v1/models).`);
    if (p.outcome === 'timeout') {
      lines.push(
        `Something accepted the connection on ${where} but did not answer /v1/models${waitedMs === undefined ? ' in time' : ` within ${duration(waitedMs)}`} ` +
          `(a busy machine, or a server still loading): set \`OPENAI_BASE_URL=http://${urlHost(host)}:${p.port}/v1\` to skip the search (doctor waits longer with \`--timeout-ms 20000\`).`,
      );
    }
  }
  lines.push('Start a local server (it is found automatically), or point at one with OPENAI_BASE_URL:');
  for (const { port, provider } of candidates) {
    lines.push(`- ${HOW[provider].name}: ${HOW[provider].start} — \`OPENAI_BASE_URL=http://${urlHost(host)}:${port}/v1\``);
  }
  if (container) {
    lines.push(
      'openai-acp runs in a container, where 127.0.0.1 is the container itself; host.docker.internal (the host) was ' +
        'tried too and did not answer. To use a server on the host: ' +
        'run the container with `--add-host=host.docker.internal:host-gateway` (Linux; Docker Desktop defines the ' +
        'name), make the server listen beyond its loopback (Ollama: `OLLAMA_HOST=0.0.0.0 ollama serve`), ' +
        'and set `OPENAI_BASE_URL=http://host.docker.internal:11434/v1` (with the port of your server).',
    );
  }
  lines.push('For a cloud provider, set OPENAI_API_KEY and OPENAI_MODEL (and OPENAI_BASE_URL for one other than OpenAI, e.g. `https://openrouter.ai/api/v1`).');
  return lines.join('\n');
}
