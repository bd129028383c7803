// The start-up bundle: `tools/bundle.ts` (run by `npm start` and `npm test` first) joins
// src/ and its dependencies into a few ES modules in .cache/bundle/ (esbuild, code
// splitting, so what loads lazily still does). Node then reads and compiles tens of files
// instead of ~800, which halves the time from process start to serving. The entry point
// uses the bundle only while it is fresh: every source file it was built from is
// unchanged (size and modification time), and so are the installed packages (npm's lock
// files); anything else runs from the sources, as before. Only node: built-ins here: this
// module runs before anything else loads.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The checkout's root (this file is src/cli/bundle-manifest.ts). */
export const repositoryRoot = path.resolve(import.meta.dirname, '../..');
export const bundleRoot = path.join(repositoryRoot, '.cache/bundle');
export const manifestPath = path.join(bundleRoot, 'manifest.json');

export interface BundleManifest {
  /** The directory of this build, under bundleRoot: a new one per build, so that a running server's lazily loaded chunks stay. */
  dir: string;
  /** Every file the build read: path relative to the root, size, modification time in ms. */
  inputs: Array<[string, number, number]>;
}

/** Size and modification time of a file, or undefined when it is gone. */
export function fileStamp(file: string): [number, number] | undefined {
  try {
    const stat = statSync(file);
    return [stat.size, stat.mtimeMs];
  } catch {
    return undefined;
  }
}

/** The manifest, when a bundle was built and nothing it was built from has changed since. */
export function freshManifest(root = repositoryRoot): BundleManifest | undefined {
  let manifest: BundleManifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(root, '.cache/bundle/manifest.json'), 'utf8')) as BundleManifest;
  } catch {
    return undefined;
  }
  if (typeof manifest?.dir !== 'string' || !Array.isArray(manifest.inputs) || manifest.inputs.length === 0) return undefined;
  // The inputs are the build's relative paths, already normal ('src/cli/plinth.ts'): joined
  // by hand, as path.join's normalizing took more time than the ~330 stats themselves.
  const prefix = `${root}${path.sep}`;
  for (const [file, size, mtime] of manifest.inputs) {
    const stamp = fileStamp(prefix + file);
    if (stamp === undefined || stamp[0] !== size || stamp[1] !== mtime) return undefined;
  }
  return manifest;
}

/** The URL of the fresh bundle's `plinth` module (what src/cli/plinth.ts exports), or undefined. */
export function freshBundleEntry(): string | undefined {
  if (process.env.PLINTH_FROM_SOURCE === '1') return undefined;
  const manifest = freshManifest();
  return manifest === undefined ? undefined : pathToFileURL(path.join(bundleRoot, manifest.dir, 'plinth.js')).href;
}
