/**
 * A byte limit in the words of a message (`16 MiB`, `4096 bytes`), shared by the wire's readers
 * (`openai/`) and the stdio transport (`transport/`).
 */

/** `16 MiB` for a whole number of MiB, else `N bytes`; `bytes` is a count of bytes. */
export function describeBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}
