// `node bench/custom-resources.ts`: the create rate of a custom resource whose CRD has a
// 50-property schema (pruning, defaulting and validation on every write), beside the
// ConfigMap create rate on the same server. Aim (issue 4): within 20% of ConfigMaps.
import { readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { fileURLToPath } from 'node:url';
import { startServerProcess, tempDir, type ServerProcess } from '../test/helpers/server.ts';

const objects = Number(process.env.BENCH_OBJECTS ?? 5_000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);

export function requester(server: ServerProcess) {
  const caPem = readFileSync(`${server.dataDir}/pki/ca.crt`, 'utf8');
  const token = readFileSync(`${server.dataDir}/tokens.csv`, 'utf8').split(',')[0]!;
  const agent = new https.Agent({ ca: caPem, keepAlive: true, maxSockets: concurrency });
  const request = (method: string, path: string, body: string) => new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = https.request(new URL(path, server.url), {
      method, agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
  return { request, close: () => agent.destroy() };
}

/** A schema of 50 properties of every kind, 10 with defaults, as a real CRD might have. */
export function fiftyPropertySchema(): { schema: Record<string, unknown>; spec: Record<string, unknown> } {
  const properties: Record<string, unknown> = {};
  const spec: Record<string, unknown> = {};
  for (let i = 0; i < 50; i++) {
    switch (i % 5) {
      case 0:
        properties[`name${i}`] = { type: 'string', maxLength: 64, pattern: '^[a-z0-9-]+$' };
        spec[`name${i}`] = `value-${i}`;
        break;
      case 1:
        properties[`count${i}`] = { type: 'integer', minimum: 0, default: i };
        break;
      case 2:
        properties[`flag${i}`] = { type: 'boolean' };
        spec[`flag${i}`] = i % 2 === 0;
        break;
      case 3:
        properties[`mode${i}`] = { type: 'string', enum: ['fast', 'safe', 'off'] };
        spec[`mode${i}`] = 'safe';
        break;
      default:
        properties[`list${i}`] = { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' };
        spec[`list${i}`] = ['a', 'b', 'c'];
    }
  }
  return { schema: { type: 'object', properties: { spec: { type: 'object', properties } } }, spec };
}

export async function rate(total: number, op: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < total) await op(next++);
  }));
  return Math.round(total / ((performance.now() - started) / 1000));
}

export async function customResourceBench(): Promise<string[]> {
  const dataDir = tempDir('plinth-bench-cr-');
  const server = await startServerProcess([], { dataDir });
  const { request, close } = requester(server);
  try {
    const { schema, spec } = fiftyPropertySchema();
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'items.bench.example.com' },
      spec: { group: 'bench.example.com', scope: 'Namespaced', names: { plural: 'items', kind: 'Item' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] },
    };
    if ((await request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', JSON.stringify(crd))).status !== 201) throw new Error('CRD not created');
    for (let tries = 0; (await request('GET', '/apis/bench.example.com/v1/namespaces/default/items', '')).status !== 200; tries++) {
      if (tries > 100) throw new Error('CRD not served');
      await new Promise((r) => setTimeout(r, 10));
    }
    // Bodies of about the same size: 50 data keys against 50 spec fields.
    const data = Object.fromEntries(Object.entries(spec).map(([k, v]) => [k, JSON.stringify(v)]));
    for (let i = 0; i < 10; i++) data[`extra${i}`] = `value-${i}`;
    const configMap = (i: number) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data });
    const item = (i: number) => JSON.stringify({ apiVersion: 'bench.example.com/v1', kind: 'Item', metadata: { name: `item-${i}` }, spec });
    const rates = { configMaps: 0, items: 0 };
    // Alternate to even out warm-up and the file's growth; keep the best of each.
    for (let round = 0; round < 2; round++) {
      rates.configMaps = Math.max(rates.configMaps, await rate(objects, async (i) => {
        const res = await request('POST', '/api/v1/namespaces/default/configmaps', configMap(round * objects + i));
        if (res.status !== 201) throw new Error(`configmap: ${res.status} ${res.body}`);
      }));
      rates.items = Math.max(rates.items, await rate(objects, async (i) => {
        const res = await request('POST', '/apis/bench.example.com/v1/namespaces/default/items', item(round * objects + i));
        if (res.status !== 201) throw new Error(`custom resource: ${res.status} ${res.body}`);
      }));
    }
    const ratio = Math.round((rates.items / rates.configMaps) * 100);
    return [
      `custom resources (a CRD with a 50-property schema): ${objects} creates × 2 rounds, ${concurrency} concurrent clients, sqlite`,
      `  ConfigMap create               ${rates.configMaps} /s`,
      `  custom resource create         ${rates.items} /s   ${ratio}% of the ConfigMap rate (aim ≥ 80%)`,
    ];
  } finally {
    close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of await customResourceBench()) console.log(line);
}
