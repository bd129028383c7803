// How `npm start` runs the server's Node, for the tests, tools and benchmarks that start
// it the same way. package.json's "start" script spells it out (`startScript`; a test
// keeps the two the same).
//
// --max-semi-space-size=16: a 32 MiB young generation. Node 24 grows it to 64 MiB, for
// no throughput we could measure and ~28 MiB more RSS after 10,000 creates.
//
// MALLOC_ARENA_MAX=1: glibc's malloc with one arena for every thread. V8 compiles
// optimized code on its helper threads, in zones glibc serves from an arena of each
// thread's own; the zones are freed after each compile, but their pages stay with those
// arenas, where nothing else allocates: ~17–20 MiB after the first 10,000 creates. With
// one arena the main thread's buffers reuse them. glibc reads it only at the process's
// start, so it cannot be set from within.

export const serverNodeFlags: readonly string[] = ['--max-semi-space-size=16'];

export const serverEnvironment: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '1' };

/** package.json's "start" script. */
export const startScript = [
  ...Object.entries(serverEnvironment).map(([name, value]) => `${name}=${value}`),
  'node', ...serverNodeFlags, 'src/cli/main.cjs', 'serve',
].join(' ');
