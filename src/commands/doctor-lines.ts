/**
 * A line of the `openai-acp doctor` report and how it is printed: `✓ title: detail` (passed),
 * `✗` (failed, with an indented `fix:`), `⚠` (failed without stopping the agent), `–` (not
 * applicable or not checked); and the check names, in report order.
 */
import { WINDOW_TITLE } from './doctor-window.js';

/**
 * `pass` ✓, `fail` ✗ (the agent would not work), `warn` ⚠ (something is missing, but the agent
 * works: the model list, usage, reasoning effort), `skip` – (not applicable, or not checked
 * because an earlier check failed).
 */
type CheckStatus = 'pass' | 'fail' | 'warn' | 'skip';

/** One line of the report. */
export interface CheckLine {
  status: CheckStatus;
  /** The check's name, e.g. `endpoint answers`. */
  title: string;
  /** What was found, e.g. `HTTP 200 from http://127.0.0.1:11434/v1/models`. */
  detail: string;
  /** On `fail`: what to do, in plain words. */
  fix?: string;
}

/** The check names, in report order. */
export const CHECK_TITLES = {
  config: 'configuration is valid',
  endpoint: 'endpoint answers',
  auth: 'authentication accepted',
  models: 'model list (GET /models)',
  completion: 'one-token streamed completion',
  usage: 'usage reported',
  reasoning: 'reasoning effort accepted',
} as const;

/** The checks whose failure does not stop the agent: reported as ⚠, not ✗. */
export const NON_BLOCKING: readonly string[] = [CHECK_TITLES.models, CHECK_TITLES.usage, CHECK_TITLES.reasoning, WINDOW_TITLE];

/** A line of the report; `fix` only when there is one. */
export const line = (status: CheckStatus, title: string, detail: string, fix?: string): CheckLine =>
  fix ? { status, title, detail, fix } : { status, title, detail };

/** Whether an HTTP status is an authentication refusal (401, 403). */
export const isAuthStatus = (status: number | undefined) => status === 401 || status === 403;

/** The mark of a status: `✓`, `✗`, `⚠` or `–`. */
function mark(status: CheckStatus): string {
  return status === 'pass' ? '✓' : status === 'fail' ? '✗' : status === 'warn' ? '⚠' : '–';
}

/** A note as text, `note: …` at `indent`, the lines after its first indented under its first word. Ends without a newline. */
export function renderNote(text: string, indent: string): string {
  return `${indent}note: ${text.split('\n').join(`\n${indent}      `)}`;
}

/** A check as text: `✓ title: detail`, and on failure or warning an indented `fix:` line. Ends without a newline. */
export function renderCheck(check: CheckLine, indent = '  '): string {
  const head = `${indent}${mark(check.status)} ${check.title}: ${check.detail}`;
  return check.fix ? `${head}\n${indent}    fix: ${check.fix}` : head;
}
