// Test etcd members listen below the kernel's ephemeral port range: a port there is never
// taken as another connection's source port while its member is down for a restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { memberPort } from '../../tools/etcd-cluster.ts';

test('a member port is free and below the ephemeral range', { skip: process.platform !== 'linux' }, async () => {
  const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  for (let i = 0; i < 5; i++) {
    const port = await memberPort();
    assert.ok(port >= 1024 && port < low, `${port} is not below ${low}`);
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
