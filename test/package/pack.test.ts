// The package as a user gets it: `npm pack` (which builds dist/), the tarball installed
// into a new project, `import { startServer } from 'plinth'` used with
// @kubernetes/client-node, closed with no handle left open (the process exits by
// itself); and the installed `plinth` command answers --help.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot, tempDir } from '../helpers/server.ts';

const run = promisify(execFile);

test('npm pack, install the tarball into a project, start, use with client-node, close', { timeout: 240_000 }, async () => {
  const project = tempDir('plinth-package-');
  try {
    await run('npm', ['pack', '--silent', '--pack-destination', project], { cwd: repoRoot, timeout: 120_000 });
    const tarball = readdirSync(project).find((f) => f.endsWith('.tgz'));
    assert.ok(tarball, 'npm pack made a tarball');
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }));
    // The dependencies come from npm's cache, which `npm ci` filled.
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', `./${tarball}`], { cwd: project, timeout: 120_000 });

    writeFileSync(path.join(project, 'use.mjs'), `
      import { startServer } from 'plinth';
      const k8s = await import(process.argv[2]);
      const server = await startServer();
      const kc = new k8s.KubeConfig();
      kc.loadFromString(server.kubeconfig);
      const core = kc.makeApiClient(k8s.CoreV1Api);
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'from-user' }, data: { a: '1' } } });
      const list = await core.listNamespacedConfigMap({ namespace: 'default' });
      await server.close();
      console.log(JSON.stringify({ url: server.url, names: list.items.map((i) => i.metadata.name) }));
    `);
    const clientNode = path.join(repoRoot, 'node_modules/@kubernetes/client-node/dist/index.js');
    // The process must end by itself once the server is closed: nothing may keep it alive.
    const { stdout } = await run(process.execPath, ['use.mjs', clientNode], { cwd: project, timeout: 30_000 });
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!);
    assert.match(result.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.deepEqual(result.names.sort(), ['from-user', 'kube-root-ca.crt']);

    const help = await run(process.execPath, [path.join(project, 'node_modules/.bin/plinth'), '--help'], { cwd: project });
    assert.match(help.stdout, /^Usage: plinth serve \[flags\]/);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});
