// The start-up bundle: `tools/bundle.ts` (run by `npm start` and `npm test` first) joins
// src/ and its dependencies into one script in .cache/bundle/ (esbuild). Node then reads
// and compiles one file instead of ~800, which halves the time from process start to
// serving. The entry point uses the bundle only while it is fresh: every source file it
// was built from is unchanged (size and modification time), and so are the installed
// packages (npm's lock files); anything else runs from the sources, as before.
//
// The script runs through node:vm with a V8 code cache of its own, saved once the server
// has served (startup-script.cjs; main.cjs says when). Node's compile cache for modules
// is made when a module is compiled, and so holds only the functions V8 compiles eagerly;
// a cache made after the start holds every function the start ran, which then needs no
// parsing or compiling (`plinth serve` on 10,000 objects 20–55 ms sooner serving on the
// project's machine). The entry point runs the bundle through startup-script.cjs alone;
// this module adds what the build and the tests ask besides.
import { statSync } from 'node:fs';
import { inputPaths, readManifest, repositoryRoot, type BundleManifest } from './startup-script.cjs';

// What runs the bundle is CommonJS, for the entry point (startup-script.cjs).
export { bundleRoot, compileStartupScript, inputsUnchanged, manifestFormat, manifestPath, readManifest, repositoryRoot, startupManifest, startupScriptName, startupScriptOf } from './startup-script.cjs';
export type { BundleManifest, CodeCacheUse, CompiledStartupScript } from './startup-script.cjs';

/**
 * Whether a file the build read (a path relative to the root, as esbuild names it) is an
 * installed package's: the lock files stand for those. Also when node_modules resolves
 * outside the root (a link to another checkout's: `../other/node_modules/…`), which would
 * otherwise list each of its files, and every start would stat them all.
 */
export function isPackageFile(input: string): boolean {
  return input.startsWith('node_modules/') || input.includes('/node_modules/');
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
  const manifest = readManifest(root);
  if (manifest === undefined) return undefined;
  for (const [file, size, mtime] of inputPaths(manifest, root)) {
    const stamp = fileStamp(file);
    if (stamp === undefined || stamp[0] !== size || stamp[1] !== mtime) return undefined;
  }
  return manifest;
}
