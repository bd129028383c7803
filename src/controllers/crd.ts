// The CRD controllers of apiextensions-apiserver, in-process: naming (acceptedNames and
// NamesAccepted), establishing (Established), serving (a ResourceType, watch cache and
// Store per served version, registered so discovery and OpenAPI list them) and the
// finalizer (deleting a CRD deletes its objects first). They watch CRDs through the same
// Store API clients use and write CRD status through /status.

import { isStatusError } from '../api/index.ts';
import { nowTimestamp } from '../registry/builtin/common.ts';
import { setCondition } from '../registry/crd/conditions.ts';
import {
  customResourceVersions, servedNames, type CustomResourceVersion, type Definitions,
} from '../registry/crd/custom-resource.ts';
import {
  cleanupFinalizer, conditionOf, isConditionTrue, type CustomResourceDefinition, type CustomResourceDefinitionNames,
} from '../registry/crd/types.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { Store } from '../registry/store.ts';

/** How often a CRD whose objects are still being deleted is looked at again. */
const cleanupPollMs = 1000;
/** Delay before retrying after an error (a conflict on the status write, a backend hiccup). */
const retryMs = 1000;

/** What serving a custom resource type takes: a started watch cache and a Store on it. */
export interface CustomResourceServer {
  start(version: CustomResourceVersion): Promise<{ store: Store; close(): void }>;
}

export interface CrdControllerOptions {
  registry: ResourceRegistry;
  /** The customresourcedefinitions Store. */
  crds: Store;
  /** The definitions OpenAPI and the custom resource Stores read: each served version's schema is added here. */
  definitions: Definitions;
  resources: CustomResourceServer;
  log: (message: string) => void;
}

interface ServedVersion {
  type: ResourceType;
  store: Store;
  close(): void;
}

interface Serving {
  /** What the served types were built from; a change rebuilds them. */
  fingerprint: string;
  versions: ServedVersion[];
  /** Read by the types' strategies: creates are refused while the CRD is being deleted. */
  state: { terminating: boolean };
}

function stringOf(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function namesOf(v: unknown): CustomResourceDefinitionNames {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as CustomResourceDefinitionNames) : {};
}

function listOfStrings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** Upstream's equalToAcceptedOrFresh: a name is fine if it is already ours or nobody's. */
function nameConflict(requested: string, accepted: string, used: Set<string>): string | undefined {
  if (requested === accepted || !used.has(requested)) return undefined;
  return `"${requested}" is already in use`;
}

export class CrdController {
  readonly #registry: ResourceRegistry;
  readonly #crds: Store;
  readonly #definitions: Definitions;
  readonly #resources: CustomResourceServer;
  readonly #log: (message: string) => void;
  /** The latest CRDs seen (the informer's cache), by name. */
  readonly #known = new Map<string, CustomResourceDefinition>();
  readonly #serving = new Map<string, Serving>();
  readonly #queue = new Set<string>();
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  #draining: Promise<void> | undefined;
  #stopWatch: (() => void) | undefined;
  #closed = false;

  constructor(opts: CrdControllerOptions) {
    this.#registry = opts.registry;
    this.#crds = opts.crds;
    this.#definitions = opts.definitions;
    this.#resources = opts.resources;
    this.#log = opts.log;
  }

