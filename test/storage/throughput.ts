// A quick throughput check, not a test (and not timed in CI): creates of 300-byte
// values with a fixed number in flight, against a fresh SQLite file and the memory
// backend. Usage: node test/storage/throughput.ts [creates=10000] [inFlight=32]

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MemoryBackend, SqliteBackend, type Backend } from '../../src/storage/index.ts';

const creates = Number(process.argv[2] ?? 10_000);
const inFlight = Number(process.argv[3] ?? 32);
const value = new Uint8Array(300).fill(0x78);

async function createMany(backend: Backend): Promise<number> {
  let next = 0;
  const started = performance.now();
  const writer = async () => {
    while (next < creates) await backend.create(`/registry/configmaps/default/cm-${String(next++).padStart(7, '0')}`, value);
  };
  await Promise.all(Array.from({ length: inFlight }, writer));
  return creates / ((performance.now() - started) / 1000);
}

async function listAll(backend: Backend): Promise<number> {
  const started = performance.now();
  let startAfter: string | undefined;
  let pages = 0;
  for (;;) {
    const page = await backend.list('/registry/configmaps/', { limit: 500, startAfter });
    pages++;
    if (!page.more) break;
    startAfter = page.items[page.items.length - 1]!.key;
  }
  return (performance.now() - started) / pages;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'plinth-throughput-'));
try {
  const subjects: Array<[string, () => Backend]> = [
    ['sqlite synchronous=full', () => new SqliteBackend(path.join(dir, 'full.db'))],
    ['sqlite synchronous=normal', () => new SqliteBackend(path.join(dir, 'normal.db'), { synchronous: 'normal' })],
    ['memory', () => new MemoryBackend()],
  ];
  for (const [name, open] of subjects) {
    const backend = open();
    const rate = await createMany(backend);
    const pageMs = await listAll(backend);
    console.log(`${name}: ${Math.round(rate)} creates/s (${creates} creates, ${inFlight} in flight); list page of 500: ${pageMs.toFixed(2)} ms`);
    await backend.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
