// Exports of src/ and who imports them: counts of those used in src/, used only by test/,
// property-tests/, bench/ or scripts/, and used nowhere; `node scripts/export-report.mjs . none|tests`
// lists the names. Dynamic `import()` counts a name when the importing file mentions it.
import ts from 'typescript';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve, dirname, relative } from 'node:path';
const root = resolve(process.argv[2]);
const walk = (d) =>
  readdirSync(d).flatMap((n) => {
    const p = join(d, n);
    if (n === 'node_modules' || n === 'fixtures') return [];
    return statSync(p).isDirectory() ? walk(p) : /\.(ts|mts|mjs)$/.test(n) && !n.endsWith('.d.ts') ? [p] : [];
  });
const srcFiles = walk(join(root, 'src'));
const otherFiles = ['test', 'property-tests', 'bench', 'scripts'].flatMap((d) => {
  try {
    return walk(join(root, d));
  } catch {
    return [];
  }
});
const exportsOf = new Map(); // file -> Map(name -> kind)
const usedBy = new Map(); // `${file}\0${name}` -> Set(importer)
const key = (f, n) => `${f}\0${n}`;
const use = (f, n, by) => {
  const k = key(f, n);
  if (!usedBy.has(k)) usedBy.set(k, new Set());
  usedBy.get(k).add(by);
};
const resolveMod = (from, spec) => {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec).replace(/\.js$/, '');
  for (const c of [base + '.ts', base + '/index.ts'])
    try {
      statSync(c);
      return c;
    } catch {}
  return undefined;
};
const parse = (f) => ts.createSourceFile(f, readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true);
for (const f of srcFiles) {
  const sf = parse(f);
  const names = new Map();
  for (const st of sf.statements) {
    const mods = ts.canHaveModifiers(st) ? (ts.getModifiers(st) ?? []) : [];
    if (mods.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) names.set(d.name.getText(), 'const');
      else if (st.name) names.set(st.name.getText(), ts.SyntaxKind[st.kind].replace('Declaration', ''));
    }
    if (ts.isExportDeclaration(st) && st.exportClause && ts.isNamedExports(st.exportClause) && !st.moduleSpecifier)
      for (const e of st.exportClause.elements) names.set(e.name.getText(), 'reexport-local');
    if (ts.isExportDeclaration(st) && st.moduleSpecifier && st.exportClause && ts.isNamedExports(st.exportClause))
      for (const e of st.exportClause.elements) names.set(e.name.getText(), 'reexport');
  }
  exportsOf.set(f, names);
}
for (const f of [...srcFiles, ...otherFiles]) {
  const text = readFileSync(f, 'utf8');
  const sf = ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      const target = resolveMod(f, node.moduleSpecifier.text);
      if (target) {
        if (ts.isImportDeclaration(node)) {
          const cl = node.importClause;
          if (cl?.namedBindings && ts.isNamedImports(cl.namedBindings))
            for (const e of cl.namedBindings.elements) use(target, (e.propertyName ?? e.name).getText(), f);
          if (cl?.namedBindings && ts.isNamespaceImport(cl.namedBindings)) {
            const ns = cl.namedBindings.name.getText();
            for (const m of text.matchAll(new RegExp(`\\b${ns}\\.(\\w+)`, 'g'))) use(target, m[1], f);
          }
          if (cl?.name) use(target, 'default', f);
        } else if (node.exportClause && ts.isNamedExports(node.exportClause))
          for (const e of node.exportClause.elements) use(target, (e.propertyName ?? e.name).getText(), f);
        else if (!node.exportClause) for (const n of exportsOf.get(target)?.keys() ?? []) use(target, n, f);
      }
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && ts.isStringLiteral(node.arguments[0])) {
      const target = resolveMod(f, node.arguments[0].text);
      if (target) for (const n of exportsOf.get(target)?.keys() ?? []) if (new RegExp(`\\b${n}\\b`).test(text)) use(target, n, f);
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      const target = resolveMod(f, node.argument.literal.text);
      if (target && node.qualifier) use(target, node.qualifier.getText().split('.')[0], f);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}
const rows = { none: [], tests: [], src: 0 };
for (const [f, names] of exportsOf)
  for (const [n, kind] of names) {
    const by = [...(usedBy.get(key(f, n)) ?? [])].filter((b) => b !== f);
    const inSrc = by.some((b) => b.startsWith(join(root, 'src/')));
    const rel = relative(root, f);
    if (inSrc) rows.src++;
    else if (by.length) rows.tests.push(`${rel}\t${n}\t${kind}\t${by.map((b) => relative(root, b)).join(',')}`);
    else rows.none.push(`${rel}\t${n}\t${kind}`);
  }
console.log(`used in src: ${rows.src}\nonly tests/bench/scripts: ${rows.tests.length}\nnowhere: ${rows.none.length}`);
if (process.argv[3] === 'none') console.log(rows.none.join('\n'));
if (process.argv[3] === 'tests') console.log(rows.tests.join('\n'));
