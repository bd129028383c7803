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
const { freshStartupScript, loadStartupScript } = await import(`./bundle-manifest${ext}`);
const script = freshStartupScript();
if (script !== undefined) {
  const loaded = loadStartupScript(script);
  // The script's code cache gets what the start and the first requests compiled (the next
  // start skips that; a cache made at serving left the first request 15 ms slower): at
  // exit, or two seconds after serving if the process runs on.
  const onServing = () => {
    process.once('exit', loaded.saveCodeCache);
    setTimeout(loaded.saveCodeCache, 2000).unref();
  };
  loaded.exports.run(process.argv.slice(2), { onServing });
} else {
  const { run } = await import(`./plinth${ext}`);
  run(process.argv.slice(2));
}
