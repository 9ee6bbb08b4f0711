/**
 * The registry's promise: a tool is one module and one line in BUILTIN_TOOLS. Every tool in the
 * list is complete, and no other file of src/ names a built-in tool by a string literal (so
 * nothing outside the module needs changing when a tool is added, renamed or removed).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { toChatTool } from '../../../src/tools/builtin/builtin-tools.js';
import { BUILTIN_TOOLS } from '../../../src/tools/builtin/registry.js';
import { toFunctionParameters } from '../../../src/tools/mcp/mcp-schema.js';
import { PLAN_TOOL_NAME } from '../../../src/tools/policy/plan-tool.js';
import { builtin } from '../../helpers/builtin-tool.js';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../../src');
const TOOL_KINDS = ['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other'];
const PERMISSION_CLASSES = ['reads', 'edits', 'runs', 'fetches'];

/** The module file of a tool: `tools/builtin/<name with - for _>.ts`. */
const moduleFile = (name: string) => join(SRC, 'tools/builtin', `${name.replace(/_/g, '-')}.ts`);

describe.each(BUILTIN_TOOLS.map((tool) => [tool.name, tool] as const))('built-in tool %s', (name, tool) => {
  it('lives in its own module, which exports it', async () => {
    expect(name).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
    expect(existsSync(moduleFile(name))).toBe(true);
    const module = (await import(moduleFile(name))) as Record<string, unknown>;
    expect(Object.values(module)).toContain(tool);
  });

  it('has a description, a kind, a permission class, a presenter and a runner', () => {
    expect(tool.description.trim().length).toBeGreaterThan(10);
    expect(TOOL_KINDS).toContain(tool.kind);
    expect(PERMISSION_CLASSES).toContain(tool.permission);
    expect(typeof tool.present).toBe('function');
    expect(typeof tool.run).toBe('function');
    // A call with no arguments (bad ones are announced too) is still presented, with a title.
    const shown = builtin(name).present({});
    expect(shown.title.length).toBeGreaterThan(0);
    expect(shown.kind).toBe(tool.kind);
  });

  it('generates an object JSON Schema providers accept: typed, described fields, required ones listed', () => {
    const parameters = toChatTool(tool).function.parameters;
    expect(parameters.type).toBe('object');
    expect(JSON.stringify(parameters)).not.toMatch(/"\$schema"|additionalProperties|"minimum"|"maximum"|"note"/);
    for (const [field, schema] of Object.entries(parameters.properties)) {
      expect(typeof schema.type, field).toBe('string');
      expect(schema.description.length, field).toBeGreaterThan(0);
    }
    for (const field of parameters.required) expect(parameters.properties).toHaveProperty(field);
    // Nothing Gemini rejects: its cleaning leaves the schema as it is.
    expect(toFunctionParameters(parameters, { gemini: true })).toEqual(parameters);
  });

  it('checks its arguments against the schema: nothing given fails exactly when a field is required', () => {
    const required = toChatTool(tool).function.parameters.required;
    const result = builtin(name).check('{}', false);
    expect(result.ok).toBe(required.length === 0);
    if (!result.ok) for (const field of required) expect(result.error).toContain(`"${field}" is missing`);
  });

  it('has aliases only for its own fields', () => {
    const fields = Object.keys(toChatTool(tool).function.parameters.properties);
    for (const [alias, field] of Object.entries(tool.aliases ?? {})) {
      expect(fields, alias).toContain(field);
      expect(fields, alias).not.toContain(alias);
    }
  });
});

describe('the registry', () => {
  it('holds each name once, apart from the plan tool', () => {
    const names = BUILTIN_TOOLS.map((tool) => tool.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).not.toContain(PLAN_TOOL_NAME);
  });

  /**
   * Files that may name a built-in tool by a string literal besides its module. The system prompt
   * (context/, below tools/ in the layers) advises the model on tools by name (`edit_file`,
   * `update_plan`) and is given the offered names as facts.
   */
  const MAY_NAME_TOOLS = ['context/system-prompt.ts'];

  it('no other file of src/ names a built-in tool by a string literal', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
      );
    const names = [...BUILTIN_TOOLS.map((tool) => tool.name), PLAN_TOOL_NAME];
    const owner = new Map<string, string>([
      ...BUILTIN_TOOLS.map((tool) => [tool.name, moduleFile(tool.name)] as const),
      [PLAN_TOOL_NAME, join(SRC, 'tools/policy/plan-tool.ts')],
    ]);
    const offenders: string[] = [];
    for (const file of files(SRC)) {
      const path = relative(SRC, file);
      if (MAY_NAME_TOOLS.includes(path)) continue;
      const text = readFileSync(file, 'utf8');
      for (const name of names) {
        if (owner.get(name) === file) continue;
        if (new RegExp(`(['"])${name}\\1`).test(text)) offenders.push(`${path} names ${name}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
