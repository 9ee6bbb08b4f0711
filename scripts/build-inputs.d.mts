/** The file in dist/ holding the digest of the inputs it was built from. */
export const DIGEST_FILE: string;
/** The sha256 (hex) of what a build reads under `root` (default: this checkout), with Node's version, architecture and `BUILD_NO_MINIFY`. */
export function buildInputsDigest(root?: string): string;
/** Whether `dist` holds a whole build made from inputs with this digest. */
export function builtFrom(dist: string, digest: string): boolean;
