// The generic Store: one resource's object lifecycle (create, update, delete, dry run, managed fields) over a storage Backend.
import { randomUUID } from 'node:crypto';
import {
  alreadyExists, apiVersionOf, badRequest, conflict, generateNameConflict, internalError, invalid, isStatusError, notFound, staleObject, timeout,
  unclassifiedError, type GroupResource, type KubeList, type KubeObject, type Status, type StatusCause, type StatusError,
} from '../api/index.ts';
import type { AdmissionAttributes, AdmissionChain, Operation } from '../admission/chain.ts';
import { isStorageError, type Backend, type KeyValue } from '../storage/backend.ts';
import { decodeFromStorage, encodeForStorage, isCorruptObjectError, markEncodedHere, offerWritten, offerWrittenView, rememberWritten } from './codec.ts';
import { objectKey } from './keys.ts';
import { interpretUnreachable } from './storage-errors.ts';
import type { Allocator, PropagationOptions, ResourceType } from './resource-type.ts';
import { beforeDelete, deletionFinalizers, markAsDeleting, sameSet, timestamp } from './deletion.ts';
import { freshCopy, ReadPath, type ListItem, type ListPage, type ListRequest, type ReadConsistency, type WatchRequest } from './read-path.ts';
import type { CacheWatcher, WatchCache } from '../cache/index.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './validation/object-meta.ts';
import { addWarning, currentRequest, privilegedContainersAllowed, requestTimeLeft, runInRequestContext } from '../api/request-context.ts';
import type { ApplyOffload } from './apply-offload/client.ts';
import type { OffloadedConfiguration } from './apply-offload/messages.ts';
import { clone, deepEqual, isObject, setMember, withNumberText, type JsonObject } from '../api/json.ts';
import { objectMetaDecodeError } from '../api/go-object-meta.ts';
import type { NumberForms } from '../api/number-forms.ts';
import {
  addGoZeroValues, applyDefaults, builtinDefinitions, builtinValidation, cborDecodeError, cborUnknownField, goDecoding, goTypeError, prune,
  schemaRef, validate, zeroNullElements, type Definitions, type GoDecoding, type Schema, type ValidateOptions,
} from '../schema/index.ts';
import { FieldManager } from './field-manager.ts';
import { ConversionPending, type Versions } from '../apply/index.ts';
import { strictDecodingErrors, strictDecodingMessage, type FieldValidation } from './field-validation.ts';
import { rfc3339Seconds } from '../api/time.ts';
import { celLoaded, loadCel } from '../cel/lazy.ts';

export interface WriteOptions {
  dryRun?: boolean;
  /**
   * Fields the schema does not know and fields the body gave twice: what the request's
   * `fieldValidation` asks for. Absent: unknown fields are dropped silently.
   */
  fieldValidation?: FieldValidation;
  /**
   * Who writes, for metadata.managedFields (the request's fieldManager, else from its
   * User-Agent). Absent (the server's own writes): managed fields are left as they are.
   */
  fieldManager?: string;
  /** The write's managed fields are already set (server-side apply did it). */
  managedFieldsSet?: boolean;
  /** The body was CBOR: its items' CBOR types by path, which decoding errors name in fxamacker/cbor's words (go-type-errors.ts). */
  cborTypeAt?: (path: readonly (string | number)[]) => string | undefined;
  /** The JSON body's first number past a float64's range, as written (`1e400`, Infinity here): Go's decoding refuses it. */
  numberOverflow?: string;
  /**
   * The JSON body's numbers written with a fraction or an exponent (`1.0`), which Go's
   * decoding tells from integers: a built-in type's integer refuses them, and a custom
   * resource holds them as float64s (api/number-forms.ts).
   */
  floatNumbers?: NumberForms;
  /** The CBOR body has a float item holding an integer (`2.0`): a built-in type's integer field refuses it. */
  cborIntegralFloat?: true;
  /**
   * For an update or apply that may create its object: authorizes `create` when it does,
   * once the object is prepared and validated, before validating admission (upstream's
   * withAuthorization around the create validation). Throws a 403.
   */
  authorizeCreate?: () => Promise<void>;
  /**
   * The server's own write no admission plugin sees, as upstream's registry code calls its
   * store directly (an eviction's pod status and deletion): neither phase runs.
   */
  withoutAdmission?: boolean;
}

export interface StoreOptions {
  /** Where the type's schema (`schemaName`) and what it refers to are defined. Default: the built-in definitions. */
  definitions?: Definitions;
  /** A worker thread that may run this type's applies (apply-offload/client.ts). */
  applyOffload?: ApplyOffload;
  /**
   * The Stores serving this one's objects (itself among them: its other versions, another
   * group's name for them), as served now: managed fields of managers that wrote through
   * one of them are read in its version. Absent: this Store's version only.
   */
  equivalents?: () => readonly Store[];
}

export interface DeleteOptions extends WriteOptions, PropagationOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
}

export interface DeleteResult {
  /** The object as it is after the call: gone, or marked for deletion and kept by finalizers. */
  object: KubeObject;
  /** False when finalizers (or graceful deletion) keep the object for now. */
  deleted: boolean;
}

export interface UpdateResult {
  object: KubeObject;
  /** The object was missing and the update created it (upstream answers 201). */
  created: boolean;
  /**
   * The bytes stored and their revision, when the object was not decoded for the write
   * (an apply on the worker thread): `object` decodes them when first read.
   */
  stored?: { value: Uint8Array; revision: number };
}

/** How many times a write without a client precondition is retried on a concurrent change. */
const maxRetries = 10;

/**
 * The built-in groups upstream stores as JSON (its apiextensions and aggregator servers set
 * a LegacyCodec for their storage); every other built-in type is stored as Protobuf.
 */
const jsonStoredGroups: ReadonlySet<string> = new Set(['apiextensions.k8s.io', 'apiregistration.k8s.io']);

/** The most webhook conversions one write's managed fields wait for (each a retry of the attempt). */
const maxPendingConversions = 16;
/** The page a deletecollection without a limit lists and deletes at a time (upstream's). */
const deleteCollectionPageSize = 10_000;

/** A conversion made for a write's managed fields, by its target version and object (each attempt builds the same objects the same way). */
function conversionKey(obj: unknown, to: string): string {
  return `${to}\n${JSON.stringify(obj)}`;
}

/** What an update attempt answers when a concurrent write came first: read again and retry. */
const retry = Symbol('retry');

/** How an update through the main resource or one subresource prepares and validates the object. */
interface UpdateRules {
  prepare(obj: KubeObject, current: KubeObject): void;
  /** Throws the 422 of the object's causes, `leading` first (admission's strategyCauses). */
  validate(obj: KubeObject, current: KubeObject, leading?: StatusCause[]): void;
}

/** Upstream's generateName alphabet: no vowels, no look-alikes. */
const nameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

function randomSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += nameAlphabet[Math.floor(Math.random() * nameAlphabet.length)];
  return s;
}

/** How guaranteedUpdate writes. */
export interface UpdateHow {
  /** A missing object is created through `mutate(undefined)` (default: the type's allowCreateOnUpdate). */
  createIfMissing?: boolean;
  /** The subresource written through ('' for the main resource). */
  subresource?: string;
  /** Admission sees the object through this view when the subresource's body is another kind. */
  admissionView?: AdmissionView;
  /**
   * What `mutate` does with its argument. 'changes' (default): it may change it, so it gets
   * a copy of its own, and its result is cloned. 'reads': it never changes it, so it gets
   * the cache's shared, frozen copy; its result is cloned. 'copies': it never changes it
   * and returns an object of its own sharing nothing with it (what the patch functions
   * make): it gets the frozen copy, and its result is taken as it is.
   */
  mutateArgument?: MutateArgument;
  /**
   * A uid in the desired object is a precondition (409 when it is not the stored one's), as
   * an update's body is upstream; a patch's result has none, so a uid it changes is refused
   * by validation as immutable (422).
   */
  uidPrecondition?: boolean;
  /**
   * `expectedResourceVersion` is the body's (a PUT of the resource or a subresource): a type
   * that refuses unconditional updates (upstream's AllowUnconditionalUpdate false) refuses one
   * without it, once the object is found (422, named by the resource as upstream's store names it).
   */
  resourceVersionFromBody?: boolean;
}

export type MutateArgument = 'changes' | 'reads' | 'copies';

/** Where an update attempt starts: the object as last stored, or as the watch cache last saw it. */
interface UpdateBase {
  key: string;
  /** The revision read: the write holds it as its precondition. */
  revision: number;
  /** Shared and frozen when it comes from the cache: read it, never change it. */
  current: KubeObject;
  /** A fresh copy of `current`, to be changed. */
  copy(): KubeObject;
  /** From the watch cache, which may be behind the storage. */
  cached: boolean;
  /** Read from the storage through a key that no longer writes (KeyValue.stale). */
  stale?: true;
}

/**
 * The object lifecycle for one resource (upstream's registry/generic/registry/store.go):
 * names, uid, timestamps, resourceVersion, preconditions, finalizers, dry run,
 * admission and validation, driven by the ResourceType's strategy.
 */
export class Store {
  readonly type: ResourceType;
  readonly groupResource: GroupResource;
  private readonly backend: Backend;
  /** Also run by subresources that write through other paths (pods/eviction). */
  readonly admission: AdmissionChain;
  /** The type's allocator over this Store's storage (Services); restored at start-up. */
  readonly allocator: Allocator | undefined;

  private readonly reads: ReadPath;
  private readonly definitions: Definitions;
  private readonly schema: Schema;
  private readonly validation: ValidateOptions;
  private readonly fieldManager: FieldManager;
  /**
   * What decoding a body into the built-in type's Go struct checks and rewrites beyond its
   * schema (quantities, times, bytes, integers); undefined when nothing, null until the
   * type's first write compiles it (compiling every type's took ~15 ms of a start).
   */
  private goDecodingOfType: GoDecoding | undefined | null = null;
  /** The worker thread that runs this type's applies, when it may (see applyOffloaded). */
  private readonly applyOffload: ApplyOffload | undefined;
  private readonly equivalents: (() => readonly Store[]) | undefined;
  /**
   * While a write's managed fields are worked out: the conversions made for it by a
   * webhook (servedVersions), by target version and object, or the error making one met.
   */
  private conversions: Map<string, KubeObject | Error> | undefined;

