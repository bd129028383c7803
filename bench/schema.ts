// `node bench/schema.ts`: what the write path's schema work costs per object, in process:
// the duplicate-field scan of a JSON body (beside JSON.parse of the same text), and
// pruning, defaulting and validating a Deployment as the Store does on every create
// (prune, defaults, the decode-time type check, validation after admission, and the
// zero values Go's encoding writes).
import { AdmissionChain } from '../src/admission/chain.ts';
import { duplicateJsonFields } from '../src/encoding/duplicate-fields.ts';
import { builtinResourceTypes } from '../src/registry/builtin/index.ts';
import { Store } from '../src/registry/store.ts';
import { MemoryBackend } from '../src/storage/index.ts';
import { addGoZeroValues, applyDefaults, builtinDefinitions, prune, schemaRef, validate } from '../src/schema/index.ts';
import { builtinValidation } from '../src/schema/validate.ts';

/** A Deployment as `kubectl create -f` sends it: one container, a few ports, probes and resources. */
export function typicalDeployment(name = 'web'): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: name, tier: 'frontend' }, annotations: { 'example.com/owner': 'team-a' } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: name } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
      template: {
        metadata: { labels: { app: name, tier: 'frontend' } },
        spec: {
          containers: [{
            name: 'app',
            image: 'registry.example.com/app:1.2.3',
            args: ['--port=8080', '--verbose'],
            ports: [{ name: 'http', containerPort: 8080 }, { name: 'metrics', containerPort: 9090, protocol: 'TCP' }],
            env: [{ name: 'MODE', value: 'production' }, { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
            resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: 1, memory: '256Mi' } },
            readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5 },
            livenessProbe: { tcpSocket: { port: 8080 }, initialDelaySeconds: 10 },
            volumeMounts: [{ name: 'config', mountPath: '/etc/app' }],
          }],
          volumes: [{ name: 'config', configMap: { name: `${name}-config` } }],
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
        },
      },
    },
  };
}

/** A Deployment of about `bytes` of JSON: many containers with many environment variables. */
export function largeDeployment(bytes = 50 * 1024): Record<string, unknown> {
  const obj = typicalDeployment('large');
  const spec = (obj.spec as { template: { spec: { containers: Record<string, unknown>[] } } }).template.spec;
  const base = spec.containers[0]!;
  spec.containers = [];
  for (let c = 0; JSON.stringify(obj).length < bytes; c++) {
    const env = Array.from({ length: 40 }, (_, i) => ({ name: `VARIABLE_${c}_${i}`, value: `value number ${i} of container ${c}` }));
    spec.containers.push({ ...structuredClone(base), name: `app-${c}`, env });
  }
  return obj;
}

function timeMicros(iterations: number, fn: () => void): number {
  for (let i = 0; i < Math.min(iterations, 200); i++) fn();
  const started = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn();
  return Number(process.hrtime.bigint() - started) / 1000 / iterations;
}

const defs = builtinDefinitions;
const schema = { $ref: schemaRef('io.k8s.api.apps.v1.Deployment') };

/** The Store's schema work on a create: prune, defaults, the decode-time check, validation, Go's zero values. */
function storeSchemaWork(obj: unknown): void {
  prune(defs, schema, obj, { isResourceRoot: true });
  applyDefaults(defs, schema, obj);
  validate(defs, schema, obj, builtinValidation);
  validate(defs, schema, obj, builtinValidation);
  addGoZeroValues(defs, schema, obj);
}

function report(label: string, micros: number): void {
  console.log(`${label.padEnd(58)} ${micros.toFixed(1).padStart(8)} µs`);
}

/**
 * Store.create of typical Deployments on memory storage (no watch cache, no HTTP), with
 * the built-in schema and with one that specifies nothing: the difference is the schema
 * work per create.
 */
async function storeCreateMicros(checkNothing: boolean, count: number): Promise<number> {
  const type = builtinResourceTypes().find((t) => t.resource === 'deployments')!;
  const definitions = checkNothing ? { ...builtinDefinitions, [type.schemaName]: { 'x-kubernetes-preserve-unknown-fields': true } } : builtinDefinitions;
  const backend = new MemoryBackend();
  const store = new Store(type, backend, new AdmissionChain([]), undefined, { definitions });
  const body = typicalDeployment();
  for (let i = 0; i < 500; i++) await store.create('default', { ...body, metadata: { name: `warm-${i}` } } as never);
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) await store.create('default', { ...body, metadata: { name: `d-${i}` } } as never);
  const micros = Number(process.hrtime.bigint() - started) / 1000 / count;
  await backend.close();
  return micros;
}

if (import.meta.main) {
  for (const [label, obj] of [['typical Deployment', typicalDeployment()], ['50 KiB Deployment', largeDeployment()]] as const) {
    const text = JSON.stringify(obj);
    console.log(`${label}: ${text.length} bytes of JSON`);
    const iterations = text.length > 10_000 ? 2_000 : 20_000;
    report('  JSON.parse', timeMicros(iterations, () => JSON.parse(text)));
    report('  duplicate-field scan', timeMicros(iterations, () => duplicateJsonFields(text)));
    report('  structuredClone (what the Store already does per write)', timeMicros(iterations, () => structuredClone(obj)));
    const copies = Array.from({ length: iterations + 200 }, () => structuredClone(obj));
    let n = 0;
    report('  prune', timeMicros(iterations, () => prune(defs, schema, copies[n++ % copies.length], { isResourceRoot: true })));
    report('  applyDefaults', timeMicros(iterations, () => applyDefaults(defs, schema, obj)));
    report('  validate (types and required)', timeMicros(iterations, () => validate(defs, schema, obj, builtinValidation)));
    const unfilled = Array.from({ length: iterations + 200 }, () => structuredClone(obj));
    n = 0;
    report('  Go\'s zero values added', timeMicros(iterations, () => addGoZeroValues(defs, schema, unfilled[n++ % unfilled.length])));
    const fresh = Array.from({ length: iterations + 200 }, () => structuredClone(obj));
    n = 0;
    report('  per create: prune + defaults + validate twice + zero values', timeMicros(iterations, () => storeSchemaWork(fresh[n++ % fresh.length])));
  }
  console.log('Store.create of a typical Deployment (memory storage, in process):');
  // The fastest of several interleaved runs: the least disturbed by whatever else the machine does.
  const runs = 7;
  const withSchema: number[] = [];
  const without: number[] = [];
  for (let r = 0; r < runs; r++) {
    without.push(await storeCreateMicros(true, 3_000));
    withSchema.push(await storeCreateMicros(false, 3_000));
  }
  report('  schema that checks nothing (fastest of 7 runs)', Math.min(...without));
  report('  built-in Deployment schema (fastest of 7 runs)', Math.min(...withSchema));
  report('  difference: the schema work per create', Math.min(...withSchema) - Math.min(...without));
}
