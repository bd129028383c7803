// The folder import rules of DESIGN.md ("Folders (src/), one concern each"),
// checked over every import in src/: dependencies point down the request flow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const srcDir = resolve(import.meta.dirname, '../../src');

/**
 * DESIGN.md's table: what each folder may import besides itself. Every folder
 * may import `api/`; `cli/` is the composition root and imports everything.
 */
const mayImport: Record<string, readonly string[] | 'everything'> = {
  cli: 'everything',
  // src/index.ts, the package's entry (startServer): it composes through cli/.
  '': ['cli'],
  server: ['endpoints', 'auth'],
  endpoints: ['registry', 'encoding', 'cache', 'patch', 'schema'],
  encoding: [],
  api: [],
  registry: ['apply', 'patch', 'schema', 'admission', 'storage', 'cache', 'cel'],
  apply: ['schema'],
  patch: ['schema'],
  schema: [],
  admission: ['patch', 'schema', 'cel'],
  cel: [],
  auth: [],
  storage: [],
  cache: ['storage'],
  controllers: ['registry', 'cache', 'cel'],
};

/** The `src/` folder a path belongs to, or undefined when it lies outside `src/`. */
function folderOf(path: string): string | undefined {
  const rel = relative(srcDir, path);
  if (rel.startsWith('..') || rel === '') return undefined;
  const parts = rel.split(sep);
  return parts.length > 1 ? parts[0] : '';
}

function allowed(from: string, to: string): boolean {
  if (from === to || to === 'api') return true;
  const rule = mayImport[from];
  if (rule === undefined) return false;
  return rule === 'everything' || rule.includes(to);
}

/** Every relative module specifier of a source (static, type-only, re-exports and dynamic imports). */
function importsOf(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName).filter((s) => s.startsWith('.'));
}

/** The imports of `file` that cross into a folder its own folder may not import, as "file → specifier (folder)". */
function crossings(file: string, source: string): string[] {
  const from = folderOf(file);
  if (from === undefined) return [];
  const found: string[] = [];
  for (const spec of importsOf(source)) {
    const to = folderOf(resolve(dirname(file), spec));
    if (to === undefined || allowed(from, to)) continue;
    found.push(`${relative(srcDir, file)} → ${spec} (${to}/)`);
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

const checkerCases: { name: string; file: string; source: string; expected: string[] }[] = [
  { name: 'an import within the folder is fine', file: 'cache/watcher.ts', source: "import { x } from './types.ts';", expected: [] },
  { name: 'any folder may import api/', file: 'storage/memory.ts', source: "import { x } from '../api/index.ts';", expected: [] },
  { name: 'a listed folder is fine', file: 'cache/watch-cache.ts', source: "import { x } from '../storage/backend.ts';", expected: [] },
  {
    name: 'an unlisted folder is a crossing',
    file: 'storage/memory.ts',
    source: "import { x } from '../cache/types.ts';",
    expected: ['storage/memory.ts → ../cache/types.ts (cache/)'],
  },
  {
    name: 'a type-only import counts',
    file: 'auth/user.ts',
    source: "import type { X } from '../registry/store.ts';",
    expected: ['auth/user.ts → ../registry/store.ts (registry/)'],
  },
  {
    name: 're-exports and dynamic imports count',
    file: 'api/index.ts',
    source: "export * from '../schema/types.ts';\nconst m = await import('../storage/memory.ts');",
    expected: ['api/index.ts → ../schema/types.ts (schema/)', 'api/index.ts → ../storage/memory.ts (storage/)'],
  },
  {
    name: 'a nested file belongs to its top folder',
    file: 'registry/builtin/core.ts',
    source: "import { x } from '../../endpoints/http.ts';",
    expected: ['registry/builtin/core.ts → ../../endpoints/http.ts (endpoints/)'],
  },
  { name: 'cli/ imports everything', file: 'cli/serve.ts', source: "import { x } from '../controllers/crd.ts';", expected: [] },
  { name: 'packages and node: modules are not folders', file: 'schema/formats.ts', source: "import x from 'yaml';\nimport y from 'node:fs';", expected: [] },
  { name: 'a commented-out import is no import', file: 'apply/merge.ts', source: "// import { x } from '../registry/store.ts';", expected: [] },
];

for (const c of checkerCases) {
  test(`the import check: ${c.name}`, () => {
    assert.deepEqual(crossings(join(srcDir, c.file), c.source), c.expected);
  });
}

const files = sourceFiles(srcDir);

test('every folder of src/ has a row in the import table', () => {
  const folders = new Set(files.map(folderOf));
  assert.deepEqual([...folders].filter((f) => f === undefined || !(f in mayImport)), []);
});

for (const folder of Object.keys(mayImport)) {
  test(`${folder}/ imports only what DESIGN.md allows`, () => {
    const inFolder = files.filter((f) => folderOf(f) === folder);
    assert.ok(inFolder.length > 0, `no files in src/${folder}/`);
    assert.deepEqual(inFolder.flatMap((f) => crossings(f, readFileSync(f, 'utf8'))), []);
  });
}