  constructor(type: ResourceType, backend: Backend, admission: AdmissionChain, cache?: WatchCache, opts: StoreOptions = {}) {
    this.type = type;
    this.groupResource = { group: type.group, resource: type.resource };
    this.backend = backend;
    this.admission = admission;
    this.allocator = type.allocatorFor?.(backend);
    this.reads = new ReadPath(type, backend, cache, (kv) => this.decode(kv));
    this.definitions = opts.definitions ?? builtinDefinitions;
    if (this.definitions[type.schemaName] === undefined) throw new Error(`no schema ${type.schemaName} for ${type.resource}`);
    this.schema = { $ref: schemaRef(type.schemaName) };
    this.validation = type.schemaValidation ?? builtinValidation;
    this.equivalents = opts.equivalents;
    this.fieldManager = new FieldManager(type, this.definitions, this.servedVersions());
    // Only types served as stored, with nothing to allocate: the worker's Store has neither.
    if (type.customResource !== true && type.storage === undefined && this.allocator === undefined) this.applyOffload = opts.applyOffload;
  }

  get apiVersion(): string {
    return apiVersionOf(this.type.group, this.type.version);
  }

  private key(namespace: string, name: string): string {
    return objectKey(this.type, namespace, name);
  }

  get(namespace: string, name: string, consistency?: ReadConsistency): Promise<KubeObject> {
    return interpretUnreachable(this.groupResource, 'get', () => this.reads.get(namespace, name, consistency));
  }

  /** For answering a GET: the cached object (read-only, shared) and its JSON bytes. */
  getForAnswer(namespace: string, name: string, consistency?: ReadConsistency): Promise<ListItem> {
    return interpretUnreachable(this.groupResource, 'get', () => this.reads.getItem(namespace, name, consistency));
  }

  /** A consistent list answered at once from a caught-up cache (shared, frozen objects), or undefined: see ReadPath.listNow. */
  listNow(namespace: string): KubeObject[] | undefined {
    return this.reads.listNow(namespace);
  }

  /** A list of consistency 'any' at once from a loaded cache, or undefined: see ReadPath.listCachedNow. */
  listCachedNow(namespace: string): KubeObject[] | undefined {
    return this.reads.listCachedNow(namespace);
  }

  /** One object at once from a caught-up cache, null when absent, or undefined: see ReadPath.getNow. */
  getNow(namespace: string, name: string): KubeObject | null | undefined {
    return this.reads.getNow(namespace, name);
  }

  /** The stored object (a consistent read from storage), or undefined. */
  find(namespace: string, name: string): Promise<KubeObject | undefined> {
    return interpretUnreachable(this.groupResource, 'get', () => this.findStored(namespace, name));
  }

  private async findStored(namespace: string, name: string): Promise<KubeObject | undefined> {
    const kv = await this.backend.get(this.key(namespace, name));
    return kv === undefined ? undefined : this.decode(kv);
  }

  // Lists and watches select by the type's own fields; writes run its strategy: both
  // wait for a lazily loaded type's behaviour (ResourceType.load), and writes for CEL when
  // the strategy uses it (writeReady). Gets need none of it.
  /** The type's schema, and a resolver of the references in it (for checking expressions against the type). */
  typeSchema(): { schema: Record<string, unknown>; resolve: (schema: Record<string, unknown>) => Record<string, unknown> } {
    const definitions = this.definitions as Record<string, Record<string, unknown>>;
    const resolve = (schema: Record<string, unknown>): Record<string, unknown> => {
      const ref = typeof schema.$ref === 'string' ? schema.$ref : Array.isArray(schema.allOf) && schema.allOf.length === 1 ? (schema.allOf[0] as { $ref?: string }).$ref : undefined;
      if (ref === undefined) return schema;
      const target = definitions[ref.replace('#/components/schemas/', '')];
      return target === undefined ? {} : resolve(target);
    };
    return { schema: resolve(definitions[this.type.schemaName] ?? {}), resolve };
  }

  /** `configuration` merged into `obj` by the type's structure (a mutating admission policy's ApplyConfiguration). */
  mergeConfiguration(obj: KubeObject, configuration: unknown): KubeObject {
    return this.fieldManager.mergeConfiguration(obj, configuration);
  }

  async list(namespace: string, req: ListRequest = {}): Promise<ListPage> {
    if (this.type.load !== undefined) await this.type.load();
    return interpretUnreachable(this.groupResource, 'list', () => this.reads.list(namespace, req));
  }

  async watch(namespace: string, req: WatchRequest): Promise<CacheWatcher> {
    if (this.type.load !== undefined) await this.type.load();
    return interpretUnreachable(this.groupResource, 'list', () => this.reads.watch(namespace, req));
  }

  create(namespace: string, input: KubeObject, opts: WriteOptions = {}): Promise<KubeObject> {
    return interpretUnreachable(this.groupResource, 'create', () => this.createObject(namespace, input, opts));
  }

  /**
   * What a write runs must be there: the type's behaviour (a type loaded on first use) and
   * CEL when its strategy uses it (ResourceType.strategyUsesCel; reads need neither CEL nor
   * wait for it). Undefined, without a promise, when all is there (almost every write).
   */
  private writeReady(): Promise<unknown> | undefined {
    if (this.type.load !== undefined) return this.type.load().then(() => this.writeReady());
    if (this.type.strategyUsesCel === true && !celLoaded()) return loadCel();
    return undefined;
  }

  private async createObject(namespace: string, input: KubeObject, opts: WriteOptions): Promise<KubeObject> {
    const ready = this.writeReady();
    if (ready !== undefined) await ready;
    const obj = clone(input);
    this.checkTypeMeta(obj);
    this.checkNamespace(obj, namespace);
    this.decodeFields(obj, opts, (probe) => {
      this.prepareCreate(probe);
      return this.createCauses(probe);
    });
    this.auditDecodedBody('create', obj);
    const meta = obj.metadata;

    // The writer's fields are recorded before mutating admission, as upstream's handlers do:
    // what a plugin adds (a service account's token volume, a webhook's sidecar) is no one's.
    if (opts.fieldManager !== undefined && !opts.managedFieldsSet) {
      const pending = this.recordCreate(obj, opts.fieldManager);
      if (pending !== undefined) await pending;
    }
    const attrs = this.attributes('CREATE', namespace, obj, undefined, opts);
    await this.admit(attrs, obj);
    // What a webhook changed is decoded again: unknown fields it added dropped, defaults filled.
    if (attrs.mutated) {
      this.decodeFields(obj, {}, (probe) => {
        this.prepareCreate(probe);
        return this.createCauses(probe);
      });
    }
    // Upstream's storage fills in the uid, the creation time and a generated name, then runs
    // the strategy's preparation, after mutating admission: its plugins and webhooks see the
    // object as the client sent it (no name yet when it asked for one to be generated), and
    // validating admission sees it complete, by its generated name.
    const generated = this.prepareCreate(obj);
    attrs.name = meta.name!;
    const leading = this.admission.strategyCauses(attrs);
    this.validateCreate(obj, leading === undefined ? undefined : await leading);
    if (opts.authorizeCreate !== undefined) await opts.authorizeCreate();
    await this.admission.validate(attrs);
    this.completeGoValue(obj, true);
    if (opts.dryRun) {
      // A dry run fails as the real create would on a taken name (upstream's DryRunnableStorage.Create);
      // a resourceVersion set in the body is no error there, as upstream.
      if ((await this.backend.get(this.key(namespace, meta.name!))) !== undefined) throw alreadyExists(this.groupResource, meta.name!);
      // Upstream answers a dry run with what would be allocated, without reserving it.
      await this.allocator?.allocate(obj, { dryRun: true });
      return obj;
    }

    // Upstream's storage refuses it after validation and admission, so those errors come first.
    if (isResourceVersionSet(input.metadata?.resourceVersion)) throw unclassifiedError('resourceVersion should not be set on objects to be created');

    for (let attempt = 0; ; attempt++) {
      refuseLateWrite();
      const allocation = await this.allocator?.allocate(obj);
      let revision: number;
      const key = this.key(namespace, meta.name!);
      const value = this.encode(obj);
      this.offerWritten(value, obj);
      try {
        revision = await this.backend.create(key, value);
      } catch (err) {
        await allocation?.revert();
        if (!isStorageError(err, 'KeyExists')) throw err;
        // Upstream retries a generated name that happened to be taken.
        if (generated && attempt < 7) {
          meta.name = this.generatedName(meta.generateName!);
          continue;
        }
        throw generated ? generateNameConflict(this.groupResource, meta.name!, 1) : alreadyExists(this.groupResource, meta.name!);
      }
      await allocation?.commit();
      meta.resourceVersion = String(revision);
      this.rememberWritten(obj, key, value, revision);
      return obj;
    }
  }

  private generatedName(base: string): string {
    return this.type.strategy.generateName?.(base) ?? base + randomSuffix();
  }

  /** Server-set metadata of a new object, then the strategy's preparation; answers whether the name was generated. */
  private prepareCreate(obj: KubeObject): boolean {
    const meta = obj.metadata;
    const generated = (meta.name === undefined || meta.name === '') && meta.generateName !== undefined && meta.generateName !== '';
    if (generated) meta.name = this.generatedName(meta.generateName!);
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    delete meta.generation;
    meta.uid = randomUUID();
    meta.creationTimestamp = rfc3339Seconds();
    this.type.strategy.prepareForCreate?.(obj);
    return generated;
  }

  /**
   * PUT: replaces the object. A resourceVersion in the body is a precondition (409 when
   * stale); without one the write is unconditional, as upstream allows for built-in types.
   */
  update(namespace: string, name: string, input: KubeObject, opts: WriteOptions = {}): Promise<UpdateResult> {
    return interpretUnreachable(this.groupResource, 'update', () => this.updateObject(namespace, name, input, opts));
  }

  private async updateObject(namespace: string, name: string, input: KubeObject, opts: WriteOptions): Promise<UpdateResult> {
    const ready = this.writeReady();
    if (ready !== undefined) await ready;
    const obj = clone(input);
    this.checkTypeMeta(obj);
    this.checkNamespace(obj, namespace);
    if (obj.metadata.name !== undefined && obj.metadata.name !== '' && obj.metadata.name !== name) {
      throw badRequest(`the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`);
    }
    obj.metadata.name = name;
    const expected = obj.metadata.resourceVersion;
    return this.guaranteedUpdate(namespace, name, expected, opts, () => obj, { mutateArgument: 'reads', uidPrecondition: true, resourceVersionFromBody: true });
  }