  /**
   * Serves every stored CRD that is established (before the server answers ready, so that a
   * restart serves them again at once), then follows changes.
   */
  async start(): Promise<void> {
    const revision = await this.#resync();
    for (const name of this.#known.keys()) this.#enqueue(name);
    await this.idle();
    void this.#watch(revision);
  }

  close(): void {
    this.#closed = true;
    this.#stopWatch?.();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#queue.clear();
    for (const serving of this.#serving.values()) for (const v of serving.versions) v.close();
    this.#serving.clear();
  }

  /** Waits until every queued CRD was looked at (tests). */
  async idle(): Promise<void> {
    while (this.#draining !== undefined) await this.#draining;
  }

  async #resync(): Promise<string> {
    const page = await this.#crds.list('');
    this.#known.clear();
    for (const { object } of page.items) this.#known.set(object.metadata.name!, structuredClone(object) as CustomResourceDefinition);
    return page.metadata.resourceVersion ?? '';
  }

  async #watch(revision: string): Promise<void> {
    let from = revision;
    while (!this.#closed) {
      try {
        const watcher = await this.#crds.watch('', { resourceVersion: from, bookmarks: false });
        this.#stopWatch = () => watcher.close();
        for await (const event of watcher) {
          if (event.type === 'BOOKMARK') continue;
          const crd = event.object as CustomResourceDefinition;
          const name = crd.metadata.name!;
          if (event.type === 'DELETED') this.#known.delete(name);
          else this.#known.set(name, structuredClone(crd) as CustomResourceDefinition);
          from = crd.metadata.resourceVersion ?? from;
          this.#enqueueGroup(stringOf(crd.spec?.group), name);
        }
      } catch (err) {
        if (this.#closed) return;
        this.#log(`crd controller: watch ended: ${(err as Error).message}`);
      }
      if (this.#closed) return;
      // Start over from a fresh list: events may have been missed.
      await new Promise((resolve) => this.#after(retryMs, () => resolve(undefined)));
      if (this.#closed) return;
      try {
        from = await this.#resync();
        for (const name of this.#known.keys()) this.#enqueue(name);
        for (const name of this.#serving.keys()) if (!this.#known.has(name)) this.#enqueue(name);
      } catch (err) {
        this.#log(`crd controller: relisting CRDs: ${(err as Error).message}`);
      }
    }
  }

  #after(ms: number, fn: () => void): void {
    if (this.#closed) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      fn();
    }, ms);
    this.#timers.add(timer);
  }

  /** A change to one CRD can free or take names of the others in its group: look at them all. */
  #enqueueGroup(group: string, name: string): void {
    this.#enqueue(name);
    for (const [other, crd] of this.#known) if (other !== name && stringOf(crd.spec?.group) === group) this.#enqueue(other);
  }

  #enqueue(name: string): void {
    if (this.#closed) return;
    this.#queue.add(name);
    this.#draining ??= this.#drain().finally(() => {
      this.#draining = undefined;
    });
  }

  async #drain(): Promise<void> {
    while (!this.#closed && this.#queue.size > 0) {
      const name = this.#queue.values().next().value!;
      this.#queue.delete(name);
      await this.#reconcileSafely(name);
    }
  }

  async #reconcileSafely(name: string): Promise<void> {
    try {
      await this.#reconcile(name);
    } catch (err) {
      if (this.#closed) return;
      // A concurrent write of the CRD: look again at once, at the new version.
      if (isStatusError(err) && err.reason === 'Conflict') {
        this.#enqueue(name);
        return;
      }
      if (!(isStatusError(err) && err.reason === 'NotFound')) this.#log(`crd controller: ${name}: ${(err as Error).message}`);
      this.#after(retryMs, () => this.#enqueue(name));
    }
  }

  async #reconcile(name: string): Promise<void> {
    const crd = (await this.#crds.find('', name)) as CustomResourceDefinition | undefined;
    if (crd === undefined) {
      this.#known.delete(name);
      this.#unserve(name);
      return;
    }
    this.#known.set(name, crd);
    if (crd.metadata.deletionTimestamp !== undefined) {
      await this.#finalize(crd);
      return;
    }
    const { names, namesAccepted } = this.#acceptNames(crd);
    const next = structuredClone(crd);
    next.status = { ...(next.status ?? {}), acceptedNames: names };
    setCondition(next, namesAccepted, nowTimestamp());
    const established = conditionOf(crd, 'Established');
    if (namesAccepted.status === 'True' || established?.status === 'True') {
      await this.#serve(next, false);
    }
    if (namesAccepted.status === 'True' && established?.status !== 'True') {
      setCondition(next, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }, nowTimestamp());
    } else if (established === undefined) {
      setCondition(next, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }, nowTimestamp());
    }
    await this.#writeStatus(crd, next);
  }

