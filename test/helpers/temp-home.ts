/**
 * Temp homes for the CLIs a test file starts, removed after that file's tests (vitest ends its
 * workers without an `exit` event, so a `process.on('exit')` cleanup would never run).
 */
import { afterAll } from 'vitest';
import { makeHome, removeHome } from './clean-env.mjs';

export { cleanEnv } from './clean-env.mjs';

const homes: string[] = [];
afterAll(() => {
  for (const home of homes.splice(0)) removeHome(home);
});

/** A fresh temp directory to use as HOME with {@link cleanEnv}, removed after the test file. */
export function tempHome(prefix = 'openai-acp-home-'): string {
  const home = makeHome(prefix);
  homes.push(home);
  return home;
}