  /**
   * Read-modify-write with optimistic concurrency: `mutate` gets the stored object and
   * returns the desired one. Retried on concurrent change unless the caller pinned a
   * resourceVersion. A missing object is created when the type allows it.
   *
   * Each attempt: read the stored object → check the pinned resourceVersion → build the
   * desired object (mutate, decode, uid precondition) → managed fields → mutating
   * admission → server-set metadata and the strategy's preparation → validation and
   * validating admission → then delete it (last finalizer gone), skip the write (no-op),
   * or write it at the revision read; a concurrent write in between starts a new attempt.
   */
  guaranteedUpdate(
    namespace: string,
    name: string,
    expectedResourceVersion: string | undefined,
    opts: WriteOptions,
    mutate: (current: KubeObject | undefined) => KubeObject,
    how: UpdateHow = {},
  ): Promise<UpdateResult> {
    return interpretUnreachable(this.groupResource, 'update', () => this.updateStored(namespace, name, expectedResourceVersion, opts, mutate, how));
  }

  private async updateStored(
    namespace: string,
    name: string,
    expectedResourceVersion: string | undefined,
    opts: WriteOptions,
    mutate: (current: KubeObject | undefined) => KubeObject,
    { createIfMissing, subresource = '', admissionView, mutateArgument = 'changes', uidPrecondition = false, resourceVersionFromBody = false }: UpdateHow,
  ): Promise<UpdateResult> {
    const ready = this.writeReady();
    if (ready !== undefined) await ready;
    createIfMissing ??= this.type.allowCreateOnUpdate;
    const pinned = expectedResourceVersion !== undefined && expectedResourceVersion !== '';
    const rules = this.updateRules(subresource);
    const key = this.key(namespace, name);
    // The first attempt starts from the watch cache's copy, as upstream's cacher hands its
    // object to GuaranteedUpdate: no storage read. The copy may be behind the storage:
    // what it alone would decide (a resourceVersion that differs, nothing to write, an
    // error) stands only when the stored revision is still the copy's, else the next
    // attempt starts from the storage, as it does after a write refused for its revision.
    // A dry run reads the storage: nothing would catch a stale copy, since it writes nothing.
    let fromCache = opts.dryRun !== true;
    let conversions: Map<string, KubeObject | Error> | undefined;
    // The object an attempt that waited for conversions goes on from.
    let again: UpdateBase | undefined;
    for (let attempt = 0; ; attempt++) {
      // A pinned resourceVersion makes a concurrent change the client's conflict (409), not a retry.
      const mayRetry = !pinned && attempt < maxRetries;
      const base = again ?? (fromCache ? this.cachedBase(key) : undefined) ?? await this.storedBase(key);
      again = undefined;
      fromCache = false;
      if (base === undefined) {
        if (!createIfMissing || pinned || subresource !== '') throw notFound(this.groupResource, name);
        const result = await this.createMissing(namespace, name, opts, mutate, mayRetry);
        if (result === retry) continue;
        return result;
      }
      const current = base.current;
      // Types like leases refuse a PUT without a resourceVersion of an existing object.
      if (resourceVersionFromBody && !pinned && this.type.allowUnconditionalUpdate === false) {
        throw invalid(this.type.resource, name, [{ reason: 'FieldValueInvalid', field: 'metadata.resourceVersion', message: 'Invalid value: 0x0: must be specified for an update' }], this.type.group);
      }
      if (pinned && expectedResourceVersion !== current.metadata.resourceVersion) {
        if (await this.movedPast(base)) continue;
        throw staleObject(this.groupResource, name);
      }
      let obj: KubeObject;
      try {
        this.conversions = conversions;
        try {
          obj = this.desiredUpdate(base, mutate, opts, mutateArgument, subresource, uidPrecondition);
          if (opts.fieldManager !== undefined && !opts.managedFieldsSet) this.fieldManager.recordUpdate(current, obj, opts.fieldManager, subresource);
        } finally {
          this.conversions = undefined;
        }
        const attrs = this.updateAttributes(namespace, obj, current, opts, subresource, admissionView);
        if (opts.withoutAdmission !== true) await this.admitUpdate(attrs, obj, current, admissionView);
        // Upstream's BeforeUpdate, after the mutating phase: plugins and webhooks see the
        // object as the client sent it (decoded, defaulted), validation sees it prepared.
        this.preserveSystemMeta(obj, current, subresource);
        rules.prepare(obj, current);
        const leading = this.admission.strategyCauses(attrs);
        rules.validate(obj, current, leading === undefined ? undefined : await leading);
        if (admissionView !== undefined) attrs.object = admissionView.toView(obj);
        if (opts.withoutAdmission !== true) await this.admission.validate(attrs);
        this.completeGoValue(obj, true);
      } catch (err) {
        // Managed fields that wait for a webhook's conversion: made, then the attempt again.
        if (err instanceof ConversionPending) {
          if ((conversions?.size ?? 0) >= maxPendingConversions) throw internalError(`more than ${maxPendingConversions} conversions for the managed fields of one write`);
          conversions ??= new Map();
          await this.convertPending(err, conversions);
          again = base;
          attempt--;
          continue;
        }
        // Refused on a copy the storage has moved past (a uid, an immutable field, an
        // apply's conflict): decided again on the stored object, as upstream's etcd store does.
        if (await this.movedPast(base)) continue;
        throw err;
      }

      if (this.finalizersDone(obj, current)) {
        const deleted = await this.deleteFinalized(base, obj, opts, mayRetry);
        if (deleted === retry) continue;
        return deleted;
      }
      // A write that changes nothing is not written: the resourceVersion stays (upstream).
      // Compared as values: the same content may arrive with its keys in another order.
      // Unless the stored value is stale (read through an encryption key that no longer
      // writes): then it is written again, as upstream's GuaranteedUpdate, so that
      // `kubectl get … -o json | kubectl replace -f -` moves objects to the current key.
      if (sameContent(obj, current)) {
        const stored = base.cached ? await this.backend.get(base.key) : undefined;
        if (base.cached && stored?.modRevision !== base.revision) continue;
        if ((stored ?? base).stale !== true) return { object: current, created: false };
      }
      const written = await this.writeUpdate(base, obj, opts, mayRetry);
      if (written !== retry) return written;
    }
  }

  /** Whether `base` is the cache's copy and the storage has moved past it (or no longer holds the key). */
  private async movedPast(base: UpdateBase): Promise<boolean> {
    return base.cached && (await this.backend.get(base.key))?.modRevision !== base.revision;
  }

  /** An update's starting point from the watch cache, when it holds the key. */
  private cachedBase(key: string): UpdateBase | undefined {
    const cached = this.reads.cachedState(key);
    if (cached === undefined) return undefined;
    return {
      key, revision: cached.revision, current: cached.object, cached: true,
      copy: () => freshCopy(cached),
    };
  }

  /** An update's starting point read from the storage; undefined when the key is not stored. */
  private async storedBase(key: string): Promise<UpdateBase | undefined> {
    const kv = await this.backend.get(key);
    if (kv === undefined) return undefined;
    // The cache's copy when it holds this revision (read-only), else decoded.
    const current = this.reads.cachedAt(kv.key, kv.modRevision) ?? this.decode(kv);
    return { key, revision: kv.modRevision, current, cached: false, copy: () => this.decode(kv), ...(kv.stale === true ? { stale: true as const } : {}) };
  }

  /** Create-on-update of a missing object, by the create rules; `retry` when someone else created it meanwhile. */
  private async createMissing(
    namespace: string, name: string, opts: WriteOptions, mutate: (current: KubeObject | undefined) => KubeObject, mayRetry: boolean,
  ): Promise<UpdateResult | typeof retry> {
    const desired = mutate(undefined);
    desired.metadata.name = name;
    // Created through an update, as upstream's storage prepares it: a resourceVersion given is dropped.
    delete desired.metadata.resourceVersion;
    try {
      return { object: await this.create(namespace, desired, opts), created: true };
    } catch (err) {
      if (isStatusError(err) && err.reason === 'AlreadyExists' && mayRetry) return retry;
      throw err;
    }
  }

  /**
   * What `mutate` makes of the stored object, decoded as a request body is, with the uid
   * checked as a precondition. The metadata only the server sets is taken from `current`
   * later, after the mutating phase (preserveSystemMeta).
   */
  private desiredUpdate(
    base: UpdateBase, mutate: (current: KubeObject | undefined) => KubeObject, opts: WriteOptions, how: MutateArgument, subresource: string, uidPrecondition: boolean,
  ): KubeObject {
    const current = base.current;
    // mutate gets its own copy (decoded again: cheaper than cloning) and may return it or a new
    // object; one that only reads its argument gets `current` itself. Its result is cloned,
    // unless it is a copy of its own.
    const obj = how === 'copies' ? mutate(current) : cloneSharingFieldsV1(mutate(how === 'reads' ? current : base.copy()));
    // A patched object, not a body: what its patch left of apiVersion and kind defaults to the URL's.
    this.checkTypeMeta(obj, false);
    this.decodeFields(obj, opts, (probe) => this.preparedUpdateCauses(probe, current, subresource));
    // An update of the request's body (its uid a precondition), not a patch's result.
    if (uidPrecondition) this.auditDecodedBody('update', obj);
    // A uid in an update's body is a precondition, as upstream's Update.
    const uid = obj.metadata.uid;
    if (uidPrecondition && uid !== undefined && uid !== '' && uid !== current.metadata.uid) {
      throw conflict(this.groupResource, current.metadata.name ?? '', `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata.uid}`);
    }
    return obj;
  }

  /** How a write through `subresource` ('' for the main resource) is prepared and validated. */
  private updateRules(subresource: string): UpdateRules {
    // A write through the scale subresource changes the object by the main resource's rules (upstream's ScaleREST).
    if (subresource === '' || subresource === 'scale') {
      return {
        prepare: (obj, current) => this.type.strategy.prepareForUpdate?.(obj, current),
        validate: (obj, current, leading) => this.validateUpdate(obj, current, leading),
      };
    }
    const strategy = this.type.strategy.subresources?.[subresource];
    return {
      prepare: strategy?.prepareForUpdate !== undefined ? (obj, current) => strategy.prepareForUpdate!(obj, current) : keepAllButStatus,
      validate: (obj, current, leading) => {
        this.throwIfInvalid(obj, this.subresourceValidationCauses(subresource, obj, current), leading);
        warn(strategy?.warningsOnUpdate?.(obj, current));
        this.type.strategy.canonicalize?.(obj);
      },
    };
  }

