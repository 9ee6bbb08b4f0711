/**
 * A loader for code kept out of start-up: the first call runs `load` (an `import()` of a lazy
 * chunk, say), and every later call gets the same promise, so the module is loaded once per
 * process however many callers wait for it at once. A load that fails is forgotten, so a later
 * call tries again (a chunk missing from a broken install reports the same error each time
 * rather than a stale one). Pure apart from the promise it keeps.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    }));
}
