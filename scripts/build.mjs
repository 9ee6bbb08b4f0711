// Bundles the CLI into dist/ with esbuild: one file to load at start-up (fast cold start),
// undici left external and imported lazily on the first request.
import { build } from 'esbuild';
import { chmodSync, rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: ['src/cli.ts'],
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['undici'],
  minify: true,
  keepNames: false,
  legalComments: 'none',
  sourcemap: 'linked',
  // Bundled CommonJS dependencies (dotenv) call require(); give ESM one.
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: 'warning',
});
chmodSync(new URL('../dist/cli.js', import.meta.url), 0o755);
