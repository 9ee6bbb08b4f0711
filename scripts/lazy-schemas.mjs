// Build-time source transform: construct an SDK's zod schemas on first use instead of when its
// modules load. Applied to the ACP SDK (main bundle) and the MCP SDK (the MCP client chunk).
//
// Why: `@agentclientprotocol/sdk` builds ~250 zod schemas (and ~30 guard schemas) at module top
// level. In the bundled CLI that was about 40 ms of a 80 ms cold start, yet answering
// `initialize` needs only `zInitializeRequest` and what it references. Likewise
// `@modelcontextprotocol/sdk` builds ~170 schemas (types.js, shared/auth.js) when its client
// chunk loads (~25 of its ~38 ms, unminified, no code cache), of which a stdio client uses a few
// dozen.
//
// What it does, per module: every top-level `const NAME = INIT` whose INIT builds a schema while
// the module loads (it uses the zod namespace, a lazy member or lazy named import of another
// transformed module, or a local lazy const outside any function body) becomes
//     let NAME$v; function NAME$() { return NAME$v ??= (INIT); }
// and every reference to NAME becomes `NAME$()`; a named import of a lazy export
// (`import { NAME } from './types.js'`) imports `NAME$` and is read as `NAME$()` too. INIT is the
// same expression, evaluated the first time something asks for it, so each schema is the same
// object graph built from the same code: validation behaviour is unchanged
// (test/build/build-lazy-schemas.test.ts and build-lazy-schemas-mcp.test.ts compare every
// schema's definition and its parse results against the untransformed SDK).
//
// Consumers evaluated at load time that only hand a schema to a parser (the ACP SDK's
// `requestSpec(method, validate.zX)` / `notificationSpec(...)` tables, whose values reach
// `parseParams`, which calls `.parse`) receive a deferred parser `{ parse, safeParse }` that
// builds the schema on its first call. Anything else the transform does not understand throws
// (as does re-exporting a lazy name, whose importers would not find it), so an SDK update that
// changes these shapes fails the build instead of misbehaving.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

/** Calls whose schema arguments may be deferred: the SDK stores them for `parseParams` only. */
const DEFERRABLE_CALLS = new Set(['requestSpec', 'notificationSpec']);

const DEFERRED_PARSER = `function __deferredParser(get) {
  return { parse: (value, params) => get().parse(value, params), safeParse: (value, params) => get().safeParse(value, params) };
}\n`;

/** True when `node` runs only when a function (or method, accessor, class body) is called. */
function isDeferred(node, statement) {
  for (let current = node.parent; current && current !== statement; current = current.parent) {
    if (ts.isFunctionLike(current)) return true;
    if (ts.isPropertyDeclaration(current) && !current.modifiers?.some((m) => m.kind === ts.SyntaxKind.StaticKeyword)) return true;
  }
  return false;
}

/** True when `node` is an argument of a call in {@link DEFERRABLE_CALLS} (`requestSpec(m, node)`). */
function isDeferrableArgument(node) {
  const call = node.parent;
  return ts.isCallExpression(call) && ts.isIdentifier(call.expression) && DEFERRABLE_CALLS.has(call.expression.text) && call.arguments.includes(node);
}

/** True when the identifier is a reference (not a declaration name, property name or key). */
function isReference(id) {
  const parent = id.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === id) return false;
  if (
    (ts.isPropertyAssignment(parent) ||
      ts.isMethodDeclaration(parent) ||
      ts.isPropertyDeclaration(parent) ||
      ts.isGetAccessor(parent) ||
      ts.isSetAccessor(parent)) &&
    parent.name === id
  )
    return false;
  if (
    (ts.isVariableDeclaration(parent) ||
      ts.isFunctionDeclaration(parent) ||
      ts.isParameter(parent) ||
      ts.isClassDeclaration(parent) ||
      ts.isBindingElement(parent)) &&
    parent.name === id
  )
    return false;
  if (ts.isImportSpecifier(parent) || ts.isNamespaceImport(parent) || ts.isImportClause(parent) || ts.isExportSpecifier(parent)) return false;
  if (ts.isLabeledStatement(parent) || ts.isBreakOrContinueStatement(parent)) return false;
  return true;
}

function walk(node, visit) {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
}

/**
 * Transform one module's source.
 *
 * @param {string} source - the module's JavaScript (ESM).
 * @param {object} options
 * @param {(specifier: string) => Set<string> | undefined} options.lazyExportsOf - for an import
 *   specifier of this module, the lazy export names of that (transformed) module, or undefined
 *   when it is not transformed.
 * @param {string} [options.zod='zod/v4'] - the import specifier whose namespace builds schemas.
 * @returns {{ code: string, lazy: Set<string>, exports: Set<string> }} the new source, the names
 *   made lazy, and which of them are exported (as `NAME$`).
 * @throws {Error} when a lazy name is used in a way the transform cannot keep equivalent.
 */
