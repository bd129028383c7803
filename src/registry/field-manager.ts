// The Store's side of managed fields: a type's topology, and apply and update recorded.
import { apiVersionOf, type KubeObject, type ManagedFieldsEntry } from '../api/index.ts';
import { addWarning } from '../api/request-context.ts';
import { deepEqual, type JsonObject } from '../api/json.ts';
import { apply, applyConflictError, compileTopology, fieldSetOf, managedFieldsProblem, merge, updateManagedFields, type FieldSet, type ManagedFieldsScope, type Topology, type Versions } from '../apply/index.ts';

/** Endpoints name a write's manager with this (fieldManager, else the User-Agent). */
export { managerOrUserAgent } from '../apply/index.ts';
import type { Definitions } from '../schema/index.ts';
import { addGoZeroValues, schemaRef } from '../schema/index.ts';
import type { ResourceType } from './resource-type.ts';

const statusFields = fieldSetOf(['status']);
const specFields = fieldSetOf(['spec']);
const specAndMetadata = fieldSetOf(['spec'], ['metadata']);

/** Types whose /status writes own no metadata either (their status strategies' GetResetFields, which keep the stored metadata). */
const statusResetsMetadata = new Set(['flowcontrol.apiserver.k8s.io/flowschemas', 'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations', 'apiextensions.k8s.io/customresourcedefinitions']);

/**
 * metadata.managedFields for one resource (upstream's fieldmanager): records who owns
 * which fields on every write, and merges server-side apply configurations with
 * structured-merge-diff's ownership rules. The topology is compiled on first use.
 */
export class FieldManager {
  private readonly type: ResourceType;
  private readonly definitions: Definitions;
  private compiled: Topology | undefined;
  private readonly versions: Versions;
  /** newObject's, made once: shared, and only read, as a stored object is. */
  private emptyObject: JsonObject | undefined;

  /** `versions`: those the type's objects are served at, this one among them. */
  constructor(type: ResourceType, definitions: Definitions, versions: Versions) {
    this.type = type;
    this.definitions = definitions;
    this.versions = versions;
  }

  topology(): Topology {
    return this.compiled ??= compileTopology({ $ref: schemaRef(this.type.schemaName) }, this.definitions);
  }

  private scope(subresource: string): ManagedFieldsScope {
    const scope: ManagedFieldsScope = { topology: this.topology(), apiVersion: apiVersionOf(this.type.group, this.type.version), kind: this.type.kind, versions: this.versions };
    if (this.type.customResource === true) scope.keepsNulls = true;
    else scope.emptyObject = this.emptyObject ??= this.newObject();
    if (subresource !== '') scope.subresource = subresource;
    const reset = this.resetFields(subresource);
    if (reset !== undefined) scope.resetFields = reset;
    return scope;
  }

  /**
   * A new object of the type, as upstream's handlers make one (Creater.New) for a create and
   * the first apply to compare with: its kind and apiVersion, and its Go value fields at their
   * zero values (go-zero.ts).
   */
  private newObject(): JsonObject {
    const empty: JsonObject = { apiVersion: apiVersionOf(this.type.group, this.type.version), kind: this.type.kind };
    addGoZeroValues(this.definitions, { $ref: schemaRef(this.type.schemaName) }, empty);
    return empty;
  }

  /** Upstream's ResetFieldsStrategy: the main resource does not own status when /status exists, and /status does not own spec. */
  private resetFields(subresource: string): FieldSet | undefined {
    if (subresource === 'status') return statusResetsMetadata.has(`${this.type.group}/${this.type.resource}`) ? specAndMetadata : specFields;
    if (subresource === '' && this.type.subresources.includes('status')) return statusFields;
    return undefined;
  }

  /** A non-apply write (create, update, patch): the writer takes the fields whose values it changed. */
  recordUpdate(live: KubeObject | undefined, obj: KubeObject, manager: string, subresource = ''): void {
    const managedFields = updateManagedFields(this.scope(subresource), live, obj, manager);
    if (managedFields === undefined) delete obj.metadata.managedFields;
    else obj.metadata.managedFields = managedFields;
  }

  /**
   * After mutating admission, which runs on the managed fields this write recorded: when a
   * plugin left them changed and unreadable, they are put back as they were before it, with
   * a warning (upstream's managed fields validating admission controller).
   */
  keepReadableAfterAdmission(obj: KubeObject, before: ManagedFieldsEntry[] | undefined): void {
    const after = obj.metadata.managedFields;
    if (after === before || deepEqual(after, before)) return;
    const problem = managedFieldsProblem(after);
    if (problem === undefined) return;
    if (before === undefined) delete obj.metadata.managedFields;
    else obj.metadata.managedFields = before;
    addWarning(`.metadata.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: ${problem}`);
  }

  /**
   * A configuration merged into an object as structured-merge-diff merges (maps by key,
   * list maps by their keys, atomic values replaced), with no field ownership: what a
   * mutating admission policy's ApplyConfiguration does.
   */
  mergeConfiguration(obj: KubeObject, configuration: unknown): KubeObject {
    return merge(obj, configuration, this.scope('').topology) as KubeObject;
  }

  /** Server-side apply of a configuration onto the live object (undefined: create); conflicts are a 409. */
  apply(live: KubeObject | undefined, applied: unknown, manager: string, force: boolean, subresource = ''): KubeObject {
    const result = apply(this.scope(subresource), live, applied, manager, { force });
    if (!result.ok) throw applyConflictError(result.conflicts);
    return result.object;
  }
}