  /**
   * Upstream's naming controller (calculateNamesAndConditions): each requested name is
   * accepted unless another CRD of the group has already accepted it; conflicting names
   * keep their previously accepted value.
   */
  #acceptNames(crd: CustomResourceDefinition): { names: CustomResourceDefinitionNames; namesAccepted: { type: string; status: 'True' | 'False'; reason: string; message: string } } {
    const group = stringOf(crd.spec?.group);
    const resources = new Set<string>();
    const kinds = new Set<string>();
    for (const [otherName, other] of this.#known) {
      if (stringOf(other.spec?.group) !== group) continue;
      const accepted = namesOf(otherName === crd.metadata.name ? crd.status?.acceptedNames : other.status?.acceptedNames);
      for (const n of [stringOf(accepted.plural), stringOf(accepted.singular), ...listOfStrings(accepted.shortNames)]) if (n !== '') resources.add(n);
      for (const n of [stringOf(accepted.kind), stringOf(accepted.listKind)]) if (n !== '') kinds.add(n);
    }
    const requested = namesOf(crd.spec?.names);
    const accepted = namesOf(crd.status?.acceptedNames);
    const names: CustomResourceDefinitionNames = {
      plural: stringOf(accepted.plural),
      singular: stringOf(accepted.singular) || undefined,
      shortNames: accepted.shortNames,
      kind: stringOf(accepted.kind),
      listKind: stringOf(accepted.listKind) || undefined,
      categories: accepted.categories,
    };
    let conflict: { reason: string; message: string } | undefined;
    const check = (field: 'plural' | 'singular' | 'kind' | 'listKind', used: Set<string>, reason: string) => {
      const problem = nameConflict(stringOf(requested[field]), stringOf(accepted[field]), used);
      if (problem === undefined) names[field] = stringOf(requested[field]);
      else conflict = { reason, message: problem };
    };
    check('plural', resources, 'PluralConflict');
    check('singular', resources, 'SingularConflict');
    const requestedShort = listOfStrings(requested.shortNames);
    const acceptedShort = new Set(listOfStrings(accepted.shortNames));
    const shortProblems = requestedShort.filter((s) => !acceptedShort.has(s)).map((s) => nameConflict(s, '', resources)).filter((p) => p !== undefined);
    if (shortProblems.length > 0) conflict = { reason: 'ShortNamesConflict', message: shortProblems.length === 1 ? shortProblems[0]! : `[${shortProblems.join(', ')}]` };
    else names.shortNames = requestedShort.length > 0 ? requestedShort : undefined;
    check('kind', kinds, 'KindConflict');
    check('listKind', kinds, 'ListKindConflict');
    const categories = listOfStrings(requested.categories);
    names.categories = categories.length > 0 ? categories : undefined;
    for (const key of Object.keys(names) as (keyof CustomResourceDefinitionNames)[]) if (names[key] === undefined) delete names[key];
    const found = conflict as { reason: string; message: string } | undefined;
    return {
      names,
      namesAccepted: found === undefined
        ? { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }
        : { type: 'NamesAccepted', status: 'False', reason: found.reason, message: found.message },
    };
  }

  /** Writes `next`'s status when it differs from what is stored (a no-op write would be skipped anyway). */
  async #writeStatus(current: CustomResourceDefinition, next: CustomResourceDefinition): Promise<void> {
    if (JSON.stringify(current.status) === JSON.stringify(next.status)
      && JSON.stringify(current.metadata.finalizers ?? []) === JSON.stringify(next.metadata.finalizers ?? [])) return;
    const { object } = await this.#crds.guaranteedUpdate('', current.metadata.name!, current.metadata.resourceVersion, {}, () => next, { subresource: 'status' });
    // Like upstream's mutation cache: the next CRD of the group sees these names at once.
    if (object.metadata.deletionTimestamp === undefined || (object.metadata.finalizers ?? []).length > 0) {
      this.#known.set(current.metadata.name!, object as CustomResourceDefinition);
    }
  }

  /** Registers the CRD's served versions (again, when what they are built from changed). */
  async #serve(crd: CustomResourceDefinition, terminating: boolean): Promise<void> {
    const name = crd.metadata.name!;
    const existing = this.#serving.get(name);
    const fingerprint = JSON.stringify({ spec: crd.spec, names: servedNames(crd) });
    if (existing !== undefined) {
      existing.state.terminating = terminating;
      if (existing.fingerprint === fingerprint) return;
    }
    const state = existing?.state ?? { terminating };
    const built = customResourceVersions(crd, { definitions: this.#definitions, terminating: () => state.terminating });
    const versions: ServedVersion[] = [];
    try {
      for (const version of built) {
        const { type, definition } = version;
        const owner = this.#registry.lookup(type.group, type.version, type.resource);
        // A built-in resource keeps its path; the CRD's version is not served there.
        if (owner !== undefined && owner.type.customResource !== true) {
          this.#log(`crd controller: ${name}: ${type.resource}.${type.group}/${type.version} is a built-in resource; not served`);
          continue;
        }
        this.#definitions[type.schemaName] = definition;
        const { store, close } = await this.#resources.start(version);
        versions.push({ type, store, close });
      }
    } catch (err) {
      for (const v of versions) v.close();
      throw err;
    }
    if (this.#closed) {
      for (const v of versions) v.close();
      return;
    }
    const previous = existing?.versions ?? [];
    // Replace in place, then drop versions no longer served: paths never go missing in between.
    for (const v of versions) this.#registry.add({ type: v.type, store: v.store });
    const kept = new Set(versions.map((v) => `${v.type.group}/${v.type.version}/${v.type.resource}`));
    const keptSchemas = new Set(versions.map((v) => v.type.schemaName));
    for (const v of previous) {
      const key = `${v.type.group}/${v.type.version}/${v.type.resource}`;
      if (!kept.has(key) && this.#registry.lookup(v.type.group, v.type.version, v.type.resource)?.store === v.store) {
        this.#registry.remove(v.type.group, v.type.version, v.type.resource);
      }
      if (!keptSchemas.has(v.type.schemaName)) delete this.#definitions[v.type.schemaName];
      v.close();
    }
    this.#serving.set(name, { fingerprint, versions, state });
  }

  #unserve(name: string): void {
    const serving = this.#serving.get(name);
    if (serving === undefined) return;
    this.#serving.delete(name);
    for (const v of serving.versions) {
      if (this.#registry.lookup(v.type.group, v.type.version, v.type.resource)?.store === v.store) {
        this.#registry.remove(v.type.group, v.type.version, v.type.resource);
      }
      delete this.#definitions[v.type.schemaName];
      v.close();
    }
  }

  /**
   * Upstream's CRD finalizer: while the cleanup finalizer is set, delete every object of the
   * CRD, wait until they are gone, then remove the finalizer (the Store then deletes the CRD).
   */
  async #finalize(crd: CustomResourceDefinition): Promise<void> {
    const name = crd.metadata.name!;
    const wasServed = this.#serving.has(name);
    if (isConditionTrue(crd, 'Established') || isConditionTrue(crd, 'NamesAccepted') || wasServed) await this.#serve(crd, true);
    if (!(crd.metadata.finalizers ?? []).includes(cleanupFinalizer)) return;
    const next = structuredClone(crd);
    const serving = this.#serving.get(name);
    const store = serving?.versions[0]?.store;
    if (store === undefined || !isConditionTrue(crd, 'Established')) {
      setCondition(next, { type: 'Terminating', status: 'False', reason: 'NeverEstablished', message: 'resource was never established' }, nowTimestamp());
    } else {
      if (conditionOf(crd, 'Terminating')?.reason !== 'InstanceDeletionInProgress') {
        setCondition(next, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' }, nowTimestamp());
        await this.#writeStatus(crd, next);
        return; // The status write brings the CRD back through the queue.
      }
      const remaining = await this.#deleteInstances(store);
      if (remaining > 0) {
        this.#after(cleanupPollMs, () => this.#enqueue(name));
        return;
      }
      setCondition(next, { type: 'Terminating', status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' }, nowTimestamp());
    }
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== cleanupFinalizer);
    if (next.metadata.finalizers.length === 0) delete next.metadata.finalizers;
    try {
      await this.#writeStatus(crd, next);
    } catch (err) {
      if (isStatusError(err) && err.reason === 'NotFound') return;
      throw err;
    }
    // Gone now, or kept by other finalizers: either way its objects are.
    if ((next.metadata.finalizers ?? []).length === 0) this.#unserve(name);
  }

  /** Deletes every object (finalizers may keep some for a while); answers how many are left. */
  async #deleteInstances(store: Store): Promise<number> {
    await store.deleteCollection('', undefined, {});
    return (await store.list('')).items.length;
  }
}
