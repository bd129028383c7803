#!/usr/bin/env node
// The `plinth` entry point, in plain JavaScript: Node would load its TypeScript stripper
// (~40 ms) for an entry in TypeScript before anything could turn the compile cache on.
// It turns Node's on-disk compile cache on, then runs the start-up bundle when it is fresh
// (see bundle-manifest.ts), else the sources. The same file runs in the package's dist/,
// beside the compiled .js modules instead of the .ts sources.
import { existsSync } from 'node:fs';
import module from 'node:module';

module.enableCompileCache?.();
const ext = existsSync(new URL('./plinth.ts', import.meta.url)) ? '.ts' : '.js';
const bundle = await import(`./bundle-manifest${ext}`);
const argv = process.argv.slice(2);

/** The start-up bundle's script, compiled, when the bundle is fresh; else undefined (the sources run). */
async function freshStartupScript() {
  const manifest = bundle.startupManifest();
  if (manifest === undefined) return undefined;
  // Its freshness is checked on the thread pool while its script compiles here.
  const unchanged = bundle.inputsUnchanged(manifest);
  let script;
  try {
    script = bundle.compileStartupScript(bundle.startupScriptOf(manifest));
  } catch {
    script = undefined;
  }
  return (await unchanged) ? script : undefined;
}

const script = await freshStartupScript();
if (script !== undefined) {
  // The script's code cache gets what the start and the first requests compiled (the next
  // start skips that; a cache made at serving left the first request 15 ms slower): at
  // exit, or two seconds after serving if the process runs on.
  const onServing = () => {
    process.once('exit', script.saveCodeCache);
    setTimeout(script.saveCodeCache, 2000).unref();
  };
  // The script's exports are src/cli/plinth.ts's.
  const plinth = script.run();
  plinth.run(argv, { onServing });
} else {
  const { run } = await import(`./plinth${ext}`);
  run(argv);
}
