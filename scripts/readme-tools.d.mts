/** The README's text with its list of tools written from `names` (between `<!-- tools -->` and `<!-- /tools -->`). */
export function withToolList(readme: string, names: readonly string[]): string;
/** Rewrites README.md's list of tools when the registry changed; returns whether it did. */
export function updateReadmeTools(): Promise<boolean>;