  /** Admission's view of an update; through `admissionView` when the subresource's body is another kind. */
  private updateAttributes(
    namespace: string, obj: KubeObject, current: KubeObject, opts: WriteOptions, subresource: string, admissionView: AdmissionView | undefined,
  ): AdmissionAttributes {
    const attrs: AdmissionAttributes = { ...this.attributes('UPDATE', namespace, obj, current, opts), subresource };
    if (admissionView !== undefined) {
      Object.assign(attrs, { kind: admissionView.kind, kindGroupVersion: admissionView.groupVersion, object: admissionView.toView(obj), oldObject: admissionView.toView(current) });
    }
    return attrs;
  }

  /** Mutating admission of `obj`, its managed fields kept readable. */
  private async admit(attrs: AdmissionAttributes, obj: KubeObject): Promise<void> {
    const managedFields = obj.metadata.managedFields;
    await this.admission.admit(attrs);
    this.fieldManager.keepReadableAfterAdmission(obj, managedFields);
  }

  /** Mutating admission; what a webhook changed is decoded (unknown fields dropped, defaults filled) again, as on create. */
  private async admitUpdate(attrs: AdmissionAttributes, obj: KubeObject, current: KubeObject, admissionView: AdmissionView | undefined): Promise<void> {
    await this.admit(attrs, obj);
    if (admissionView !== undefined) admissionView.fromView(attrs.object!, obj);
    if (attrs.mutated) this.decodeFields(obj, {}, (probe) => this.preparedUpdateCauses(probe, current, attrs.subresource));
  }

  /**
   * A deleting object that nothing holds any more: the update deletes it (upstream's
   * shouldDeleteDuringUpdate): the stored object is being deleted with no grace left (none
   * recorded counts as none), and nothing holds the new one; not while a grace period runs
   * (a pod's kubelet reports status until it deletes the pod itself).
   */
  private finalizersDone(obj: KubeObject, current: KubeObject): boolean {
    const pending = (o: KubeObject) => (o.metadata.finalizers ?? []).length > 0 || (this.type.strategy.deletionPending?.(o) ?? false);
    const grace = current.metadata.deletionGracePeriodSeconds;
    return current.metadata.deletionTimestamp !== undefined && (grace === undefined || grace === 0) && !pending(obj);
  }

  /** Deletes the finalized object at the revision read (nothing on dry run); `retry` when another write came first. */
  private async deleteFinalized(base: UpdateBase, obj: KubeObject, opts: WriteOptions, mayRetry: boolean): Promise<UpdateResult | typeof retry> {
    if (opts.dryRun) return { object: obj, created: false };
    const current = base.current;
    refuseLateWrite();
    try {
      await this.backend.delete(base.key, base.revision);
    } catch (err) {
      // Gone meanwhile: the next read answers for it (404, as upstream's retried update).
      if (isStorageError(err, 'KeyNotFound')) return retry;
      if (isStorageError(err, 'RevisionMismatch') && mayRetry) return retry;
      if (isStorageError(err, 'RevisionMismatch')) throw staleObject(this.groupResource, current.metadata.name ?? '');
      throw err;
    }
    await this.allocator?.release(current);
    return { object: obj, created: false };
  }

  /** Stores the update at the revision it was read at (nothing on dry run); `retry` when another write came first. */
  private async writeUpdate(base: UpdateBase, obj: KubeObject, opts: WriteOptions, mayRetry: boolean, encoded?: Uint8Array): Promise<UpdateResult | typeof retry> {
    const current = base.current;
    if (opts.dryRun) {
      // What upstream's dry run answers: the updated object at the stored version, with what
      // the update would allocate filled in (a new node port), nothing taken.
      await this.allocator?.reallocate(obj, current, { dryRun: true });
      obj.metadata.resourceVersion = current.metadata.resourceVersion;
      return { object: obj, created: false };
    }
    refuseLateWrite();
    // Encoded after reallocation: what it assigns (a new node port) is part of the stored object.
    const allocation = await this.allocator?.reallocate(obj, current);
    let revision: number;
    // Bytes the worker encoded count as encoded here: the watch cache takes the object offered for them.
    if (encoded !== undefined) markEncodedHere(encoded);
    const value = encoded ?? this.encode(obj);
    this.offerWritten(value, obj);
    try {
      revision = await this.backend.update(base.key, value, base.revision);
    } catch (err) {
      await allocation?.revert();
      // Gone meanwhile: the next read answers for it (404, or a create where the type allows
      // one), as upstream's retried update; a pinned resourceVersion makes it no create.
      if (isStorageError(err, 'KeyNotFound')) return retry;
      if (isStorageError(err, 'RevisionMismatch')) {
        if (mayRetry) return retry;
        throw staleObject(this.groupResource, current.metadata.name ?? '');
      }
      throw err;
    }
    await allocation?.commit();
    obj.metadata.resourceVersion = String(revision);
    this.rememberWritten(obj, base.key, value, revision);
    return { object: obj, created: false };
  }

  /** Offers the object to the watch cache ahead of its write (codec offerWritten), when its stored bytes are it as served. */
  private offerWritten(value: Uint8Array, obj: KubeObject): void {
    if (this.type.storage === undefined) offerWritten(value, obj);
  }

  /**
   * When the stored bytes are the object as served (no storage version): the answer's JSON
   * may come from them, and the watch cache may take the object as the decoded form of the
   * state, rather than decode the bytes when the next write or reader needs it. The object
   * is then frozen: it must not change after this.
   */
  private rememberWritten(obj: KubeObject, key: string, value: Uint8Array, revision: number): void {
    if (this.type.storage !== undefined) return;
    rememberWritten(obj, value, revision);
    this.reads.adoptWritten(key, revision, obj);
  }

  /**
   * Server-side apply: merges the configuration into the live object with field
   * ownership (conflicts are 409 unless forced) and creates the object when it is absent,
   * whatever the type's create-on-update rule, as upstream. `workerAsked`: the caller
   * asked appliesOnWorker itself (and tried the worker when it said yes).
   */
  async apply(namespace: string, name: string, applied: unknown, opts: WriteOptions & { fieldManager: string; force: boolean; workerAsked?: boolean }, subresource = ''): Promise<UpdateResult> {
    if (opts.workerAsked !== true && this.appliesOnWorker(subresource, opts.dryRun === true)) {
      const configuration = { value: applied, duplicateFields: [...(opts.fieldValidation?.duplicateFields ?? [])] };
      const done = await interpretUnreachable(this.groupResource, 'update', () => this.applyOffloaded(namespace, name, configuration, opts));
      if (done !== undefined) return done;
    }
    return this.guaranteedUpdate(namespace, name, undefined, { ...opts, managedFieldsSet: true },
      (current) => {
        const obj = this.fieldManager.apply(current, applied, opts.fieldManager, opts.force, subresource);
        // Upstream's patcher: an apply that would create its object may not name a uid.
        const uid = obj.metadata.uid;
        if (current === undefined && uid !== undefined && uid !== '') {
          throw conflict(this.groupResource, name, `uid mismatch: the provided object specified uid ${uid}, and no existing object was found`);
        }
        return obj;
      },
      { createIfMissing: subresource === '', subresource, mutateArgument: 'reads' });
  }

  /**
   * Whether an apply goes to the worker thread now (see applyOffloaded), counting it
   * towards starting the worker as each apply it could take does.
   */
  appliesOnWorker(subresource: string, dryRun: boolean): boolean {
    return subresource === '' && !dryRun && this.applyOffload?.accepts(`${this.type.group}/${this.type.resource}`) === true;
  }

  /**
   * Server-side apply of a configuration still in its request body's bytes, run on the
   * worker thread, which decodes and checks it as the PATCH handler would (the main
   * thread then neither decodes it nor copies the decoded configuration to the worker:
   * ~80 µs of a 3.5 KB Deployment's apply). Undefined when the worker did not finish it
   * (the body does not decode, names another object, fails, changes nothing): the caller
   * then decodes the body and applies (`workerAsked`: without asking the worker again), so
   * errors come from one place. For when appliesOnWorker said yes.
   */
  async applyBodyOnWorker(namespace: string, name: string, body: Uint8Array, opts: WriteOptions & { fieldManager: string; force: boolean }): Promise<UpdateResult | undefined> {
    // Its own bytes: a view into a larger buffer would copy all of that to the worker.
    const configuration = { body: new Uint8Array(body) };
    return interpretUnreachable(this.groupResource, 'update', () => this.applyOffloaded(namespace, name, configuration, opts));
  }