export function makeSchemasLazy(source, { lazyExportsOf, zod = 'zod/v4' }) {
  const file = ts.createSourceFile('module.js', source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  /** namespace import name → lazy export names of the module it imports */
  const lazyNamespaces = new Map();
  /** local name of a named import of a lazy export (`import { A as B }`: B) → its ImportSpecifier node */
  const lazyImports = new Map();
  let zodNamespace;
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier.text;
    const bindings = statement.importClause?.namedBindings;
    if (!bindings) continue;
    const lazyOfTarget = lazyExportsOf(specifier);
    if (ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) {
        if (lazyOfTarget?.has((element.propertyName ?? element.name).text)) lazyImports.set(element.name.text, element);
      }
      continue;
    }
    if (specifier === zod) zodNamespace = bindings.name.text;
    if (lazyOfTarget) lazyNamespaces.set(bindings.name.text, lazyOfTarget);
  }

  const lazy = new Set();
  const exported = new Set();
  // The names of every local declaration below the top level, to refuse shadowing.
  const innerNames = new Set();
  const isLazyMember = (node) =>
    ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && lazyNamespaces.get(node.expression.text)?.has(node.name.text);

  // Pass 1: which top-level consts build a schema while the module loads. One forward pass is
  // enough: a load-time reference to a later const would have been a TDZ error.
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const declarations = statement.declarationList.declarations;
    if (!(statement.declarationList.flags & ts.NodeFlags.Const)) continue;
    for (const declaration of declarations) {
      if (!declaration.initializer || !ts.isIdentifier(declaration.name)) continue;
      let builds = false;
      walk(declaration.initializer, (node) => {
        if (builds || isDeferred(node, statement)) return;
        if (ts.isIdentifier(node) && isReference(node) && (node.text === zodNamespace || lazy.has(node.text) || lazyImports.has(node.text))) builds = true;
        else if (isLazyMember(node) && !isDeferrableArgument(node)) builds = true;
      });
      if (!builds) continue;
      if (declarations.length !== 1) throw new Error(`lazy-schemas: ${declaration.name.text} shares a declaration list`);
      lazy.add(declaration.name.text);
      if (statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) exported.add(declaration.name.text);
    }
  }
  walk(file, (node) => {
    if (
      (ts.isVariableDeclaration(node) || ts.isParameter(node) || ts.isBindingElement(node) || ts.isFunctionDeclaration(node)) &&
      node.name &&
      ts.isIdentifier(node.name)
    ) {
      const topLevel = ts.isVariableDeclaration(node) && node.parent.parent.parent === file;
      if (!topLevel) innerNames.add(node.name.text);
    }
  });
  for (const name of [...lazy, ...lazyImports.keys()]) {
    if (innerNames.has(name)) throw new Error(`lazy-schemas: ${name} is shadowed by an inner declaration`);
    if (lazy.has(`${name}$`) || source.includes(`${name}$`)) throw new Error(`lazy-schemas: ${name}$ already exists`);
  }
  // A re-exported lazy name is gone for the re-exporter's importers (it is `NAME$` now): refuse.
  for (const statement of file.statements) {
    if (!ts.isExportDeclaration(statement) || !statement.exportClause || !ts.isNamedExports(statement.exportClause)) continue;
    const lazyOfSource = statement.moduleSpecifier ? lazyExportsOf(statement.moduleSpecifier.text) : undefined;
    for (const element of statement.exportClause.elements) {
      const name = (element.propertyName ?? element.name).text;
      if (lazyOfSource ? lazyOfSource.has(name) : lazy.has(name) || lazyImports.has(name))
        throw new Error(`lazy-schemas: export { ${element.name.text} } of a lazy name`);
    }
  }
  if (lazy.size === 0 && lazyNamespaces.size === 0 && lazyImports.size === 0) return { code: source, lazy, exports: exported };

  // Pass 2: text edits, applied back to front.
  const edits = [];
  let usesDeferredParser = false;
  const edit = (start, end, text) => edits.push({ start, end, text });
  // A lazy import is imported as `A$` (`A$ as B$`), and read as `B$()` like a local lazy const.
  for (const [local, element] of lazyImports) {
    edit(element.getStart(), element.getEnd(), element.propertyName ? `${element.propertyName.text}$ as ${local}$` : `${local}$`);
  }
  for (const statement of file.statements) {
    const lazyDeclaration =
      ts.isVariableStatement(statement) && statement.declarationList.declarations.length === 1 && lazy.has(statement.declarationList.declarations[0].name.text)
        ? statement.declarationList.declarations[0]
        : undefined;
    walk(statement, (node) => {
      if (ts.isIdentifier(node) && (lazy.has(node.text) || lazyImports.has(node.text)) && isReference(node)) {
        if (ts.isShorthandPropertyAssignment(node.parent)) edit(node.getStart(), node.getEnd(), `${node.text}: ${node.text}$()`);
        else edit(node.getStart(), node.getEnd(), `${node.text}$()`);
        return;
      }
      if (!isLazyMember(node)) return;
      if (lazyDeclaration || isDeferred(node, statement)) {
        edit(node.name.getStart(), node.name.getEnd(), `${node.name.text}$()`);
        return;
      }
      // A load-time reference outside a lazy const: allowed only as a stored parser.
      if (!isDeferrableArgument(node)) {
        throw new Error(`lazy-schemas: load-time use of ${node.getText()} that cannot be deferred: ${node.parent.getText().slice(0, 120)}`);
      }
      usesDeferredParser = true;
      edit(node.getStart(), node.getEnd(), `__deferredParser(${node.expression.text}.${node.name.text}$)`);
    });
    if (lazyDeclaration) {
      const name = lazyDeclaration.name.text;
      const isExported = exported.has(name);
      // Replace `[export] const NAME = ` … `;` around the (edited) initializer.
      edit(
        statement.getStart(),
        lazyDeclaration.initializer.getStart(),
        `let ${name}$v; ${isExported ? 'export ' : ''}function ${name}$() { return ${name}$v ??= (`,
      );
      edit(lazyDeclaration.initializer.getEnd(), statement.getEnd(), '); }');
    }
  }
  edits.sort((a, b) => b.start - a.start || b.end - a.end);
  let code = source;
  let lastStart = Infinity;
  for (const { start, end, text } of edits) {
    if (end > lastStart) throw new Error('lazy-schemas: overlapping edits');
    code = code.slice(0, start) + text + code.slice(end);
    lastStart = start;
  }
  if (usesDeferredParser) code += `\n${DEFERRED_PARSER}`;
  return { code, lazy, exports: exported };
}

