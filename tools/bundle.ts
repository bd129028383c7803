// `node tools/bundle.ts [--if-stale]`: builds the start-up bundle (see
// src/cli/bundle-manifest.ts) into a new directory under .cache/bundle/, then names it in
// the manifest. `--if-stale` does nothing while the last bundle is fresh. The builds
// before the last two are removed. Run by `npm start` and `npm test` before they start.
import { cpSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BuildOptions } from 'esbuild';
import { asciiSource } from './ascii-source.ts';
import { bundleRoot, fileStamp, freshManifest, isPackageFile, manifestFormat, manifestPath, repositoryRoot, startupScriptName, type BundleManifest } from '../src/cli/bundle-manifest.ts';

/** Files src/ reads beside its modules at run time (`new URL('./…', import.meta.url)`): copied to the same place beside the chunks. */
const dataFiles = [
  ['src/schema/builtin/generated/definitions.json', 'generated/definitions.json'],
  ['src/schema/builtin/generated/go-encoding.json', 'generated/go-encoding.json'],
  ['src/auth/bootstrap-policy/policy.json', 'bootstrap-policy/policy.json'],
  ['src/cli/feature-gates/kube.json', 'feature-gates/kube.json'],
] as const;

/** Installed packages change only with these. */
const lockFiles = ['package-lock.json', 'node_modules/.package-lock.json'];

/** The parameters the start-up script's function takes (bundle-manifest.ts, compileStartupScript). */
const scriptParameters = 'exports, require, module, __filename, __dirname, __plinthImportMetaUrl';

async function build(): Promise<BundleManifest> {
  // Imported here: without it (an install without dev dependencies) the sources run instead.
  const esbuild = await import('esbuild');
  const dir = `b${Date.now()}`;
  const outdir = path.join(bundleRoot, dir);
  const common: BuildOptions & { metafile: true } = {
    absWorkingDir: repositoryRoot,
    bundle: true,
    platform: 'node',
    target: 'node24',
    metafile: true,
    logLevel: 'warning',
    // Loaded only with --storage etcd, from node_modules as they are (gRPC loads its own files).
    external: ['etcd3', '@grpc/grpc-js'],
  };
  // The start-up script: one CommonJS function with every module in it (what loads lazily
  // is in it too, wrapped, and runs when first imported), run through node:vm with a code
  // cache. import.meta.url is the script's URL; any other use of import.meta fails the build.
  // Dynamic imports become require() calls: vm runs no import() without an experimental loader.
  const script = await esbuild.build({
    ...common,
    entryPoints: [{ in: 'src/cli/plinth.ts', out: path.basename(startupScriptName, '.cjs') }],
    outExtension: { '.js': '.cjs' },
    format: 'cjs',
    outdir,
    define: { 'import.meta.url': '__plinthImportMetaUrl' },
    supported: { 'dynamic-import': false },
    logOverride: { 'empty-import-meta': 'error' },
  });
  // The apply worker's thread loads its own entry, an ES module (cli/serve.ts looks for it by this name).
  const worker = await esbuild.build({
    ...common,
    entryPoints: [{ in: 'src/cli/apply-worker.ts', out: 'apply-worker' }],
    splitting: true,
    format: 'esm',
    outdir,
    // Bundled CommonJS packages call require() for Node's built-ins.
    banner: { js: "import { createRequire as __plinthCreateRequire } from 'node:module'; const require = __plinthCreateRequire(import.meta.url);" },
  });
  for (const output of [...Object.keys(script.metafile.outputs), ...Object.keys(worker.metafile.outputs)]) {
    if (!output.endsWith('.js') && !output.endsWith('.cjs')) continue;
    const file = path.join(repositoryRoot, output);
    const text = readFileSync(file, 'utf8');
    const ascii = asciiSource(text) ?? text;
    // The script is a function expression on its first line, so its lines keep their numbers.
    writeFileSync(file, output.endsWith('.cjs') ? `(function (${scriptParameters}) {${ascii}\n})` : ascii);
  }
  for (const [from, to] of dataFiles) {
    mkdirSync(path.dirname(path.join(outdir, to)), { recursive: true });
    cpSync(path.join(repositoryRoot, from), path.join(outdir, to));
  }
  const sources = [...Object.keys(script.metafile.inputs), ...Object.keys(worker.metafile.inputs)].filter((input) => !isPackageFile(input));
  const inputs: BundleManifest['inputs'] = [];
  for (const file of [...new Set(sources), ...lockFiles, ...dataFiles.map(([from]) => from)]) {
    const stamp = fileStamp(path.join(repositoryRoot, file));
    if (stamp !== undefined) inputs.push([file, ...stamp]);
  }
  return { format: manifestFormat, dir, inputs };
}

/** Keeps the newest `keep` builds: a server started from an older one may still start its apply worker. */
function prune(keep: number): void {
  const builds = readdirSync(bundleRoot).filter((entry) => /^b\d+$/.test(entry)).sort((a, b) => Number(b.slice(1)) - Number(a.slice(1)));
  for (const old of builds.slice(keep)) rmSync(path.join(bundleRoot, old), { recursive: true, force: true });
}

if (process.argv.includes('--if-stale') && freshManifest() !== undefined) process.exit(0);
try {
  mkdirSync(bundleRoot, { recursive: true });
  const manifest = await build();
  // The manifest last, and whole (a rename): a half-built bundle is never used.
  writeFileSync(`${manifestPath}.tmp`, JSON.stringify(manifest));
  renameSync(`${manifestPath}.tmp`, manifestPath);
  prune(3);
} catch (err) {
  // No bundle is no failure: the entry point runs the sources, only slower to start.
  rmSync(manifestPath, { force: true });
  console.error(`plinth: the start-up bundle was not built (${(err as Error).message.split('\n')[0]}); running from the sources`);
}
