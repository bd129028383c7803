// The start-up bundle: `tools/bundle.ts` (run by `npm start` and `npm test` first) joins
// src/ and its dependencies into one script in .cache/bundle/ (esbuild). Node then reads
// and compiles one file instead of ~800, which halves the time from process start to
// serving. The entry point uses the bundle only while it is fresh: every source file it
// was built from is unchanged (size and modification time), and so are the installed
// packages (npm's lock files); anything else runs from the sources, as before. Only node:
// built-ins here: this module runs before anything else loads.
//
// The script runs through node:vm with a V8 code cache of its own, saved once the server
// has served (compileStartupScript; main.js says when). Node's compile cache for modules
// is made when a module is compiled, and so holds only the functions V8 compiles eagerly;
// a cache made after the start holds every function the start ran, which then needs no
// parsing or compiling (`plinth serve` on 10,000 objects 20–55 ms sooner serving on the
// project's machine).
import { readFileSync, renameSync, stat, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';

/** The checkout's root (this file is src/cli/bundle-manifest.ts). */
export const repositoryRoot = path.resolve(import.meta.dirname, '../..');
export const bundleRoot = path.join(repositoryRoot, '.cache/bundle');
export const manifestPath = path.join(bundleRoot, 'manifest.json');

/** The manifest's format: a manifest of another (an older build's) is not fresh. */
export const manifestFormat = 2;

/** The start-up script's name in a build's directory, and its code cache's. */
export const startupScriptName = 'plinth.cjs';
const codeCacheName = 'plinth.code-cache';

export interface BundleManifest {
  format: typeof manifestFormat;
  /** The directory of this build, under bundleRoot: a new one per build, so that a running server's worker still finds its modules. */
  dir: string;
  /** Every file the build read: path relative to the root, size, modification time in ms. */
  inputs: Array<[string, number, number]>;
}

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

/** The manifest, when a bundle was built (whether it is fresh is inputsUnchanged's question). */
export function readManifest(root = repositoryRoot): BundleManifest | undefined {
  let manifest: BundleManifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(root, '.cache/bundle/manifest.json'), 'utf8')) as BundleManifest;
  } catch {
    return undefined;
  }
  if (manifest?.format !== manifestFormat || typeof manifest.dir !== 'string' || !Array.isArray(manifest.inputs) || manifest.inputs.length === 0) return undefined;
  return manifest;
}

/**
 * The inputs are the build's relative paths, already normal ('src/cli/plinth.ts'): joined
 * by hand, as path.join's normalizing took more time than the ~330 stats themselves.
 */
function inputPaths(manifest: BundleManifest, root: string): Array<[string, number, number]> {
  const prefix = `${root}${path.sep}`;
  return manifest.inputs.map(([file, size, mtime]) => [prefix + file, size, mtime]);
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

/**
 * Whether every file the build read is unchanged, as freshManifest asks, with the stats
 * on the thread pool all at once: the entry point compiles the start-up script meanwhile
 * (~330 stats took 7–10 ms of the start on its thread).
 */
export function inputsUnchanged(manifest: BundleManifest, root = repositoryRoot): Promise<boolean> {
  const inputs = inputPaths(manifest, root);
  if (inputs.length === 0) return Promise.resolve(false);
  return new Promise((resolve) => {
    let pending = inputs.length;
    for (const [file, size, mtime] of inputs) {
      stat(file, (err, stats) => {
        if (err !== null || stats.size !== size || stats.mtimeMs !== mtime) resolve(false);
        else if (--pending === 0) resolve(true);
      });
    }
  });
}

/** The manifest to run the start-up bundle of, unless PLINTH_FROM_SOURCE=1 asks for the sources; not yet checked for freshness. */
export function startupManifest(): BundleManifest | undefined {
  return process.env.PLINTH_FROM_SOURCE === '1' ? undefined : readManifest();
}

/** A build's start-up script (what src/cli/plinth.ts exports). */
export function startupScriptOf(manifest: BundleManifest): string {
  return path.join(bundleRoot, manifest.dir, startupScriptName);
}

/** What the start-up script's code cache did for this load. */
export type CodeCacheUse = 'accepted' | 'rejected' | 'absent';

export interface CompiledStartupScript<Exports> {
  codeCache: CodeCacheUse;
  /** Runs the script (once) and answers its exports. */
  run(): Exports;
  /**
   * Saves the code cache, with every function compiled so far, unless the one loaded was
   * accepted: for a server, once it has served a while. Best effort: a cache is only ever
   * a faster start.
   */
  saveCodeCache(): void;
}

/**
 * Compiles a start-up script, with the code cache beside it when V8 accepts that (made by
 * this Node, with the same V8 flags, for this script: a build's directory never changes,
 * and V8 checks the rest). run() then runs it as CommonJS runs a module: the script is one
 * function expression taking (exports, require, module, __filename, __dirname, importMetaUrl).
 */
export function compileStartupScript<Exports>(file: string): CompiledStartupScript<Exports> {
  const cacheFile = path.join(path.dirname(file), codeCacheName);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  // ASCII throughout (tools/ascii-source.ts), so latin1 reads it as written, without UTF-8 decoding.
  const script = new vm.Script(readFileSync(file, 'latin1'), { filename: file, ...(cachedData !== undefined ? { cachedData } : {}) });
  const codeCache: CodeCacheUse = cachedData === undefined ? 'absent' : script.cachedDataRejected === true ? 'rejected' : 'accepted';
  let module: { exports: Exports } | undefined;
  let saved = codeCache === 'accepted';
  return {
    codeCache,
    run() {
      if (module === undefined) {
        module = { exports: {} as Exports };
        const body = script.runInThisContext() as (...args: unknown[]) => void;
        body(module.exports, createRequire(file), module, file, path.dirname(file), pathToFileURL(file).href);
      }
      return module.exports;
    },
    saveCodeCache() {
      if (saved) return;
      saved = true;
      try {
        const temporary = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(temporary, script.createCachedData());
        renameSync(temporary, cacheFile);
      } catch {
        // No cache: the next start compiles what it runs, as this one did.
      }
    },
  };
}
