// The ACP registry's checks of one entry (`<id>/agent.json` and `<id>/icon.svg`), reproduced from
// its CI at agentclientprotocol/registry@3de1678346d1b37b6c3f07de503043ebcbb9cbdb,
// `.github/workflows/build_registry.py` (run by `.github/workflows/build-registry.yml`, "Validate
// and build"): the JSON schema (`agent.schema.json`, kept in test/fixtures/acp-registry/), then
// `validate_agent` (required fields, id, version, distribution), `validate_distribution_versions`
// (versions match, no `latest`), `validate_distribution_urls` (the npm package exists) and
// `validate_icon` (16×16, square, monochrome in currentColor). Written here from that file's
// rules, not copied. Used by scripts/check-release.mjs and test/registry.test.ts.
import { readFileSync } from 'node:fs';
import Ajv from 'ajv';

/** The registry commit these checks follow. */
export const REGISTRY_COMMIT = '3de1678346d1b37b6c3f07de503043ebcbb9cbdb';

const DISTRIBUTION_TYPES = ['binary', 'npx', 'uvx'];
const PLATFORMS = ['darwin-aarch64', 'darwin-x86_64', 'linux-aarch64', 'linux-x86_64', 'windows-aarch64', 'windows-x86_64'];
const OS_FAMILIES = ['darwin', 'linux', 'windows'];
const PLAIN_PAINTS = ['currentcolor', 'none', 'inherit'];
const ICON_SIZE = 16;

/** The registry's schema of an entry, as kept in test/fixtures/acp-registry/. */
function registrySchema() {
  return JSON.parse(readFileSync(new URL('../../test/fixtures/acp-registry/agent.schema.json', import.meta.url), 'utf8'));
}

/** `name` of an npm spec `name@version` or `@scope/name@version`. */
export function npmPackageName(spec) {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  return at === -1 ? spec : spec.slice(0, at);
}

/** `version` of an npm spec `name@version` or `@scope/name@version`; undefined without one. */
export function npmPackageVersion(spec) {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  return at === -1 ? undefined : spec.slice(at + 1);
}

/**
 * Every problem the registry's CI finds in `agent` submitted in folder `folder`, as its messages
 * say them; empty when it passes. As there, a schema failure is reported alone (the schema is
 * validated first, formats not asserted, as Python's `jsonschema.validate` does by default).
 */
export function entryProblems(agent, folder, schema = registrySchema()) {
  const validate = new Ajv({ allErrors: false, strict: false, validateFormats: false }).compile(schema);
  if (!validate(agent)) {
    const [error] = validate.errors ?? [];
    return [`Schema validation error at '${error?.instancePath.replace(/^\//, '').replaceAll('/', '.') || 'root'}': ${error?.message}`];
  }
  const problems = [];
  const missing = ['id', 'name', 'version', 'description', 'distribution'].filter((key) => !(key in agent));
  if (missing.length > 0) problems.push(`Missing required fields: ${missing.sort().join(', ')}`);
  const id = agent.id ?? '';
  if (!id) problems.push("Field 'id' cannot be empty");
  else if (!/^[a-zA-Z]/.test(id)) problems.push("Field 'id' must start with a letter");
  else if (!/^[a-z0-9-]+$/.test(id)) problems.push("Field 'id' must be lowercase with hyphens only");
  else if (id !== folder) problems.push(`Field 'id' (${id}) must match directory name (${folder})`);
  const parts = String(agent.version ?? '').split('.');
  if (parts.length < 3 || !parts.slice(0, 3).every((part) => /^\d+$/.test(part)))
    problems.push(`Field 'version' (${agent.version}) must be semantic version (e.g., 1.0.0)`);
  problems.push(...distributionProblems(agent.distribution ?? {}));
  if (problems.length === 0) problems.push(...versionProblems(agent.version, agent.distribution));
  return problems;
}

/** `validate_agent`'s distribution rules: known types, every OS for binaries, and their required fields. */
function distributionProblems(distribution) {
  const problems = [];
  const unknown = Object.keys(distribution).filter((type) => !DISTRIBUTION_TYPES.includes(type));
  if (unknown.length > 0) problems.push(`Unknown distribution types: ${unknown.sort().join(', ')}`);
  if (distribution.binary) {
    const platforms = Object.keys(distribution.binary);
    const strange = platforms.filter((platform) => !PLATFORMS.includes(platform));
    if (strange.length > 0) problems.push(`Unknown platforms: ${strange.sort().join(', ')}`);
    const families = new Set(platforms.filter((platform) => PLATFORMS.includes(platform)).map((platform) => platform.split('-')[0]));
    const absent = OS_FAMILIES.filter((family) => !families.has(family));
    if (absent.length > 0) problems.push(`Binary distribution must include builds for all operating systems. Missing: ${absent.join(', ')}`);
    for (const [platform, target] of Object.entries(distribution.binary)) {
      if (!PLATFORMS.includes(platform)) continue;
      if (!('archive' in target)) problems.push(`Platform ${platform} missing 'archive' field`);
      if (!('cmd' in target)) problems.push(`Platform ${platform} missing 'cmd' field`);
    }
  }
  for (const type of ['npx', 'uvx'])
    if (distribution[type] && !('package' in distribution[type])) problems.push(`Distribution '${type}' missing 'package' field`);
  return problems;
}