/**
 * The SDKs whose modules are transformed: the ACP SDK (in the main bundle) and the MCP SDK (in the
 * MCP client chunk). A build that loads one of them must make at least `minimum` schemas lazy: a
 * schema-heavy SDK that yields fewer means the transform no longer recognises it.
 */
const SDKS = [
  { name: '@agentclientprotocol/sdk', minimum: 100 },
  { name: '@modelcontextprotocol/sdk', minimum: 100 },
].map((sdk) => ({ ...sdk, dist: `${join('node_modules', ...sdk.name.split('/'), 'dist')}/` }));

/**
 * esbuild plugin: the modules of the SDKs in {@link SDKS} through {@link makeSchemasLazy}. A
 * module that imports a transformed module of the same SDK learns its lazy exports from the same
 * (cached) transform.
 */
export function lazySchemasPlugin() {
  const cache = new Map();
  const sdkOf = (path) => SDKS.find((sdk) => path.includes(sdk.dist));
  const transform = (path) => {
    let result = cache.get(path);
    if (result === undefined) {
      const source = readFileSync(path, 'utf8');
      const sdk = sdkOf(path);
      result = makeSchemasLazy(source, {
        lazyExportsOf: (specifier) => {
          if (!specifier.startsWith('.')) return undefined;
          const target = resolve(dirname(path), specifier);
          return sdkOf(target) === sdk ? transform(target).exports : undefined;
        },
      });
      cache.set(path, result);
    }
    return result;
  };
  return {
    name: 'lazy-schemas',
    setup(b) {
      /** SDK name → schemas made lazy in this build, for each SDK the build loaded. */
      const lazyCounts = new Map();
      b.onLoad({ filter: /[\\/](@agentclientprotocol|@modelcontextprotocol)[\\/]sdk[\\/]dist[\\/].*\.js$/ }, (args) => {
        const { code, lazy } = transform(args.path);
        const { name } = sdkOf(args.path);
        lazyCounts.set(name, (lazyCounts.get(name) ?? 0) + lazy.size);
        return { contents: code, loader: 'js' };
      });
      b.onEnd((result) => {
        if (result.errors.length > 0) return;
        for (const { name, minimum } of SDKS) {
          const count = lazyCounts.get(name);
          if (count !== undefined && count < minimum)
            result.errors.push({ text: `lazy-schemas: only ${count} schemas of ${name} made lazy; has the SDK changed shape?` });
        }
      });
    },
  };
}
