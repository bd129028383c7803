// The CRD controllers of apiextensions-apiserver, in-process: naming (acceptedNames and
// NamesAccepted), establishing (Established), serving (a ResourceType, watch cache and
// Store per served version, registered so discovery and OpenAPI list them) and the
// finalizer (deleting a CRD deletes its objects first). They follow CRDs with an informer
// on the same Store API clients use and write CRD status through /status.
//
// Every replica serves the CRDs' resources; only the elected one decides names and
// conditions and runs the finalizer (startWritingStatus/stopWritingStatus). The others
// serve what the stored status says: a CRD once its names are accepted or it is
// established, with the names accepted.

import { isStatusError, type KubeObject } from '../api/index.ts';
import { clone, isObject } from '../api/json.ts';
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
import { Controller, Informer, type ReconcileResult } from './runtime/index.ts';

/** How often a CRD whose objects are still being deleted is looked at again. */
const cleanupPollMs = 1000;
/** The informer's index of CRDs by spec.group: the names of a group are decided together. */
const byGroup = 'group';

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
  /**
   * Whether it decides names and conditions and runs the finalizer from the start
   * (default true); false serves CRDs as stored until startWritingStatus() (the elected replica).
   */
  writeStatus?: boolean;
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

/** Resource versions are etcd revisions: numbers, so that the newer of two copies can be told. */
function revisionOf(object: KubeObject): number {
  return Number(object.metadata.resourceVersion ?? 0);
}

function groupOf(crd: KubeObject): string {
  return stringOf((crd as CustomResourceDefinition).spec?.group);
}

