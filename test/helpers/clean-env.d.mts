/** The clean environment for `home` (temp HOME and XDG_* dirs, no inherited OPENAI_*), then `env` on top. */
export function cleanEnv(home: string, env?: Record<string, string>): Record<string, string>;
/** A fresh directory under the OS temp dir to serve as HOME; the caller removes it. */
export function makeHome(prefix?: string): string;
/** Removes a home made by `makeHome`. */
export function removeHome(home: string): void;
/** `cleanEnv` for one temp home per process, removed when the process exits (for bench/ scripts). */
export function scriptEnv(env?: Record<string, string>): Record<string, string>;
