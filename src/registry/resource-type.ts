// ResourceType: what the generic Store needs to serve one resource (schema, scope, strategy, columns).
import type { ValidateOptions } from '../schema/index.ts';
import type { Backend } from '../storage/backend.ts';
import type { KubeObject, StatusCause, TableColumn, TableRowCondition } from '../api/index.ts';
import type { FieldLabelConversion } from '../api/fields.ts';
import type { NameRule } from './validation/names.ts';

/** The per-type behaviour the generic Store calls (upstream's "strategy"). */
export interface Strategy {
  /**
   * The type's defaults (upstream's SetDefaults_* functions), given to every object a
   * write decodes, before admission sees it: a create's or update's body, a patch's or an
   * apply's result, what a mutating webhook returned.
   */
  defaults?(obj: KubeObject): void;
  /**
   * What the server sets on a new object (upstream's PrepareForCreate): it clears what a
   * client may not set (status where upstream drops it) and starts the generation. It runs
   * after mutating admission, once the uid, creation time and a generated name are set.
   */
  prepareForCreate?(obj: KubeObject): void;
  /**
   * The name a create with `generateName` gets (upstream's NameGenerator): by default the
   * prefix and five random characters; tried again, up to eight times, while the name is taken.
   */
  generateName?(base: string): string;
  /**
   * What converting a decoded object from its version to upstream's internal type refuses
   * (Go's error text): apps/v1 parses annotations that hold internal fields (a DaemonSet's
   * template generation) as int64s. Checked right after a write's body is decoded.
   */
  conversionError?(obj: KubeObject): string | undefined;
  /** Same for update; `old` is the stored object. Bump generation here when the spec changed. */
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  /**
   * Field errors of an object, new or updated; metadata (names, labels, annotations) is
   * checked by the Store with validateObjectMeta. On update `old` is the stored object, for
   * rules upstream words differently there (a CronJob's name length only on create).
   */
  validate?(obj: KubeObject, old?: KubeObject): StatusCause[];
  /** Field errors only a create checks, beyond `validate` (events.k8s.io's stricter rules for new events). */
  validateCreate?(obj: KubeObject): StatusCause[];
  /** Field errors of an update (immutability rules and the like). */
  validateUpdate?(obj: KubeObject, old: KubeObject): StatusCause[];
  /**
   * What a valid new object is warned of (upstream's WarningsOnCreate): deprecated fields and
   * annotations, values a later release will refuse, likely mistakes. Sent as Warning headers.
   */
  warningsOnCreate?(obj: KubeObject): string[];
  /** The same for an update; `old` is the stored object (upstream's WarningsOnUpdate). */
  warningsOnUpdate?(obj: KubeObject, old: KubeObject): string[];
  /**
   * Puts a valid object in its canonical form (upstream's Canonicalize: Endpoints' subsets
   * repacked). It runs on every create and update once validation passed and the warnings are
   * given, before validating admission: webhooks and policies, the stored object, a dry run's
   * answer all see the canonical form.
   */
  canonicalize?(obj: KubeObject): void;
  /**
   * Field-selector values of an object, beyond metadata.name and metadata.namespace
   * which every type has (upstream's selectable fields / GetAttrs).
   */
  selectableFields?(obj: KubeObject): Record<string, string>;
  /**
   * The field-selector keys this type accepts, all of them (upstream's field label
   * conversion func). Absent: metadata.name and metadata.namespace, with upstream's
   * default-conversion error message (see convertFieldSelector in api/fields.ts).
   */
  fieldLabels?: readonly string[];
  /** What the type's conversion does beyond accepting `fieldLabels`: renamed labels, its own error words. */
  fieldLabelConversion?: FieldLabelConversion;
  /**
   * Behaviour of update-like subresources ("status", "finalize"): what a write through
   * the subresource may change, and how it is validated. A type serving "status"
   * without an entry here gets the generic rule (only status changes).
   */
  subresources?: Record<string, SubresourceStrategy>;
  /** Reading and writing the scale subresource (autoscaling/v1 Scale). */
  scale?: ScaleAccess;
  /**
   * Type-specific finalization that keeps a deleted object beyond metadata.finalizers
   * (namespaces: spec.finalizers, emptied by the namespace controller through /finalize).
   */
  deletionPending?(obj: KubeObject): boolean;
  /** Marks an object whose deletion has begun (namespaces: status.phase Terminating). */
  markDeleting?(obj: KubeObject): void;
  /**
   * What happens to dependents (objects whose ownerReferences name this one) when a
   * delete does not say (upstream's DefaultGarbageCollectionPolicy): 'OrphanDependents'
   * for core/v1 ReplicationControllers and batch/v1 Jobs, 'Unsupported' for Events (no
   * garbage-collection finalizers ever), absent: dependents are deleted.
   */
  defaultGarbageCollectionPolicy?: GarbageCollectionPolicy;
  /** A warning for a delete that leaves the propagation to an orphaning default (upstream's Jobs say their pods stay). */
  orphanByDefaultWarning?: string;
  /**
   * The garbage-collection finalizers a delete leaves on the object, when the type has
   * its own rules (namespaces); absent: the generic store's (registry/deletion.ts).
   */
  deletionFinalizers?(obj: KubeObject, opts: PropagationOptions): string[];
  /**
   * The registry has its own Delete (upstream's namespace and CustomResourceDefinition
   * storages): it checks a delete's preconditions first, in its words and on its resource
   * (the generic store's rest.BeforeDelete names the kind), and a first delete only marks
   * the object (a deletionTimestamp, then markDeleting): no grace period recorded, the
   * generation kept.
   */
  ownDelete?: boolean;
  /**
   * A delete of an object already being deleted that deletionPending still keeps answers it
   * as it is, with no admission (upstream's namespace Delete while spec.finalizers remain).
   */
  answersPendingDelete?: boolean;
  /**
   * Graceful deletion (upstream's RESTGracefulDeleteStrategy.CheckGracefulDelete): the grace
   * period in seconds a first delete gives the object, from the one the client asked for
   * (undefined: none given); undefined when the object is not deleted gracefully.
   * Pods: a bound, running pod waits for its kubelet; 0 deletes at once.
   */
  checkGracefulDelete?(obj: KubeObject, gracePeriodSeconds: number | undefined): number | undefined;
}

