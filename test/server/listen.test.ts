// Where the server listens: the bind address and port it is given, and a clear failure when
// the port is taken or the start fails after listening, which leaves nothing open behind.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { startServer } from '../../src/index.ts';

test('the server listens on the IPv4 bind address and port it is given', async () => {
  const free = net.createServer();
  await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
  const port = (free.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => free.close(() => resolve()));
  const server = await startServer({ port });
  try {
    assert.equal(new URL(server.url).port, String(port));
    const res = await fetchStatus(server.url, server.token, '/readyz');
    assert.equal(res, 200);
  } finally {
    await server.close();
  }
});

test('a port already taken fails the start with EADDRINUSE, and frees what it opened', async () => {
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as net.AddressInfo).port;
  try {
    await assert.rejects(startServer({ port }), (err: NodeJS.ErrnoException) => {
      assert.equal(err.code, 'EADDRINUSE');
      return true;
    });
    // On SQLite the file is locked to the process that opened it: the failed start let it go.
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'plinth-listen-'));
    try {
      await assert.rejects(startServer({ port, dataDir, storage: 'sqlite' }), { code: 'EADDRINUSE' });
      const server = await startServer({ dataDir, storage: 'sqlite' });
      await server.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  } finally {
    await new Promise<void>((resolve) => taken.close(() => resolve()));
  }
});

test('a start that fails after listening (the kubeconfig cannot be written) closes the listener and the storage', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'plinth-listen-'));
  try {
    // A file where the kubeconfig's directory should be.
    writeFileSync(path.join(dataDir, 'not-a-dir'), '');
    await assert.rejects(startServer({ dataDir, storage: 'sqlite', config: { kubeconfigPath: path.join(dataDir, 'not-a-dir', 'kubeconfig') } }), (err: NodeJS.ErrnoException) => {
      assert.ok(err.code === 'EEXIST' || err.code === 'ENOTDIR', String(err));
      return true;
    });
    const server = await startServer({ dataDir, storage: 'sqlite' });
    await server.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

async function fetchStatus(base: string, token: string, path: string): Promise<number> {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    request(new URL(path, base), { rejectUnauthorized: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject).end();
  });
}