/** `validate_distribution_versions`: every distribution names the entry's version, none `latest`. */
function versionProblems(version, distribution) {
  const problems = [];
  for (const [platform, target] of Object.entries(distribution.binary ?? {})) {
    const url = target.archive ?? '';
    if (url.includes('/latest/')) problems.push(`Binary URL for ${platform} uses '/latest/' - use explicit version instead`);
    const named = /\/(?:download|releases)\/v?([\d.]+)\//.exec(url)?.[1] ?? /\/-\/[^/]+-(\d+\.\d+\.\d+)\.tgz/.exec(url)?.[1];
    const normalised = named?.split('.').concat(['0', '0']).slice(0, 3).join('.');
    if (!url.includes('/latest/') && normalised && normalised !== version)
      problems.push(`Binary URL for ${platform} has version ${normalised}, expected ${version}`);
  }
  if (distribution.npx) {
    const spec = distribution.npx.package ?? '';
    const named = npmPackageVersion(spec);
    if (spec.toLowerCase().includes('@latest')) problems.push(`npx package uses '@latest' - use explicit version instead: ${spec}`);
    else if (named && named !== version) problems.push(`npx package version (${named}) doesn't match agent version (${version})`);
  }
  if (distribution.uvx) {
    const spec = distribution.uvx.package ?? '';
    if (spec.toLowerCase().includes('@latest')) problems.push(`uvx package uses '@latest' - use explicit version instead: ${spec}`);
    const named = /[=@]+([\d.]+)/.exec(spec)?.[1];
    if (named && named !== version) problems.push(`uvx package version (${named}) doesn't match agent version (${version})`);
  }
  return problems;
}

/** `validate_icon`: 16×16 by `width`/`height` (else the `viewBox`), square, and `validate_icon_monochrome`. */
export function iconProblems(svg) {
  const width = /<svg[^>]*\swidth=["'](\d+)/.exec(svg)?.[1];
  const height = /<svg[^>]*\sheight=["'](\d+)/.exec(svg)?.[1];
  let size;
  if (width && height) size = [Number(width), Number(height)];
  else {
    const box = /viewBox=["'][\d.]+\s+[\d.]+\s+([\d.]+)\s+([\d.]+)/.exec(svg);
    if (!box) return ['Icon missing width/height attributes and viewBox'];
    size = [Number(box[1]), Number(box[2])];
  }
  const problems = [];
  if (size[0] !== size[1]) problems.push(`Icon must be square (got ${size[0]}x${size[1]})`);
  if (size[0] !== ICON_SIZE || size[1] !== ICON_SIZE)
    problems.push(`Icon should be ${ICON_SIZE}x${ICON_SIZE} (got ${Math.trunc(size[0])}x${Math.trunc(size[1])})`);
  for (const paint of ['fill', 'stroke']) {
    for (const [, value] of svg.matchAll(new RegExp(`\\b${paint}\\s*=\\s*["']([^"']+)["']`, 'gi'))) {
      if (!PLAIN_PAINTS.includes(value.trim().toLowerCase())) problems.push(`Icon has hardcoded ${paint}="${value}" (use currentColor or none)`);
    }
  }
  for (const [, style] of svg.matchAll(/\bstyle\s*=\s*["']([^"']+)["']/gi)) {
    for (const paint of ['fill', 'stroke']) {
      const value = new RegExp(`\\b${paint}\\s*:\\s*([^;]+)`, 'i').exec(style)?.[1]?.trim();
      if (value && !PLAIN_PAINTS.includes(value.toLowerCase())) problems.push(`Icon has hardcoded style ${paint}: ${value}`);
    }
  }
  if (!/currentColor/i.test(svg)) problems.push('Icon must use currentColor for fills/strokes to support theming');
  return [...new Set(problems)];
}

/**
 * `validate_distribution_urls` for an npx entry: the package `spec` names exists on `registryUrl`
 * (their CI asks https://registry.npmjs.org; a HEAD answered 200, 301 or 302, a GET after a 403 or 405).
 */
export async function npmPackageExists(registryUrl, spec) {
  const url = `${registryUrl.replace(/\/$/, '')}/${npmPackageName(spec).replace('/', '%2f')}`;
  const ask = (method) =>
    fetch(url, { method, redirect: 'manual', headers: { 'user-agent': 'ACP-Registry-Validator/1.0' }, signal: AbortSignal.timeout(15_000) });
  let answer = await ask('HEAD');
  if (answer.status === 403 || answer.status === 405) answer = await ask('GET');
  return [200, 301, 302].includes(answer.status);
}
