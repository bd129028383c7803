// `BENCH_ONLY=cel npm run bench`: what CEL validation rules cost. Custom resource creates/s
// with 20 x-kubernetes-validations rules beside the same CRD without them, on one server;
// and the time to compile a CRD with 200 rules (in-process, and as the CRD's create).
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startServerProcess, tempDir } from '../test/helpers/server.ts';
import { validationRuleErrors } from '../src/cel/validation-rules.ts';
import { fiftyPropertySchema, rate, requester } from './custom-resources.ts';

const objects = Number(process.env.BENCH_OBJECTS ?? 5_000);

/** Twenty rules of the kinds CRDs carry, on the fifty-property schema's fields. */
function withTwentyRules(schema: Record<string, any>): Record<string, any> {
  const copy = structuredClone(schema);
  // Rules over lists need bounded lists (the cost estimate refuses them otherwise, as upstream's).
  for (const property of Object.values(copy.properties.spec.properties) as Record<string, unknown>[]) if (property.type === 'array') property.maxItems = 16;
  const rules = [
    "self.name0.startsWith('value')", 'self.name5.size() <= 64', "self.name10.matches('^[a-z0-9-]+$')", 'self.flag2 || !self.flag2',
    "self.mode3 in ['fast', 'safe', 'off']", 'self.list4.all(x, x.size() < 10)', 'self.list9.exists(x, x == "a")', 'size(self.list14) <= 10',
    '!has(self.count1) || self.count1 >= 0', "self.name15 != ''", 'self.list19.isSorted()', "self.name20.lowerAscii() == self.name20",
    "has(self.name25) && self.name25.contains('-')", "self.mode8 != 'off' || !self.flag7", 'self.list24.size() == 3', "self.name30.split('-').size() >= 2",
    "self.mode13 == 'safe'", 'self.list29.filter(x, x > "a").size() >= 1', "self.name35.endsWith('35')", 'self.list34.map(x, x + "!").size() == 3',
  ];
  copy.properties.spec['x-kubernetes-validations'] = rules.map((rule) => ({ rule }));
  return copy;
}

function crd(plural: string, schema: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${plural}.bench.example.com` },
    spec: { group: 'bench.example.com', scope: 'Namespaced', names: { plural, kind: plural[0]!.toUpperCase() + plural.slice(1, -1) }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] },
  });
}

/** A schema with `count` distinct rules (distinct so that no compiled program is reused). */
function manyRules(count: number, salt: string): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    properties[`f${i}`] = { type: 'string', 'x-kubernetes-validations': [{ rule: `self.size() <= ${i + 10} && self != '${salt}-${i}'`, message: `f${i} is wrong` }] };
  }
  return { type: 'object', properties: { spec: { type: 'object', properties } } };
}

export async function celBench(): Promise<string[]> {
  const compileStarted = performance.now();
  const errors = validationRuleErrors(manyRules(200, 'inproc'), 'spec.validation.openAPIV3Schema');
  const compileMs = performance.now() - compileStarted;
  if (errors.length > 0) throw new Error(`rules did not compile: ${errors[0]!.message}`);

  const dataDir = tempDir('plinth-bench-cel-');
  const server = await startServerProcess([], { dataDir });
  const { request, close } = requester(server);
  try {
    const { schema, spec } = fiftyPropertySchema();
    const served = async (plural: string) => {
      for (let tries = 0; (await request('GET', `/apis/bench.example.com/v1/namespaces/default/${plural}`, '')).status !== 200; tries++) {
        if (tries > 200) throw new Error(`${plural} not served`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    for (const [plural, s] of [['plains', schema], ['ruleds', withTwentyRules(schema)]] as const) {
      const res = await request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd(plural, s));
      if (res.status !== 201) throw new Error(`CRD ${plural}: ${res.status} ${res.body}`);
      await served(plural);
    }
    const started = performance.now();
    const big = await request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('manies', manyRules(200, 'http')));
    const createMs = performance.now() - started;
    if (big.status !== 201) throw new Error(`200-rule CRD: ${big.status} ${big.body}`);

    const body = (kind: string, i: number) => JSON.stringify({ apiVersion: 'bench.example.com/v1', kind, metadata: { name: `o-${i}` }, spec });
    // The rules run: an object breaking one is refused.
    const broken = await request('POST', '/apis/bench.example.com/v1/namespaces/default/ruleds', JSON.stringify({ apiVersion: 'bench.example.com/v1', kind: 'Ruled', metadata: { name: 'broken' }, spec: { ...spec, mode13: 'fast' } }));
    if (broken.status !== 422) throw new Error(`a broken rule was not refused: ${broken.status} ${broken.body}`);
    const rates = { plain: 0, ruled: 0 };
    for (let round = 0; round < 2; round++) {
      rates.plain = Math.max(rates.plain, await rate(objects, async (i) => {
        const res = await request('POST', '/apis/bench.example.com/v1/namespaces/default/plains', body('Plain', round * objects + i));
        if (res.status !== 201) throw new Error(`plain: ${res.status} ${res.body}`);
      }));
      rates.ruled = Math.max(rates.ruled, await rate(objects, async (i) => {
        const res = await request('POST', '/apis/bench.example.com/v1/namespaces/default/ruleds', body('Ruled', round * objects + i));
        if (res.status !== 201) throw new Error(`ruled: ${res.status} ${res.body}`);
      }));
    }
    return [
      `CEL validation rules: ${objects} custom resource creates × 2 rounds, 32 concurrent clients, sqlite`,
      `  no rules                       ${rates.plain} /s`,
      `  20 rules                       ${rates.ruled} /s   ${Math.round((rates.ruled / rates.plain) * 100)}% of the rate without`,
      `  compile 200 rules              ${compileMs.toFixed(0)} ms in-process; the CRD's create answered in ${createMs.toFixed(0)} ms`,
    ];
  } finally {
    close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of await celBench()) console.log(line);
}