  /**
   * An apply of the watch cache's copy run on the worker thread, which answers the bytes
   * the main thread's first attempt would store: merged, with managed fields, prepared,
   * validated, completed. What needs this thread follows as in guaranteedUpdate: admission,
   * then the write at the revision read. The written object is decoded here only when
   * someone needs it: an admission plugin that reads it (what one changes is prepared and
   * validated here, and stored as this thread encodes it), or an answer in another form
   * than the stored JSON. Undefined when the worker did not finish it (no cached copy, an
   * error, nothing to change), when a webhook or admission policy would see the object
   * (it must see it before the preparation the worker does), or a write came first: the
   * caller applies from the start.
   */
  private async applyOffloaded(namespace: string, name: string, configuration: OffloadedConfiguration, opts: WriteOptions & { fieldManager: string; force: boolean }): Promise<UpdateResult | undefined> {
    const ready = this.writeReady();
    if (ready !== undefined) await ready;
    const key = this.key(namespace, name);
    const cached = this.reads.cachedState(key);
    if (cached === undefined) return undefined;
    const attrs = this.attributes('UPDATE', namespace, undefined, undefined, opts);
    attrs.name = name;
    // The worker prepares what it merges; a webhook or policy sees it before (upstream's order).
    if (this.admission.observedMutating(attrs)) return undefined;
    const revision = cached.revision;
    const request = {
      resource: `${this.type.group}/${this.type.resource}`, namespace, name, configuration,
      fieldManager: opts.fieldManager, force: opts.force,
      directive: opts.fieldValidation?.directive ?? 'Ignore',
      user: currentRequest()?.user ?? { name: '', uid: '', groups: [] },
      allowPrivileged: privilegedContainersAllowed(),
    };
    // The object's bytes (19 KB for a 10-container Deployment) go to the worker only when it may not have the object.
    const fromAnswer = this.applyOffload!.answerAt(key, revision);
    const withBytes = () => this.applyOffload!.apply({ ...request, current: { key, value: cached.json, createRevision: 0, modRevision: revision }, fromAnswer: undefined });
    let answer = fromAnswer === undefined
      ? await withBytes()
      : await this.applyOffload!.apply({ ...request, current: { key, createRevision: 0, modRevision: revision }, fromAnswer });
    if (answer?.done === false && answer.missing === true) answer = await withBytes();
    if (answer?.done !== true) return undefined;
    for (const warning of answer.warnings) addWarning(warning);
    const base: UpdateBase = { key, revision, get current() { return cached.object; }, cached: true, copy: () => freshCopy(cached) };
    let obj: KubeObject | undefined;
    let managedFields: unknown;
    const written = (): KubeObject => {
      if (obj === undefined) {
        obj = this.decode({ key, value: answer.written, createRevision: 0, modRevision: revision });
        managedFields = obj.metadata.managedFields;
      }
      return obj;
    };
    Object.defineProperties(attrs, {
      // A plugin that replaces the object: the managed fields it had are kept to compare with.
      object: { get: written, set: (value: KubeObject) => { written(); obj = value; }, enumerable: true, configurable: true },
      oldObject: { get: () => cached.object, enumerable: true, configurable: true },
    });
    try {
      await this.admission.admit(attrs);
      const rules = this.updateRules('');
      if (obj !== undefined) {
        this.fieldManager.keepReadableAfterAdmission(obj, managedFields as KubeObject['metadata']['managedFields']);
        if (attrs.mutated) {
          this.decodeFields(obj, {}, (probe) => this.updateCauses(probe, base.current));
          rules.prepare(obj, base.current);
          rules.validate(obj, base.current);
        }
      }
      // The worker validated what it merged; checks that need this thread's clients lead its causes.
      const leading = this.admission.strategyCauses(attrs);
      const causes = leading === undefined ? [] : await leading;
      if (causes.length > 0) rules.validate(written(), base.current, causes);
      await this.admission.validate(attrs);
      if (obj !== undefined) {
        if (attrs.mutated) {
          this.completeGoValue(obj, true);
          if (sameContent(obj, base.current)) return (await this.movedPast(base)) ? undefined : { object: base.current, created: false };
        }
        const stored = attrs.mutated === true ? undefined : answer.written;
        const done = await this.writeUpdate(base, obj, opts, true, stored);
        if (done === retry) return undefined;
        if (stored !== undefined) this.applyOffload!.stored(key, answer.id, Number(done.object.metadata.resourceVersion));
        return done;
      }
    } catch (err) {
      if (await this.movedPast(base)) return undefined;
      throw err;
    }
    // Nobody read the object: the worker's bytes are stored, and the answer is made from them.
    markEncodedHere(answer.written);
    if (answer.metadataView !== undefined) offerWrittenView(answer.written, answer.metadataView);
    let stored: number;
    refuseLateWrite();
    try {
      stored = await this.backend.update(key, answer.written, revision);
    } catch (err) {
      if (isStorageError(err, 'KeyNotFound') || isStorageError(err, 'RevisionMismatch')) return undefined;
      throw err;
    }
    this.applyOffload!.stored(key, answer.id, stored);
    const value = answer.written;
    const decode = () => this.decode({ key, value, createRevision: 0, modRevision: stored });
    let object: KubeObject | undefined;
    return {
      created: false,
      stored: { value, revision: stored },
      get object() {
        return object ??= decode();
      },
    };
  }

  /**
   * DELETE, as upstream's generic store: the preconditions; graceful deletion for the types
   * that have it (pods: deletionTimestamp in the future, until a delete with grace 0);
   * the garbage-collection finalizers the propagation policy asks for (`orphan`,
   * `foregroundDeletion`); an object that finalizers keep is marked as deleting and
   * answered, any other is deleted.
   */
  delete(namespace: string, name: string, opts: DeleteOptions = {}): Promise<DeleteResult> {
    return interpretUnreachable(this.groupResource, 'delete', () => this.deleteObject(namespace, name, opts));
  }

  private async deleteObject(namespace: string, name: string, opts: DeleteOptions): Promise<DeleteResult> {
    const ready = this.writeReady();
    if (ready !== undefined) await ready;
    const strategy = this.type.strategy;
    if (strategy.orphanByDefaultWarning !== undefined && opts.propagationPolicy === undefined && opts.orphanDependents === undefined) {
      addWarning(strategy.orphanByDefaultWarning);
    }
    let preconditions = opts.preconditions;
    for (let attempt = 0; ; attempt++) {
      const mayRetry = attempt < maxRetries;
      const kv = await this.backend.get(this.key(namespace, name));
      if (kv === undefined) throw notFound(this.groupResource, name);
      // The cache's copy when it holds this revision (read-only: what changes is `marked`), else decoded.
      const current = this.reads.cachedAt(kv.key, kv.modRevision) ?? this.decode(kv);
      const now = Date.now();
      const marked = clone(current);
      const decision = beforeDelete(this.type, marked, { gracePeriodSeconds: opts.gracePeriodSeconds, preconditions }, now);
      // Already going, no sooner than asked: finalizers cannot change any more either.
      if (decision.pending) return { object: current, deleted: false };
      if (strategy.answersPendingDelete === true && current.metadata.deletionTimestamp !== undefined && strategy.deletionPending?.(current) === true) {
        return { object: current, deleted: false };
      }
      // Upstream runs both admission phases on DELETE; mutating plugins see no object to change.
      if (opts.withoutAdmission !== true) {
        const attrs = this.attributes('DELETE', namespace, undefined, current, opts);
        await this.admission.admit(attrs);
        await this.admission.validate(attrs);
      }

      const finalizers = deletionFinalizers(this.type, marked, opts);
      const finalizersChange = !sameSet(marked.metadata.finalizers ?? [], finalizers);
      if (finalizersChange) {
        if (finalizers.length > 0) marked.metadata.finalizers = finalizers;
        else delete marked.metadata.finalizers;
      }
      const kept = (marked.metadata.finalizers ?? []).length > 0 || (strategy.deletionPending?.(marked) ?? false);
      let toDelete = { kv, object: current };
      if (decision.graceful || kept) {
        if (!decision.graceful) {
          const firstMark = marked.metadata.deletionTimestamp === undefined;
          if (firstMark && strategy.ownDelete === true) marked.metadata.deletionTimestamp = timestamp(now);
          else markAsDeleting(marked, now);
          if (firstMark) strategy.markDeleting?.(marked);
        }
        const written = await this.writeDeleting(kv, current, marked, opts, mayRetry);
        if (written === retry) continue;
        if (kept || (decision.gracePeriodSeconds ?? 0) > 0) return { object: written.object, deleted: false };
        // Graceful with no grace left: delete what was just written.
        if (opts.dryRun) return { object: written.object, deleted: true };
        if (preconditions?.resourceVersion !== undefined && preconditions.resourceVersion !== null) {
          preconditions = { ...preconditions, resourceVersion: written.object.metadata.resourceVersion };
        }
        toDelete = written;
      }
      if (opts.dryRun) return { object: current, deleted: true };
      refuseLateWrite();
      try {
        await this.backend.delete(toDelete.kv.key, toDelete.kv.modRevision);
      } catch (err) {
        // Someone else deleted what this delete marked for deletion now: deleted all the same (upstream's ignoreNotFound).
        if (isStorageError(err, 'KeyNotFound') && toDelete.object !== current) return { object: toDelete.object, deleted: true };
        if ((isStorageError(err, 'RevisionMismatch') || isStorageError(err, 'KeyNotFound')) && mayRetry) continue;
        throw err;
      }
      await this.allocator?.release(current);
      return { object: toDelete.object, deleted: true };
    }
  }

  /**
   * Writes an object marked for deletion at the revision it was read (nothing when it did
   * not change, or on dry run); `retry` when another write came first.
   */
  private async writeDeleting(
    kv: KeyValue, current: KubeObject, marked: KubeObject, opts: DeleteOptions, mayRetry: boolean,
  ): Promise<{ kv: KeyValue; object: KubeObject } | typeof retry> {
    if (sameContent(marked, current)) return { kv, object: current };
    if (opts.dryRun) return { kv, object: marked };
    refuseLateWrite();
    const value = this.encode(marked);
    try {
      const revision = await this.backend.update(kv.key, value, kv.modRevision);
      marked.metadata.resourceVersion = String(revision);
      return { kv: { ...kv, value, modRevision: revision }, object: marked };
    } catch (err) {
      if ((isStorageError(err, 'RevisionMismatch') || isStorageError(err, 'KeyNotFound')) && mayRetry) return retry;
      if (isStorageError(err, 'KeyNotFound')) throw notFound(this.groupResource, current.metadata.name ?? '');
      if (isStorageError(err, 'RevisionMismatch')) throw staleObject(this.groupResource, current.metadata.name ?? '');
      throw err;
    }
  }

  /**
   * DELETE with ignoreStoreReadErrorWithClusterBreakingPotential (upstream's corruptObjectDeleter):
   * only for an object whose stored value cannot be read (else 422); a normal delete is tried
   * first, and when it fails on the corrupt value the key is removed as it is, without
   * finalizers, preconditions or admission. `object` is undefined when removed so.
   */
  deleteCorrupt(namespace: string, name: string, opts: DeleteOptions = {}): Promise<{ object: KubeObject | undefined; deleted: boolean }> {
    return interpretUnreachable(this.groupResource, 'delete', () => this.deleteCorruptObject(namespace, name, opts));
  }

  private async deleteCorruptObject(namespace: string, name: string, opts: DeleteOptions): Promise<{ object: KubeObject | undefined; deleted: boolean }> {
    const key = this.key(namespace, name);
    const kv = await this.backend.get(key);
    let corrupt = false;
    if (kv !== undefined) {
      try {
        this.decode(kv);
      } catch (err) {
        corrupt = isCorruptObjectError(err);
      }
    }
    if (!corrupt) {
      throw invalid(this.type.resource, name, [{
        reason: 'FieldValueInvalid', field: 'ignoreStoreReadErrorWithClusterBreakingPotential',
        message: 'Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option',
      }], this.type.group);
    }
    try {
      return await this.delete(namespace, name, opts);
    } catch (err) {
      if (!isCorruptObjectError(err)) throw err;
    }
    try {
      await this.backend.delete(key);
      return { object: undefined, deleted: true };
    } catch (err) {
      if (isStorageError(err, 'KeyNotFound')) return { object: undefined, deleted: false };
      throw err;
    }
  }

