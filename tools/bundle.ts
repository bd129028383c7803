// `node tools/bundle.ts [--if-stale]`: builds the start-up bundle (see
// src/cli/bundle-manifest.ts) into a new directory under .cache/bundle/, then names it in
// the manifest. `--if-stale` does nothing while the last bundle is fresh. The builds
// before the last two are removed. Run by `npm start` and `npm test` before they start.
import { cpSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { asciiSource } from './ascii-source.ts';
import { bundleRoot, fileStamp, freshManifest, manifestPath, repositoryRoot, type BundleManifest } from '../src/cli/bundle-manifest.ts';

/** Files src/ reads beside its modules at run time (`new URL('./…', import.meta.url)`): copied to the same place beside the chunks. */
const dataFiles = [
  ['src/schema/builtin/generated/definitions.json', 'generated/definitions.json'],
  ['src/schema/builtin/generated/go-encoding.json', 'generated/go-encoding.json'],
  ['src/auth/bootstrap-policy/policy.json', 'bootstrap-policy/policy.json'],
] as const;

/** Installed packages change only with these. */
const lockFiles = ['package-lock.json', 'node_modules/.package-lock.json'];

async function build(): Promise<BundleManifest> {
  // Imported here: without it (an install without dev dependencies) the sources run instead.
  const esbuild = await import('esbuild');
  const dir = `b${Date.now()}`;
  const outdir = path.join(bundleRoot, dir);
  const result = await esbuild.build({
    absWorkingDir: repositoryRoot,
    // The apply worker's thread loads its own entry (registry/apply-offload/client.ts looks for it by this name).
    entryPoints: [{ in: 'src/cli/plinth.ts', out: 'plinth' }, { in: 'src/registry/apply-offload/worker.ts', out: 'apply-worker' }],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    outdir,
    metafile: true,
    logLevel: 'warning',
    // Loaded only with --storage etcd, from node_modules as they are (gRPC loads its own files).
    external: ['etcd3', '@grpc/grpc-js'],
    // Bundled CommonJS packages call require() for Node's built-ins.
    banner: { js: "import { createRequire as __plinthCreateRequire } from 'node:module'; const require = __plinthCreateRequire(import.meta.url);" },
  });
  for (const output of Object.keys(result.metafile.outputs)) {
    if (!output.endsWith('.js')) continue;
    const file = path.join(repositoryRoot, output);
    const ascii = asciiSource(readFileSync(file, 'utf8'));
    if (ascii !== undefined) writeFileSync(file, ascii);
  }
  for (const [from, to] of dataFiles) {
    mkdirSync(path.dirname(path.join(outdir, to)), { recursive: true });
    cpSync(path.join(repositoryRoot, from), path.join(outdir, to));
  }
  const sources = Object.keys(result.metafile.inputs).filter((input) => !input.startsWith('node_modules/'));
  const inputs: BundleManifest['inputs'] = [];
  for (const file of [...sources, ...lockFiles, ...dataFiles.map(([from]) => from)]) {
    const stamp = fileStamp(path.join(repositoryRoot, file));
    if (stamp !== undefined) inputs.push([file, ...stamp]);
  }
  return { dir, inputs };
}

/** Keeps the newest `keep` builds: a server started from an older one may still load its lazy chunks. */
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
