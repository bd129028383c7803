#!/usr/bin/env node
// The `plinth` entry point, in plain CommonJS: Node would load its TypeScript stripper
// (~40 ms) for an entry in TypeScript before anything could turn the compile cache on,
// and its ES module loader (~8 ms) for one in ESM, which a start that runs the start-up
// bundle (a CommonJS script, see startup-script.cjs) never needs otherwise.
// It turns Node's on-disk compile cache on, then runs the start-up bundle when it is fresh
// (see bundle-manifest.ts), else the sources. The same file runs in the package's dist/,
// beside the compiled .js modules instead of the .ts sources.
'use strict';
const { existsSync } = require('node:fs');
const nodeModule = require('node:module');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

nodeModule.enableCompileCache?.();
const startup = require('./startup-script.cjs');
const argv = process.argv.slice(2);

/** The start-up bundle's script, compiled, when the bundle is fresh; else undefined (the sources run). */
async function freshStartupScript() {
  const manifest = startup.startupManifest();
  if (manifest === undefined) return undefined;
  // Its freshness is checked on the thread pool while its script compiles here.
  const unchanged = startup.inputsUnchanged(manifest);
  let script;
  try {
    script = startup.compileStartupScript(startup.startupScriptOf(manifest));
  } catch {
    script = undefined;
  }
  return (await unchanged) ? script : undefined;
}

async function main() {
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
    const ext = existsSync(path.join(__dirname, 'plinth.ts')) ? '.ts' : '.js';
    const { run } = await import(pathToFileURL(path.join(__dirname, `plinth${ext}`)).href);
    run(argv);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