  /**
   * Deletes what a list selects, as upstream's registry: the list is read in pages of
   * `deleteCollectionPageSize` and each page's objects deleted before the next is read.
   * A request with a limit deletes one page and answers it with its continue token; one
   * without answers every object it listed (before its deletion), under the first page's
   * metadata. Each delete has the request's options, preconditions too (a uid or
   * resourceVersion that does not hold refuses the first object it does not hold for, 409).
   * NotFound (deleted meanwhile) is skipped; another failure ends it.
   */
  async deleteCollection(namespace: string, req: ListRequest = {}, opts: DeleteOptions = {}): Promise<KubeList> {
    const ready = this.writeReady();
    if (ready !== undefined) await ready;
    const hasLimit = req.limit !== undefined && req.limit > 0;
    let page: ListRequest = req.limit === undefined || req.limit === 0 ? { ...req, limit: deleteCollectionPageSize } : req;
    let first: ListPage | undefined;
    const items: KubeObject[] = [];
    for (;;) {
      const list = await this.list(namespace, page);
      for (const { object } of list.items) {
        items.push(object);
        try {
          await this.delete(object.metadata.namespace ?? '', object.metadata.name!, opts);
        } catch (err) {
          if (isStatusError(err) && err.reason === 'NotFound') continue;
          throw err;
        }
      }
      if (hasLimit) return { kind: list.kind, apiVersion: list.apiVersion, metadata: list.metadata, items };
      first ??= list;
      const cont = list.metadata.continue;
      if (cont === undefined || cont === '') return { kind: first.kind, apiVersion: first.apiVersion, metadata: first.metadata, items };
      page = { filter: req.filter, limit: page.limit, continue: cont };
    }
  }

