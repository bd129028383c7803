#!/usr/bin/env node
// The `plinth` entry point. It turns on Node's on-disk compile cache before loading the
// rest (the type-stripped sources and their compiled code are then read from it), and
// runs the start-up bundle when it is fresh (see bundle-manifest.ts), else the sources.
import module from 'node:module';

module.enableCompileCache?.();
const { freshBundleEntry } = await import('./bundle-manifest.ts');
const bundled = freshBundleEntry();
const { run } = bundled !== undefined ? (await import(bundled) as typeof import('./plinth.ts')) : await import('./plinth.ts');
run(process.argv.slice(2));
