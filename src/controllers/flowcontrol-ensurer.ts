// API Priority and Fairness' bootstrap configuration kept as upstream's ensurer keeps it
// (kube-apiserver's priority-and-fairness-config-producer, once at start and then every
// minute): a missing mandatory or suggested object is made again; a mandatory one's spec
// is always brought back to its default (but the exempt level's concurrency shares and
// lendable percent, which operators may set); a suggested one's only while it allows it
// (`apf.kubernetes.io/autoupdate-spec: "true"`, or without a boolean there while never
// changed, generation 1), the annotation written to say which; and an object that is no
// longer part of the configuration but says it may be updated is deleted.
// bootstrap.ts makes the objects at every start; this keeps them.
import { isStatusError, type KubeObject } from '../api/index.ts';
import { deepEqual } from '../api/json.ts';
import { autoUpdateAnnotation, flowControlProducer, mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from '../registry/flowcontrol-config.ts';
import type { Store } from '../registry/store.ts';

/** Go's strconv.ParseBool: undefined for what it refuses. */
function parseBool(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

/** Whether a suggested object's spec may be brought back to its default (upstream's shouldUpdateSpec). */
function mayUpdateSpec(current: KubeObject): boolean {
  return parseBool(current.metadata.annotations?.[autoUpdateAnnotation]) ?? current.metadata.generation === 1;
}

/** Whether the spec is its default's (upstream's SpecEqualish: the exempt level's shares and lendable percent are the operator's). */
function specIsDefault(wanted: KubeObject, current: KubeObject): boolean {
  const spec = structuredClone(wanted.spec) as { exempt?: Record<string, unknown> };
  if (wanted.kind === 'PriorityLevelConfiguration' && wanted.metadata.name === 'exempt') {
    const exempt = (current.spec as { exempt?: Record<string, unknown> } | undefined)?.exempt;
    if (exempt === undefined || exempt === null) return false;
    spec.exempt = { ...spec.exempt, nominalConcurrencyShares: exempt.nominalConcurrencyShares, lendablePercent: exempt.lendablePercent };
    for (const key of ['nominalConcurrencyShares', 'lendablePercent']) if (spec.exempt[key] === undefined) delete spec.exempt[key];
  }
  return deepEqual(spec, current.spec);
}

export class FlowControlEnsurer {
  readonly #schemas: Store;
  readonly #levels: Store;
  readonly #log: (message: string) => void;
  readonly #intervalMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();

  constructor(opts: { schemas: Store; levels: Store; log: (message: string) => void; intervalMs?: number }) {
    this.#schemas = opts.schemas;
    this.#levels = opts.levels;
    this.#log = opts.log;
    this.#intervalMs = opts.intervalMs ?? 60_000;
  }

  /** Ensures the configuration once, then every interval. */
  async start(): Promise<void> {
    await this.#run();
    this.#timer = setInterval(() => void this.#run(), this.#intervalMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }

  #run(): Promise<void> {
    this.#running = this.#running.then(() => this.ensure()).catch((err: unknown) => this.#log(`priority and fairness configuration: ${(err as Error).message}; will retry`));
    return this.#running;
  }

  /** One pass: suggested objects, then mandatory ones, then the unwanted removed (upstream's order). */
  async ensure(): Promise<void> {
    for (const level of suggestedPriorityLevels) await this.#ensure(this.#levels, level, false);
    for (const schema of suggestedFlowSchemas) await this.#ensure(this.#schemas, schema, false);
    for (const level of mandatoryPriorityLevels) await this.#ensure(this.#levels, level, true);
    for (const schema of mandatoryFlowSchemas) await this.#ensure(this.#schemas, schema, true);
    await this.#removeUnwanted(this.#schemas, [...mandatoryFlowSchemas, ...suggestedFlowSchemas]);
    await this.#removeUnwanted(this.#levels, [...mandatoryPriorityLevels, ...suggestedPriorityLevels]);
  }

  async #ensure(store: Store, wanted: KubeObject, mandatory: boolean): Promise<void> {
    const name = wanted.metadata.name!;
    const current = await store.find('', name);
    if (current === undefined) {
      await store.create('', structuredClone(wanted), { fieldManager: flowControlProducer }).catch((err: unknown) => {
        if (!(isStatusError(err) && err.reason === 'AlreadyExists')) throw err;
      });
      return;
    }
    const autoUpdate = mandatory || mayUpdateSpec(current);
    const annotate = parseBool(current.metadata.annotations?.[autoUpdateAnnotation]) !== autoUpdate;
    const specChanged = autoUpdate && !specIsDefault(wanted, current);
    if (!annotate && !specChanged) return;
    const revised = structuredClone(current);
    if (specChanged) revised.spec = structuredClone(wanted.spec);
    if (annotate) revised.metadata.annotations = { ...revised.metadata.annotations, [autoUpdateAnnotation]: String(autoUpdate) };
    await store.update('', name, revised, { fieldManager: flowControlProducer }).catch((err: unknown) => {
      // Changed meanwhile: looked at again next time.
      if (!(isStatusError(err) && err.code === 409)) throw err;
    });
  }

  async #removeUnwanted(store: Store, wanted: readonly KubeObject[]): Promise<void> {
    const names = new Set(wanted.map((o) => o.metadata.name));
    for (const { object } of (await store.list('', {})).items) {
      if (names.has(object.metadata.name) || parseBool(object.metadata.annotations?.[autoUpdateAnnotation]) !== true) continue;
      await store.delete('', object.metadata.name!).catch((err: unknown) => {
        if (!(isStatusError(err) && err.code === 404)) throw err;
      });
    }
  }
}
