/**
 * The one way a count is written for people (messages, notices, tool results, `doctor`): rounded
 * to a whole number, thousands separated by commas, as `en-US` writes them whatever the locale
 * (the model and the logs read the same text everywhere).
 */

/** `128000` → `128,000`; `1234.6` → `1,235`; `-4096` → `-4,096`. */
export function grouped(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