/** upstream's rest.GarbageCollectionPolicy. */
export type GarbageCollectionPolicy = 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';

/** What a delete says of its dependents: the deprecated orphanDependents or propagationPolicy (validated: not both). */
export interface PropagationOptions {
  orphanDependents?: boolean;
  propagationPolicy?: string;
}

/** Strategy of a write through a subresource; `obj` is what the client sent, `old` the stored object. */
export interface SubresourceStrategy {
  /** Reset on `obj` whatever the subresource may not change (e.g. spec = old.spec). */
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  validateUpdate?(obj: KubeObject, old: KubeObject): StatusCause[];
  /** Warnings of a valid write through the subresource (upstream's WarningsOnUpdate of its strategy). */
  warningsOnUpdate?(obj: KubeObject, old: KubeObject): string[];
}

export interface ScaleAccess {
  /** spec.replicas, status.replicas and the label selector in string form. */
  get(obj: KubeObject): { replicas: number; statusReplicas: number; selector: string };
  /** Set the desired replicas on the object (then prepareForUpdate/validateUpdate run as for a PUT). */
  set(obj: KubeObject, replicas: number): void;
  /** Where `set` writes, by field names (`['spec', 'replicas']`): what owning the Scale's replicas owns. */
  replicasPath: readonly string[];
}

/**
 * What one allocation did, settled after the storage write it was for: `commit` once the
 * write succeeded (an update releases then what the old object held and the new one does
 * not), `revert` when it failed (what was taken is given back).
 */
export interface Allocation {
  commit(): Promise<void>;
  revert(): Promise<void>;
}

/**
 * Side effects a type needs around storage writes (Service ClusterIP and NodePort
 * allocation), kept in the Store's storage so that every replica sharing it agrees.
 */
export interface Allocator {
  /**
   * Take what the object asks for or needs; fill in what was taken. Throws a StatusError
   * (422) when taken already. With `dryRun` it fills in and checks but takes nothing
   * (upstream answers a dry-run create with the IPs and ports it would allocate).
   */
  allocate(obj: KubeObject, opts?: { dryRun?: boolean }): Promise<Allocation>;
  /** Adjust what is taken for an update of `old` into `obj`; throws like allocate. With `dryRun`, as allocate's. */
  reallocate(obj: KubeObject, old: KubeObject, opts?: { dryRun?: boolean }): Promise<Allocation>;
  /** Release what the object holds (after its delete). */
  release(obj: KubeObject): Promise<void>;
  /** At start-up, from the stored objects: repair what storage records as taken. */
  restore(objects: KubeObject[]): Promise<void>;
}

/**
 * How a type served in one version is kept in another (autoscaling/v1 HorizontalPodAutoscalers
 * stored as autoscaling/v2, events.k8s.io/v1 Events stored as core/v1): the stored kind's
 * group, resource, version and kind name the storage keys and discovery's storageVersionHash,
 * and the two functions convert whole objects (metadata included) between the forms. Every
 * served version of the stored kind then reads and writes the same keys, so writes through
 * one show in the other's reads and watches, with one resourceVersion sequence.
 */
