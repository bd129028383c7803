// Running the start-up bundle (see bundle-manifest.ts): its manifest, whether it is fresh,
// and its script compiled with a code cache of its own. CommonJS, with only node:
// built-ins, as the entry point (main.cjs) loads it before anything else: a start that
// runs the bundle then never loads Node's ES module loader (~8 ms and ~240 page faults of
// a start on the project's machine). Its types are in startup-script.d.cts.
'use strict';
const { closeSync, fstatSync, openSync, readFileSync, readSync, renameSync, stat, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const vm = require('node:vm');

/** The checkout's root (this file is src/cli/startup-script.cjs). */
const repositoryRoot = path.resolve(__dirname, '../..');
const bundleRoot = path.join(repositoryRoot, '.cache/bundle');
const manifestPath = path.join(bundleRoot, 'manifest.json');
/** The manifest's format: a manifest of another (an older build's) is not fresh. */
const manifestFormat = 2;
/** The start-up script's name in a build's directory, and its code cache's. */
const startupScriptName = 'plinth.cjs';
const codeCacheName = 'plinth.code-cache';

/** The manifest, when a bundle was built (whether it is fresh is inputsUnchanged's question). */
function readManifest(root = repositoryRoot) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(root, '.cache/bundle/manifest.json'), 'utf8'));
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
function inputPaths(manifest, root) {
  const prefix = `${root}${path.sep}`;
  return manifest.inputs.map(([file, size, mtime]) => [prefix + file, size, mtime]);
}

/**
 * Whether every file the build read is unchanged (size and modification time), with the
 * stats on the thread pool all at once: the entry point compiles the start-up script
 * meanwhile (~330 stats took 7–10 ms of the start on its thread).
 */
function inputsUnchanged(manifest, root = repositoryRoot) {
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
function startupManifest() {
  return process.env.PLINTH_FROM_SOURCE === '1' ? undefined : readManifest();
}

/** A build's start-up script (what src/cli/plinth.ts exports). */
function startupScriptOf(manifest) {
  return path.join(bundleRoot, manifest.dir, startupScriptName);
}

/**
 * Compiles a start-up script, with the code cache beside it when V8 accepts that (made by
 * this Node, with the same V8 flags, for this script: a build's directory never changes,
 * and V8 checks the rest). run() then runs it as CommonJS runs a module: the script is one
 * function expression taking (exports, require, module, __filename, __dirname, importMetaUrl).
 */
function compileStartupScript(file) {
  const cacheFile = path.join(path.dirname(file), codeCacheName);
  // One buffer for both files: the cache is read over the script's text once that is a
  // string, on pages already touched (a page touched first costs ~16 µs on the project's
  // machine: ~360 of them for a 1.5 MB cache).
  const { source, cachedData } = readSourceAndCache(file, cacheFile);
  const script = new vm.Script(source, { filename: file, ...(cachedData !== undefined ? { cachedData } : {}) });
  const codeCache = cachedData === undefined ? 'absent' : script.cachedDataRejected === true ? 'rejected' : 'accepted';
  let module;
  let saved = codeCache === 'accepted';
  return {
    codeCache,
    run() {
      if (module === undefined) {
        module = { exports: {} };
        const body = script.runInThisContext();
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

/**
 * The script's text (ASCII throughout, tools/ascii-source.ts, so latin1 reads it as
 * written, without UTF-8 decoding) and its code cache's bytes, or undefined without one.
 * The bytes are a view of a buffer used for nothing else: vm.Script reads them only while
 * it compiles.
 */
function readSourceAndCache(file, cacheFile) {
  const scriptFd = openSync(file, 'r');
  let cacheFd;
  try {
    try {
      cacheFd = openSync(cacheFile, 'r');
    } catch {
      cacheFd = undefined;
    }
    const scriptSize = fstatSync(scriptFd).size;
    const cacheSize = cacheFd === undefined ? 0 : fstatSync(cacheFd).size;
    const buffer = Buffer.allocUnsafeSlow(Math.max(scriptSize, cacheSize));
    const source = buffer.toString('latin1', 0, readFully(scriptFd, buffer, scriptSize));
    const cachedData = cacheFd === undefined ? undefined : buffer.subarray(0, readFully(cacheFd, buffer, cacheSize));
    return { source, cachedData };
  } finally {
    closeSync(scriptFd);
    if (cacheFd !== undefined) closeSync(cacheFd);
  }
}

/** Reads up to `size` bytes from the file's start into `buffer`; answers how many it read. */
function readFully(fd, buffer, size) {
  let done = 0;
  while (done < size) {
    const read = readSync(fd, buffer, done, size - done, done);
    if (read === 0) break;
    done += read;
  }
  return done;
}

exports.repositoryRoot = repositoryRoot;
exports.bundleRoot = bundleRoot;
exports.manifestPath = manifestPath;
exports.manifestFormat = manifestFormat;
exports.startupScriptName = startupScriptName;
exports.readManifest = readManifest;
exports.inputPaths = inputPaths;
exports.inputsUnchanged = inputsUnchanged;
exports.startupManifest = startupManifest;
exports.startupScriptOf = startupScriptOf;
exports.compileStartupScript = compileStartupScript;
