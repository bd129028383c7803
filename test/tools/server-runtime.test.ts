// `npm start` runs Node the way tools/server-runtime.ts says, which the tests' and the
// benchmarks' servers copy: its script is the one spelled out there, and the server it
// starts has that environment and those flags.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, startServerProcess } from '../helpers/server.ts';
import { serverEnvironment, serverNodeFlags, startScript } from '../../tools/server-runtime.ts';

test('package.json\'s start script is the one tools/server-runtime.ts describes', () => {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.equal(pkg.scripts.start, startScript);
});

/** The process whose command line is a `plinth serve` on `dataDir`: its arguments and environment. */
function servingProcess(dataDir: string): { args: string[]; env: Map<string, string> } | undefined {
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone meanwhile
    }
    if (!args.includes('serve') || !args.includes(dataDir)) continue;
    const env = new Map(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean).map((entry) => {
      const at = entry.indexOf('=');
      return [entry.slice(0, at), entry.slice(at + 1)] as [string, string];
    }));
    return { args, env };
  }
  return undefined;
}

test('npm start runs the server with that environment and those Node flags', { skip: process.platform === 'linux' ? false : 'reads /proc' }, async () => {
  const server = await startServerProcess([], { viaNpm: true });
  try {
    const serving = servingProcess(server.dataDir);
    assert.ok(serving, 'no process serves the data dir');
    for (const [name, value] of Object.entries(serverEnvironment)) assert.equal(serving.env.get(name), value, name);
    const entry = serving.args.findIndex((arg) => arg.endsWith('main.cjs'));
    assert.deepEqual(serving.args.slice(1, entry), serverNodeFlags);
  } finally {
    await server.stop();
  }
});