  /** The Success Status most types answer a DELETE with. */
  deletedStatus(obj: KubeObject): Status {
    const details: Status['details'] = { name: obj.metadata.name ?? '' };
    if (this.type.group !== '') details.group = this.type.group;
    details.kind = this.type.resource;
    details.uid = obj.metadata.uid ?? '';
    // No code: upstream's registry leaves it unset on this Status.
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details } as Status;
  }

  /** All stored objects of this type (startup restores, controllers). */
  async listAll(): Promise<KubeObject[]> {
    return (await this.list('')).items.map((item) => item.object);
  }

  /** A stored value as the API shows it (also the watch cache's decoder). */
  decode(kv: KeyValue): KubeObject {
    const stored = decodeFromStorage(kv);
    const conversion = this.type.storage;
    if (conversion === undefined) {
      stored.apiVersion ??= this.apiVersion;
      stored.kind ??= this.type.kind;
      return stored;
    }
    const { apiVersion: _a, kind: _k, metadata, ...rest } = conversion.fromStorage(stored);
    return { kind: this.type.kind, apiVersion: this.apiVersion, metadata: { ...metadata, resourceVersion: stored.metadata.resourceVersion }, ...rest };
  }

  /**
   * `obj` as `source` (the Store of an equivalent resource: another version of this one, or
   * one stored with it) serves it, as this Store serves it: through the stored form. What
   * an admission webhook matched through an equivalent resource is sent (a new object).
   */
  async convertFrom(obj: KubeObject, source: Store): Promise<KubeObject> {
    return this.convertThroughStorage(obj, source);
  }

  /**
   * A create's managed fields, recorded at once; a promise only when they wait for a
   * webhook's conversion (managed fields sent with the object, of another version).
   */
  private recordCreate(obj: KubeObject, manager: string): Promise<void> | undefined {
    try {
      this.fieldManager.recordUpdate(undefined, obj, manager);
      return undefined;
    } catch (err) {
      if (!(err instanceof ConversionPending)) throw err;
      return (async () => {
        const conversions = new Map<string, KubeObject | Error>();
        // A pending conversion throws before the managed fields are set: each try starts from the object as sent.
        for (let pending = err; conversions.size < maxPendingConversions;) {
          await this.convertPending(pending, conversions);
          this.conversions = conversions;
          try {
            this.fieldManager.recordUpdate(undefined, obj, manager);
            return;
          } catch (again) {
            if (!(again instanceof ConversionPending)) throw again;
            pending = again;
          } finally {
            this.conversions = undefined;
          }
        }
        throw internalError(`more than ${maxPendingConversions} conversions for the managed fields of one write`);
      })();
    }
  }

  /** Makes the conversion a write's managed fields wait for (by the CRD's webhook), keeping it, or the error met, for the write's next attempt. */
  private async convertPending(pending: ConversionPending, conversions: Map<string, KubeObject | Error>): Promise<void> {
    const key = conversionKey(pending.obj, pending.to);
    try {
      conversions.set(key, await this.storeAt(pending.to)!.convertFrom(pending.obj as KubeObject, this.storeAt(pending.from)!));
    } catch (err) {
      conversions.set(key, err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Whether convertFrom converts without waiting (no CRD conversion webhook to call). */
  convertsAtOnce(): boolean {
    return true;
  }

  /** convertFrom by the types' storage conversions alone (a CRD's webhook is not called: its versions then differ only in apiVersion). */
  convertThroughStorage(obj: KubeObject, source: Store): KubeObject {
    const stored = source.type.storage === undefined ? obj : source.type.storage.toStorage(obj);
    const own = this.type.storage === undefined ? stored : this.type.storage.fromStorage(stored);
    const { apiVersion: _a, kind: _k, ...rest } = own;
    return { kind: this.type.kind, apiVersion: this.apiVersion, ...rest } as KubeObject;
  }

  /**
   * The versions this Store's objects are served at, for the managed fields of managers
   * that wrote through another one (upstream's field manager converts through its scheme,
   * or for a CRD through its converter). A conversion by a CRD's webhook is made outside
   * the field manager, which runs without waiting: asked for, it is pending until the
   * write has made it (`conversions`).
   */
  private servedVersions(): Versions {
    const storeAt = (apiVersion: string): Store | undefined => this.storeAt(apiVersion);
    return {
      has: (apiVersion) => storeAt(apiVersion) !== undefined,
      convert: (obj, from, to) => {
        // The empty object a create starts from is one of the kind with nothing set, as upstream's.
        const o = obj as KubeObject;
        const source = storeAt(from)!;
        const input = isObject(o.metadata) ? o : { apiVersion: from, kind: source.type.kind, ...o, metadata: {} } as KubeObject;
        const target = storeAt(to)!;
        if (target.convertsAtOnce()) return target.convertThroughStorage(input, source);
        const made = this.conversions?.get(conversionKey(input, to));
        if (made === undefined) throw new ConversionPending(input, from, to);
        if (made instanceof Error) throw isStatusError(made) ? made : internalError(made.message);
        return made;
      },
      topology: (apiVersion) => storeAt(apiVersion)!.fieldManager.topology(),
    };
  }

  /** The Store serving this one's objects at `apiVersion` (this one at its own), if any. */
  private storeAt(apiVersion: string): Store | undefined {
    return apiVersion === this.apiVersion ? this : this.equivalents?.().find((s) => s.apiVersion === apiVersion);
  }

  /**
   * The objects' replicas field as `apiVersion` names it, for managed fields written
   * through /scale: null for a version without the scale subresource, undefined for one
   * they are not served at.
   */
  replicasPathAt(apiVersion: string): readonly string[] | null | undefined {
    const store = this.storeAt(apiVersion);
    return store === undefined ? undefined : store.type.strategy.scale?.replicasPath ?? null;
  }

  /** The bytes an object is stored as: converted first when the type is stored in another version. */
  private encode(obj: KubeObject): Uint8Array {
    const conversion = this.type.storage;
    if (conversion === undefined) return encodeForStorage(obj);
    const stored = conversion.toStorage(obj);
    return encodeForStorage({ ...stored, apiVersion: apiVersionOf(conversion.group, conversion.version), kind: conversion.kind });
  }

  private attributes(operation: Operation, namespace: string, object: KubeObject | undefined, oldObject: KubeObject | undefined, opts: WriteOptions): AdmissionAttributes {
    const name = object?.metadata.name ?? oldObject?.metadata.name ?? '';
    const ownNamespace = this.type.group === '' && this.type.resource === 'namespaces';
    return {
      operation,
      group: this.type.group,
      version: this.type.version,
      resource: this.type.resource,
      subresource: '',
      kind: this.type.kind,
      // A namespace's own requests are in it, as upstream's: its request info reads
      // /api/v1/namespaces/{name} so, and its createHandler (create.go) sets a new one's name,
      // as sent (none yet when it is to be generated). Where it is stored does not change.
      namespace: ownNamespace && namespace === '' ? name : namespace,
      name,
      object,
      oldObject,
      dryRun: opts.dryRun ?? false,
      namespaced: this.type.namespaced,
    };
  }

  /**
   * A built-in kind's kind and apiVersion may be omitted or empty (the URL says them: the
   * decoder's defaults) but must not contradict it: 400 as upstream. A custom resource's are
   * data. In a body its apiVersion must be the URL's, given: unstructured decoding has no
   * defaults, so the handler's check of the decoded version refuses an empty one too. A
   * patched object's apiVersion, and any kind, are checked with its validation (422,
   * upstream's ValidateTypeMeta); a body without a kind was refused at decoding. The endpoints
   * refuse a built-in body of another kind or version in upstream's words first
   * (encoding/legacy-scheme.ts); these are the words for other callers.
   */
  private checkTypeMeta(obj: KubeObject, body = true): void {
    if (this.type.customResource === true) {
      if (body && obj.apiVersion !== this.apiVersion) throw apiVersionMismatch(obj.apiVersion ?? '', this.apiVersion);
      if (obj.kind === undefined || obj.kind === '') obj.kind = this.type.kind;
      return;
    }
    // An apiVersion without its version ("/", "<group>/") is this one, as the decoder defaults it.
    // (A patched object's apiVersion may be of any JSON type.)
    const given = obj.apiVersion ?? '';
    const slash = typeof given === 'string' ? given.indexOf('/') : -1;
    const versionless = slash >= 0 && slash === given.length - 1 && (slash === 0 || given.slice(0, slash) === this.type.group);
    if (given !== '' && given !== this.apiVersion && !versionless) throw apiVersionMismatch(given, this.apiVersion);
    obj.apiVersion = this.apiVersion;
    if (obj.kind !== undefined && obj.kind !== '' && obj.kind !== this.type.kind) {
      throw badRequest(`the kind in the data (${obj.kind}) does not match the expected kind (${this.type.kind})`);
    }
    obj.kind = this.type.kind;
  }

  private checkNamespace(obj: KubeObject, namespace: string): void {
    const meta = obj.metadata;
    if (!this.type.namespaced) {
      delete meta.namespace;
      return;
    }
    if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    meta.namespace = namespace;
  }

  /** Fields of metadata only the server sets survive a client's update. */
  private preserveSystemMeta(obj: KubeObject, current: KubeObject, subresource: string): void {
    const meta = obj.metadata;
    const old = current.metadata;
    meta.name = old.name;
    if (this.type.namespaced) meta.namespace = old.namespace;
    else delete meta.namespace;
    // The existing uid unless one is given (upstream's BeforeUpdate): another is refused as immutable.
    if (meta.uid === undefined || meta.uid === '') meta.uid = old.uid;
    meta.creationTimestamp = old.creationTimestamp;
    // An update never removes or changes a deletion timestamp, nor removes a grace period
    // (upstream's BeforeUpdate); one the object lacks stays for validation to refuse as
    // immutable. A subresource's write takes the object's (ResetObjectMetaForStatus).
    if (old.deletionTimestamp !== undefined) meta.deletionTimestamp = old.deletionTimestamp;
    else if (subresource !== '') delete meta.deletionTimestamp;
    if (old.deletionGracePeriodSeconds !== undefined && (subresource !== '' || meta.deletionGracePeriodSeconds === undefined || meta.deletionGracePeriodSeconds === null)) {
      meta.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
    } else if (old.deletionGracePeriodSeconds === undefined && subresource !== '') {
      delete meta.deletionGracePeriodSeconds;
    }
    if (old.generation !== undefined) meta.generation = old.generation;
    else delete meta.generation;
    delete meta.selfLink;
    delete meta.resourceVersion;
  }

  /**
   * What decoding a body does upstream, before any strategy or admission plugin sees it:
   * metadata of the wrong type and values the Go type cannot hold are refused (400; a
   * patch's 422); fields the schema does not know are dropped, and reported as `fieldValidation` asks;
   * the schema's defaults are filled in; and for built-in types, values of the wrong type
   * fail the write (422, with what the strategy finds besides when it can tell:
   * `ownCauses` runs it on a copy).
   */
  private goDecoding(): GoDecoding | undefined {
    if (this.goDecodingOfType === null) this.goDecodingOfType = this.type.customResource === true ? undefined : goDecoding(this.definitions, this.schema);
    return this.goDecodingOfType;
  }

  private decodeFields(obj: KubeObject, opts: WriteOptions, ownCauses: (probe: KubeObject) => StatusCause[]): void {
    const fieldValidation = opts.fieldValidation;
    // A value the Go type cannot hold fails decoding before strict field validation looks.
    // A custom resource's numbers are all decoded, into float64 where not integers: one past its range fails.
    if (opts.numberOverflow !== undefined && this.type.customResource === true) {
      throw this.decodeFailure(`json: cannot unmarshal number ${opts.numberOverflow} into Go value of type float64`, obj, opts);
    }
    // A built-in type's field refuses such a number where its Go type is a number, or not a string's.
    const overflowError = opts.numberOverflow === undefined ? undefined : goTypeError(this.definitions, this.schema, obj);
    // A custom resource's integer written `1.0` is a float64 to its rules, ratcheting and generation.
    if (this.type.customResource === true) opts.floatNumbers?.note(obj);
    const texts = opts.floatNumbers === undefined || this.type.customResource === true ? undefined : opts.floatNumbers.textsIn(obj);
    const decodeError = objectMetaDecodeError(obj.metadata, texts) ?? this.goDecoding()?.(obj, texts) ?? overflowError
      ?? (opts.cborIntegralFloat === true ? this.cborDecodeError(obj, opts) : undefined);
    if (decodeError !== undefined) throw this.decodeFailure(this.cborDecodeError(obj, opts) ?? withNumberText(decodeError, opts.numberOverflow), obj, opts);
    // Conversion to the internal type follows decoding; its error is said instead of strict decoding's.
    const conversionError = this.type.strategy.conversionError?.(obj);
    if (conversionError !== undefined) throw fieldValidation?.conversionFailure?.(conversionError) ?? this.decodeFailure(conversionError, obj, opts);
    // Strict refuses the object as it came (a patch's error shows it): nothing to remove then.
    const keepUnknown = fieldValidation?.directive === 'Strict';
    // Upstream validates a custom resource's apply result as merged: the nulls it holds are
    // not dropped first (a built-in type's Go value has none).
    const keepNulls = opts.managedFieldsSet === true && this.type.customResource === true;
    // A CBOR body's unknown field is named by its place in its map, which pruning changes.
    const cborUnknown = fieldValidation !== undefined && fieldValidation.directive !== 'Ignore' ? this.cborUnknownField(obj, opts) : undefined;
    const unknownFields = prune(this.definitions, this.schema, obj, { isResourceRoot: true, keepUnknown, keepNulls, goValue: this.type.customResource !== true });
    const duplicateFields = fieldValidation?.duplicateFields ?? [];
    const patchErrors = fieldValidation?.patchErrors ?? [];
    if (fieldValidation !== undefined && fieldValidation.directive !== 'Ignore' && (unknownFields.length > 0 || duplicateFields.length > 0 || patchErrors.length > 0)) {
      const errors = cborUnknown !== undefined ? [cborUnknown] : [...patchErrors, ...strictDecodingErrors(duplicateFields, unknownFields)];
      if (fieldValidation.directive === 'Strict') {
        // Go's decoding fails on a value of the wrong type before strictness is looked at.
        const typeError = this.type.customResource === true ? undefined : this.cborDecodeError(obj, opts) ?? goTypeError(this.definitions, this.schema, obj, opts.cborTypeAt);
        if (typeError !== undefined) throw this.decodeFailure(typeError, obj, opts);
        throw this.decodeFailure(strictDecodingMessage(errors), obj, opts);
      }
      for (const error of errors) addWarning(error);
    }
    applyDefaults(this.definitions, this.schema, obj);
    // Custom resources decode into plain data: their schema is checked with the rest of validation only.
    if (this.type.schemaValidation !== undefined) {
      this.type.strategy.defaults?.(obj);
      return;
    }
    let typeCauses = validate(this.definitions, this.schema, obj, this.validation).filter((c) => c.reason === 'FieldValueTypeInvalid');
    if (typeCauses.length > 0) {
      // Decoded into the Go type, a value of another kind fails decoding (400, Go's words),
      // and a null in a list or a map is its element's zero value.
      const typeError = this.cborDecodeError(obj, opts) ?? goTypeError(this.definitions, this.schema, obj, opts.cborTypeAt);
      if (typeError !== undefined) throw this.decodeFailure(typeError, obj, opts);
      if (zeroNullElements(this.definitions, this.schema, obj)) {
        typeCauses = validate(this.definitions, this.schema, obj, this.validation).filter((c) => c.reason === 'FieldValueTypeInvalid');
      }
    }
    if (typeCauses.length > 0) {
      let own: StatusCause[] = [];
      try {
        // Upstream's decoding refuses such a body before its strategy runs: what the probe's
        // preparation warns of (a pod's AppArmor annotations) goes unsaid.
        own = withoutWarnings(() => {
          const probe = clone(obj);
          this.type.strategy.defaults?.(probe);
          return ownCauses(probe);
        });
      } catch {
        // Hand-written validation may not cope with ill-typed data; the type errors say enough.
      }
      this.throwIfInvalid(obj, mergeCauses(own, typeCauses));
    }
    // Decoded into its Go type, a built-in object holds every value field, at its zero value
    // where the client left it out (`status: {}`, `lastProbeTime: null`): the field manager,
    // admission and the type's validation see them, as upstream's do. The schema's `required`
    // does not (go-zero.ts).
    this.completeGoValue(obj);
    this.type.strategy.defaults?.(obj);
  }

  /**
   * For a CBOR body of a built-in type, once a check found it faulty: the error upstream's
   * decoding into the Go type meets first in the body, in fxamacker/cbor's words.
   */
  private cborDecodeError(obj: KubeObject, opts: WriteOptions): string | undefined {
    if (opts.cborTypeAt === undefined || this.type.customResource === true) return undefined;
    return cborDecodeError(this.definitions, this.schema, obj, opts.cborTypeAt);
  }

  /** For a CBOR body of a built-in type, strict decoding's unknown field, by its place in its map (go-cbor-decoding.ts). */
  private cborUnknownField(obj: KubeObject, opts: WriteOptions): string | undefined {
    if (opts.cborTypeAt === undefined || this.type.customResource === true) return undefined;
    return cborUnknownField(this.definitions, this.schema, obj);
  }

  /**
   * The request's own body once decoded (unknown fields dropped, defaults filled) is its audit
   * event's request object and names its reference, as upstream's handlers log it after
   * decoding (LogRequestObject). Told only for the request's resource and verb: a write the
   * request makes to another resource on its way is not its body. The audit hook copies what
   * it keeps.
   */
  private auditDecodedBody(verb: 'create' | 'update', obj: KubeObject): void {
    const request = currentRequest();
    const audit = request?.auditRequestObject;
    if (audit === undefined || request!.verb !== verb || request!.resource !== this.groupResource.resource || request!.group !== this.groupResource.group) return;
    audit(obj);
  }

  /** Decoding's failure: 400 in the decoder's words (upstream's create and update handlers' transformDecodeError), or what a patch makes of it. */
  private decodeFailure(error: string, obj: KubeObject, opts: WriteOptions): StatusError {
    return opts.fieldValidation?.strictError?.(error, obj)
      ?? badRequest(`${this.type.kind} in version ${JSON.stringify(this.type.version)} cannot be handled as a ${this.type.kind}: ${error}`);
  }

  /**
   * A built-in object's value fields it does not hold, at their zero values: after decoding,
   * and again before it is stored, for what a strategy took away (upstream's PrepareForCreate
   * resets an Ingress's status to the Go zero, which still writes `status.loadBalancer: {}`).
   * Before it is stored, also its empty slices and maps without omitempty as nil, as
   * upstream's Protobuf storage reads them back; the groups whose storage is JSON keep them.
   */
  private completeGoValue(obj: KubeObject, stored = false): void {
    if (this.type.customResource !== true) addGoZeroValues(this.definitions, this.schema, obj, stored && !jsonStoredGroups.has(this.type.group));
  }

  private createCauses(obj: KubeObject): StatusCause[] {
    return [
      ...validateObjectMeta(obj, this.type.nameRule, this.type.namespaced),
      ...(this.type.strategy.validate?.(obj) ?? []),
      ...(this.type.strategy.validateCreate?.(obj) ?? []),
    ];
  }

  /** The update's own causes of `probe` once prepared as the write would be (it is changed). */
  private preparedUpdateCauses(probe: KubeObject, current: KubeObject, subresource: string): StatusCause[] {
    this.preserveSystemMeta(probe, current, subresource);
    this.type.strategy.prepareForUpdate?.(probe, current);
    return this.updateCauses(probe, current);
  }

  private updateCauses(obj: KubeObject, old: KubeObject): StatusCause[] {
    return [
      ...validateObjectMetaUpdate(obj, old, this.type.namespaced, this.type.nameRule),
      ...(this.type.strategy.validate?.(obj, old) ?? []),
      ...(this.type.strategy.validateUpdate?.(obj, old) ?? []),
    ];
  }

  /** What the type's schema says of the whole object. */
  protected schemaCauses(obj: KubeObject): StatusCause[] {
    return validate(this.definitions, this.schema, obj, this.validation);
  }

  /**
   * The causes of a create's 422 (admission's aside): metadata's and the type's own, merged
   * with the schema's (mergeCauses). A custom resource's Store lists them in upstream's
   * order instead (custom-resource-store.ts).
   */
  protected createValidationCauses(obj: KubeObject): StatusCause[] {
    return mergeCauses(this.createCauses(obj), this.schemaCauses(obj));
  }

  /** The same for an update of the object (or of its scale); `old` is the stored object. */
  protected updateValidationCauses(obj: KubeObject, old: KubeObject): StatusCause[] {
    return mergeCauses(this.updateCauses(obj, old), this.schemaCauses(obj));
  }

  /** The same for a write through an update-like subresource (status, finalize): metadata's, then the subresource's rules. */
  protected subresourceValidationCauses(subresource: string, obj: KubeObject, old: KubeObject): StatusCause[] {
    return [...validateObjectMetaUpdate(obj, old, this.type.namespaced), ...(this.type.strategy.subresources?.[subresource]?.validateUpdate?.(obj, old) ?? [])];
  }

  // A valid write's warnings follow its validation, then its canonical form, as upstream's
  // BeforeCreate and BeforeUpdate add and make them: after mutating admission, before
  // validating admission (a dry run gets them too).
  private validateCreate(obj: KubeObject, leading?: StatusCause[]): void {
    this.throwIfInvalid(obj, this.createValidationCauses(obj), leading);
    warn(this.type.strategy.warningsOnCreate?.(obj));
    this.type.strategy.canonicalize?.(obj);
  }

  private validateUpdate(obj: KubeObject, old: KubeObject, leading?: StatusCause[]): void {
    this.throwIfInvalid(obj, this.updateValidationCauses(obj, old), leading);
    warn(this.type.strategy.warningsOnUpdate?.(obj, old));
    this.type.strategy.canonicalize?.(obj);
  }

  private throwIfInvalid(obj: KubeObject, causes: StatusCause[], leading?: StatusCause[]): void {
    if (leading !== undefined && leading.length > 0) causes = leading.concat(causes);
    // Named by the object's kind, as upstream's ObjectKinds (a custom resource's may be another: its first cause says so).
    if (causes.length > 0) throw invalid(obj.kind || this.type.kind, obj.metadata.name ?? obj.metadata.generateName ?? '', causes, this.type.group);
  }
}

/** A strategy's warnings, to the request's Warning headers (the same text is sent once). */
function warn(warnings: readonly string[] | undefined): void {
  if (warnings !== undefined) for (const warning of warnings) addWarning(warning);
}

/** Runs `fn` with the warnings it adds dropped, the rest of the request's context kept. */
function withoutWarnings<T>(fn: () => T): T {
  const request = currentRequest();
  return request === undefined ? fn() : runInRequestContext({ ...request, addWarning: () => {} }, fn);
}

/** The end of `field`'s nearest parent before `end` (`spec.a[0]`: `spec.a`, then `spec`), -1 when there is none. */
function parentEnd(field: string, end: number): number {
  return end <= 0 ? -1 : Math.max(field.lastIndexOf('.', end - 1), field.lastIndexOf('[', end - 1));
}

/**
 * Whether `field` is one of `paths` or under one (`spec.a` is under `spec`, `spec[0]` too):
 * the field and each of its parents looked up, not every path compared with it.
 */
function isAtOrUnderAny(field: string | undefined, paths: ReadonlySet<string>): boolean {
  if (field === undefined || paths.size === 0) return false;
  if (paths.has(field)) return true;
  for (let end = parentEnd(field, field.length); end >= 0; end = parentEnd(field, end)) {
    if (paths.has(field.slice(0, end))) return true;
  }
  return false;
}

/** Each field of `causes` and its parents: a path is in it when some cause is at or under it. */
function fieldsAndParents(causes: readonly StatusCause[]): Set<string> {
  const paths = new Set<string>();
  for (const { field } of causes) {
    if (field === undefined) continue;
    paths.add(field);
    for (let end = parentEnd(field, field.length); end >= 0; end = parentEnd(field, end)) paths.add(field.slice(0, end));
  }
  return paths;
}

function definedFields(causes: readonly StatusCause[]): Set<string> {
  const fields = new Set<string>();
  for (const { field } of causes) if (field !== undefined) fields.add(field);
  return fields;
}

/**
 * The causes of a 422: the schema's type errors first (what upstream's decoding reports),
 * then the type's own causes except where a type error already explains the field, then
 * the schema's other causes (required fields, ...) for fields the type's own causes do
 * not mention (`spec.containers: Required value` once, not twice). A required struct the
 * client left out is the type's to report when it speaks of anything in it: a FlowSchema
 * without `priorityLevelConfiguration` gets upstream's `priorityLevelConfiguration.name:
 * Required value: must reference a priority level` alone. Nothing is said of what a field
 * the type forbids holds (a pod volume's second source: upstream says only that it is one
 * too many).
 */
function mergeCauses(own: StatusCause[], schema: StatusCause[]): StatusCause[] {
  if (schema.length === 0) return own;
  // Paths are looked up in sets: comparing each cause with every other took 70 s for a pod's
  // 20k volumes of two sources each (a Forbidden and a schema cause per volume).
  const typeErrors = schema.filter((c) => c.reason === 'FieldValueTypeInvalid');
  const typeErrorFields = definedFields(typeErrors);
  const kept = typeErrorFields.size === 0 ? own : own.filter((c) => !isAtOrUnderAny(c.field, typeErrorFields));
  const mentioned = new Set(own.map((c) => c.field));
  const forbiddenFields = definedFields(own.filter((o) => o.reason === 'FieldValueForbidden'));
  let ownPaths: Set<string> | undefined;
  const speaksOfAnythingIn = (field: string | undefined) => field !== undefined && (ownPaths ??= fieldsAndParents(own)).has(field);
  const explained = (c: StatusCause) => mentioned.has(c.field) || (c.reason === 'FieldValueRequired' && speaksOfAnythingIn(c.field))
    || isAtOrUnderAny(c.field, forbiddenFields);
  const others = schema.filter((c) => c.reason !== 'FieldValueTypeInvalid' && !explained(c));
  if (typeErrors.length === 0 && others.length === 0) return kept;
  return [...typeErrors, ...kept, ...others];
}

/**
 * What admission sees of a write through a subresource whose body is another kind
 * (autoscaling/v1 Scale for deployments/scale): the object and old object as that kind,
 * and how a mutating plugin's changes of it carry back to the stored object.
 */
export interface AdmissionView {
  kind: string;
  groupVersion: { group: string; version: string };
  toView(obj: KubeObject): KubeObject;
  fromView(view: KubeObject, obj: KubeObject): void;
}

/** The generic rule of a status subresource write: only status changes. */
function keepAllButStatus(obj: KubeObject, current: KubeObject): void {
  const status = obj.status;
  for (const key of Object.keys(obj)) if (key !== 'metadata' && key !== 'status' && key !== 'apiVersion' && key !== 'kind') delete obj[key];
  for (const [key, value] of Object.entries(current)) if (key !== 'metadata' && key !== 'status' && key !== 'apiVersion' && key !== 'kind') obj[key] = clone(value);
  obj.metadata.labels = current.metadata.labels;
  obj.metadata.annotations = current.metadata.annotations;
  if (status === undefined) delete obj.status;
}

/**
 * Whether a create carries a resourceVersion the storage refuses: upstream parses it as an
 * unsigned 64-bit decimal and refuses only a non-zero value; one it cannot parse is ignored.
 */
function isResourceVersionSet(resourceVersion: unknown): boolean {
  if (typeof resourceVersion !== 'string' || !/^[0-9]+$/.test(resourceVersion)) return false;
  const value = BigInt(resourceVersion);
  return value !== 0n && value <= 0xffffffffffffffffn;
}

/**
 * `clone`, except that each managedFields entry's fieldsV1 is shared rather than copied:
 * FieldsV1 objects are never changed in place (apply/fields-v1.ts), and they are most of
 * an object several managers apply (13.6 of a 10-container Deployment's 19 KB).
 */
function cloneSharingFieldsV1(obj: KubeObject): KubeObject {
  const metadata: unknown = isObject(obj) ? obj.metadata : undefined;
  if (!isObject(metadata) || !Array.isArray(metadata.managedFields)) return clone(obj);
  const out: JsonObject = {};
  for (const key in obj) {
    const member = (obj as JsonObject)[key];
    if (member === undefined) continue;
    if (key !== 'metadata') {
      setMember(out, key, clone(member));
      continue;
    }
    const meta: JsonObject = {};
    for (const name in metadata) {
      const value = metadata[name];
      if (value === undefined) continue;
      setMember(meta, name, name === 'managedFields' ? (value as unknown[]).map(entryCopy) : clone(value));
    }
    setMember(out, key, meta);
  }
  return out as KubeObject;
}

function entryCopy(entry: unknown): unknown {
  if (!isObject(entry)) return clone(entry);
  const out: JsonObject = {};
  for (const key in entry) {
    const value = entry[key];
    if (value !== undefined) setMember(out, key, key === 'fieldsV1' ? value : clone(value));
  }
  return out;
}

/** Whether two versions of an object hold the same content, resourceVersion aside. */
function sameContent(a: KubeObject, b: KubeObject): boolean {
  const { resourceVersion: _a, ...metaA } = a.metadata;
  const { resourceVersion: _b, ...metaB } = b.metadata;
  return deepEqual({ ...a, metadata: metaA }, { ...b, metadata: metaB });
}

/** The handler's refusal of a body whose apiVersion is not the URL's. */
function apiVersionMismatch(given: string, expected: string): StatusError {
  return badRequest(`the API version in the data (${given}) does not match the expected API version (${expected})`);
}

/**
 * A request past its deadline writes nothing: it was answered 504 (server/request-deadlines.ts),
 * and upstream's storage refuses a write whose context is done. The finisher's words, for
 * whoever hears of it.
 */
function refuseLateWrite(): void {
  const left = requestTimeLeft();
  if (left !== undefined && left <= 0) throw timeout('request did not complete within requested timeout - context deadline exceeded');
}