export interface StorageConversion {
  group: string;
  resource: string;
  version: string;
  kind: string;
  /** The served object in the stored version (a new object; `obj` is left as it is). */
  toStorage(obj: KubeObject): KubeObject;
  /** A stored object in the served version (a new object). */
  fromStorage(obj: KubeObject): KubeObject;
}

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** One served resource. A CRD becomes one at run time. */
export interface ResourceType {
  group: string;
  version: string;
  /** Plural, lower-case: "configmaps". */
  resource: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: Verb[];
  /** Subresources served, such as "status" and "scale". */
  subresources: string[];
  /**
   * What discovery says of each subresource upstream serves: its kind (with group and
   * version when another group's, as Scale) and verbs. From the generated skeletons;
   * absent for custom resources, whose status and scale discovery knows.
   */
  subresourceDiscovery?: Record<string, { group?: string; version?: string; kind: string; verbs: string[] }>;
  /** Name of this type's schema among the definitions ("io.k8s.api.core.v1.ConfigMap"). */
  schemaName: string;
  strategy: Strategy;
  /** Makes the allocator of a Store over `storage` (Services' ClusterIPs and NodePorts). */
  allocatorFor?: (storage: Backend) => Allocator;
  /** PUT of a missing object creates it (upstream: true for most custom resources and some built-ins). */
  allowCreateOnUpdate: boolean;
  /**
   * PUT without metadata.resourceVersion overwrites the stored object (upstream's
   * AllowUnconditionalUpdate: true for most built-ins, false for leases and custom
   * resources, which then answer 422 "must be specified for an update"). Absent: true.
   */
  allowUnconditionalUpdate?: boolean;
  /** DELETE answers the deleted object instead of a Success Status (upstream: pods and a few others). */
  deleteReturnsObject: boolean;
  /**
   * Name rule: "dns1123-subdomain" (most types), "dns1123-label" (namespaces),
   * "dns1035-label" (services: a label starting with a letter), "ip-address"
   * (IPAddresses), or "path-segment". Checked with validateObjectMeta (registry/validation/).
   */
  nameRule: NameRule;
  /**
   * What the schema enforces on this type's objects (schema/validate.ts). Absent: a
   * built-in type's rules: types and required fields, with type errors refused before
   * the strategy runs, as decoding into Go types refuses them upstream. Custom resources
   * set `customResourceValidation` (enums, formats, list types as well).
   */
  schemaValidation?: ValidateOptions;
  /**
   * Columns of the type's server-side Tables (`kubectl get`), in order; priority > 0
   * columns show with `-o wide`. Absent: upstream's default Name and Created At
   * (registry/table-columns.ts). A CRD's additionalPrinterColumns become these.
   */
  tableColumns?: TableColumn[];
  /**
   * Served from a CustomResourceDefinition (controllers/crd.ts): objects are plain data
   * checked by the CRD's schema, and strategic merge patch is not offered (415, as upstream).
   */
  customResource?: boolean;
  /**
   * The group, version and kind objects are stored as, which discovery's storageVersionHash
   * names: a CRD's storage version, whichever version is served. Absent: this type's own;
   * null: none (a CRD whose storage version is not served gets no hash upstream).
   */
  storageVersion?: { group: string; version: string; kind: string } | null;
  /** Objects are stored in another version, converted on the way in and out. Absent: stored as served. */
  storage?: StorageConversion;
  /**
   * Nothing of this type is stored: endpoints/handlers/virtual.ts answers its requests
   * (bindings bind a pod; componentstatuses are synthesised), and it has no watch cache.
   */
  virtual?: boolean;
  /**
   * Present while the type's behaviour (strategy, table columns, update rules) is not
   * loaded yet: built-in types few clients use load their module on first use (some
   * milliseconds, once), so that start-up and idle memory do not pay for them (registry/builtin/skeleton.ts, lazyBuiltinType). The
   * Store and the request handler await it before anything reads the behaviour; what
   * discovery and routing read (names, verbs, subresources, schema) is there from the start.
   */
  load?(): Promise<void>;
  /**
   * Its strategy compiles or evaluates CEL expressions (webhook match conditions, policy
   * expressions, CRD and custom resource validation rules). CEL loads on first use
   * (cel/lazy.ts): the Store loads it before such a type's writes. Reads do not wait for it.
   */
  strategyUsesCel?: boolean;
  /**
   * Sent as a warning with every request to the resource, its subresources included: a
   * deprecated API, in upstream's words ("v1 Endpoints is deprecated in v1.33+; use
   * discovery.k8s.io/v1 EndpointSlice"; a CRD's deprecated version its own).
   */
  deprecationWarning?: string;
  /** Conditions of an object's Table row (upstream marks finished pods Completed). */
  tableRowConditions?(obj: KubeObject): TableRowCondition[] | undefined;
}
