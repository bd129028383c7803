// Types of startup-script.cjs (CommonJS, so that the entry point runs without Node's ES module loader).

export interface BundleManifest {
  format: 2;
  /** The directory of this build, under bundleRoot: a new one per build, so that a running server's worker still finds its modules. */
  dir: string;
  /** Every file the build read: path relative to the root, size, modification time in ms. */
  inputs: Array<[string, number, number]>;
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

/** The checkout's root. */
export const repositoryRoot: string;
export const bundleRoot: string;
export const manifestPath: string;
/** The manifest's format: a manifest of another (an older build's) is not fresh. */
export const manifestFormat: BundleManifest['format'];
/** The start-up script's name in a build's directory. */
export const startupScriptName: string;
/** The manifest, when a bundle was built (whether it is fresh is inputsUnchanged's question). */
export function readManifest(root?: string): BundleManifest | undefined;
/** The manifest's inputs as absolute paths, with their size and modification time. */
export function inputPaths(manifest: BundleManifest, root: string): Array<[string, number, number]>;
/** Whether every file the build read is unchanged, the stats on the thread pool. */
export function inputsUnchanged(manifest: BundleManifest, root?: string): Promise<boolean>;
/** The manifest to run the start-up bundle of, unless PLINTH_FROM_SOURCE=1 asks for the sources; not yet checked for freshness. */
export function startupManifest(): BundleManifest | undefined;
/** A build's start-up script (what src/cli/plinth.ts exports). */
export function startupScriptOf(manifest: BundleManifest): string;
/** Compiles a start-up script, with the code cache beside it when V8 accepts that. */
export function compileStartupScript<Exports>(file: string): CompiledStartupScript<Exports>;
