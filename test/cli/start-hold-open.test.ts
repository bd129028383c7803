// A start that waits on storage that does not answer keeps trying and says so: the process
// must not end quietly with 0 once nothing but those retries is pending. (About 10 s: the
// process used to end after etcd's second failed list, 3 s each.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { repoRoot, tempDir } from '../helpers/server.ts';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('an etcd that does not answer holds the start, which keeps logging its retries rather than exiting 0', async (t) => {
  const dataDir = tempDir('plinth-etcd-down-');
  const etcd = `http://127.0.0.1:${await closedPort()}`;
  const child = spawn(process.execPath, [path.join(repoRoot, 'src/cli/main.cjs'), 'serve', '--data-dir', dataDir, '--secure-port', '0', '--etcd-servers', etcd], { stdio: ['ignore', 'ignore', 'pipe'] });
  t.after(() => {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // The third failed load of one cache: the old start had ended before it.
  const thirdFailure = new Promise<void>((resolve) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if ((stderr.match(/mutatingwebhookconfigurations\/: loading failed/g) ?? []).length >= 3) resolve();
    });
  });
  const outcome = await Promise.race([
    thirdFailure.then(() => 'retrying' as const),
    exited.then((code) => `exited with ${code}` as const),
    new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 40_000).unref()),
  ]);
  assert.equal(outcome, 'retrying', stderr);
  assert.equal(child.exitCode, null, 'still running');
  assert.match(stderr, /etcd version unknown \(etcd: 14 UNAVAILABLE/);
});