function stringOf(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function namesOf(v: unknown): CustomResourceDefinitionNames {
  return isObject(v) ? (v as CustomResourceDefinitionNames) : {};
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
  readonly #informer: Informer;
  readonly #controller: Controller;
  /**
   * CRDs read or written by the controller and newer than the informer's copy, like
   * upstream's mutation cache: the next CRD of the group sees names accepted a moment
   * ago, before the watch brings them. Dropped once the informer catches up.
   */
  readonly #fresher = new Map<string, CustomResourceDefinition>();
  readonly #serving = new Map<string, Serving>();
  #closed = false;
  /** Whether this replica writes status and runs the finalizer (while it leads). */
  #writingStatus: boolean;
  /** Reconciles started while writing status: stopWritingStatus waits for them. */
  readonly #statusWork = new Set<Promise<unknown>>();

  constructor(opts: CrdControllerOptions) {
    this.#registry = opts.registry;
    this.#crds = opts.crds;
    this.#definitions = opts.definitions;
    this.#resources = opts.resources;
    this.#log = opts.log;
    this.#writingStatus = opts.writeStatus ?? true;
    this.#informer = new Informer({
      source: opts.crds,
      resource: 'customresourcedefinitions',
      indexers: { [byGroup]: (crd) => [groupOf(crd)] },
      log: opts.log,
    });
    this.#controller = new Controller({
      name: 'crd',
      informers: [this.#informer],
      reconcile: (name) => this.#reconcileOrRetry(name),
      // A CRD deleted meanwhile: the retry finds it gone, nothing worth a line.
      shouldLog: (err) => !(isStatusError(err) && err.reason === 'NotFound'),
      log: opts.log,
    });
    const changed = (object: KubeObject) => this.#enqueueGroup(groupOf(object), object.metadata.name!);
    this.#informer.addHandlers({
      add: changed,
      update: (_, crd) => {
        this.#dropIfCaughtUp(crd);
        changed(crd);
      },
      delete: (crd) => {
        this.#fresher.delete(crd.metadata.name!);
        changed(crd);
      },
    });
  }

  /**
   * Serves every stored CRD that is established (before the server answers ready, so that a
   * restart serves them again at once), then follows changes.
   */
  async start(): Promise<void> {
    await this.#controller.start();
    await this.idle();
  }

  /**
   * From now on this replica decides names and conditions and runs the finalizer (it
   * leads); resolves once every CRD was looked at again.
   */
  async startWritingStatus(): Promise<void> {
    this.#writingStatus = true;
    for (const name of this.#informer.store.keys()) this.#controller.queue.add(name);
    await this.idle();
  }

  /** Serves CRDs as their stored status says, and no longer writes it; resolves once no status write is in flight. */
  async stopWritingStatus(): Promise<void> {
    this.#writingStatus = false;
    await Promise.allSettled([...this.#statusWork]);
  }

  /** Stops following CRDs, waits for the work in flight, then stops serving their resources. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#controller.stop();
    for (const serving of this.#serving.values()) for (const v of serving.versions) v.close();
    this.#serving.clear();
  }

  /** Waits until every queued CRD was looked at (tests). */
  idle(): Promise<void> {
    return this.#controller.idle();
  }

  /** The latest state of the CRDs of `group` that the controller knows, by name. */
  #crdsOfGroup(group: string): Map<string, CustomResourceDefinition> {
    const crds = new Map<string, CustomResourceDefinition>();
    for (const crd of this.#informer.store.byIndex(byGroup, group)) crds.set(crd.metadata.name!, crd as CustomResourceDefinition);
    for (const [name, crd] of this.#fresher) {
      if (stringOf(crd.spec?.group) !== group) continue;
      const seen = crds.get(name);
      if (seen === undefined || revisionOf(crd) > revisionOf(seen)) crds.set(name, crd);
    }
    return crds;
  }

  #remember(crd: CustomResourceDefinition): void {
    const seen = this.#informer.store.get(crd.metadata.name!);
    if (seen === undefined || revisionOf(crd) > revisionOf(seen)) this.#fresher.set(crd.metadata.name!, crd);
  }

  #dropIfCaughtUp(seen: KubeObject): void {
    const fresher = this.#fresher.get(seen.metadata.name!);
    if (fresher !== undefined && revisionOf(seen) >= revisionOf(fresher)) this.#fresher.delete(seen.metadata.name!);
  }

  /** A change to one CRD can free or take names of the others in its group: look at them all. */
  #enqueueGroup(group: string, name: string): void {
    this.#controller.queue.add(name);
    for (const other of this.#crdsOfGroup(group).keys()) this.#controller.queue.add(other);
  }

  async #reconcileOrRetry(name: string): Promise<ReconcileResult> {
    if (!this.#writingStatus) return this.#serveAsStored(name);
    const work = this.#reconcile(name);
    this.#statusWork.add(work);
    try {
      return await work;
    } catch (err) {
      // A concurrent write of the CRD: look again at once, at the new version.
      if (isStatusError(err) && err.reason === 'Conflict') return { requeueAfterMs: 0 };
      throw err;
    } finally {
      this.#statusWork.delete(work);
    }
  }

  /** What a replica that does not lead does: serves the CRD as the leader's status says, or stops serving it once gone. */
  async #serveAsStored(name: string): Promise<void> {
    const crd = (await this.#crds.find('', name)) as CustomResourceDefinition | undefined;
    if (crd === undefined) {
      this.#fresher.delete(name);
      this.#unserve(name);
      return;
    }
    const terminating = crd.metadata.deletionTimestamp !== undefined;
    // As the leader decides it: served once its names are accepted or it is established, kept while it is being deleted.
    if (isConditionTrue(crd, 'NamesAccepted') || isConditionTrue(crd, 'Established') || (terminating && this.#serving.has(name))) {
      await this.#serve(crd, terminating);
    }
  }

  async #reconcile(name: string): Promise<ReconcileResult> {
    const crd = (await this.#crds.find('', name)) as CustomResourceDefinition | undefined;
    if (crd === undefined) {
      this.#fresher.delete(name);
      this.#unserve(name);
      return;
    }
    this.#remember(crd);
    if (crd.metadata.deletionTimestamp !== undefined) return this.#finalize(crd);
    const { names, namesAccepted } = this.#acceptNames(crd);
    const next = clone(crd);
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
    for (const [otherName, other] of this.#crdsOfGroup(group)) {
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
      this.#remember(object as CustomResourceDefinition);
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
  async #finalize(crd: CustomResourceDefinition): Promise<ReconcileResult> {
    const name = crd.metadata.name!;
    const wasServed = this.#serving.has(name);
    if (isConditionTrue(crd, 'Established') || isConditionTrue(crd, 'NamesAccepted') || wasServed) await this.#serve(crd, true);
    if (!(crd.metadata.finalizers ?? []).includes(cleanupFinalizer)) return;
    const next = clone(crd);
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
      if (remaining > 0) return { requeueAfterMs: cleanupPollMs };
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
