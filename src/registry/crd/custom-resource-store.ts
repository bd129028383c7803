// The Store of a custom resource version: the generic Store, reading objects as this
// version shows them. Every version of a CRD shares one storage prefix; with conversion
// strategy None an object read through another version differs only in apiVersion, with
// Webhook the version's storage converts it (converting-backend.ts) and a converted
// write's answer is read back through it.
// Defaults and pruning also apply on read, as upstream's storage codec applies them, so
// a schema that gained a default shows it on objects stored before.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import { appendAll, goQuote } from '../../api/field-errors.ts';
import { schemaRef } from '../../schema/builtin/index.ts';
import { applyDefaults } from '../../schema/defaults.ts';
import { prune } from '../../schema/prune.ts';
import type { Definitions, Schema } from '../../schema/types.ts';
import type { AdmissionChain } from '../../admission/chain.ts';
import type { Backend, KeyValue } from '../../storage/backend.ts';
import type { WatchCache } from '../../cache/index.ts';
import type { ResourceType } from '../resource-type.ts';
import { Store } from '../store.ts';
import { internalError } from '../../api/errors.ts';
import { ConversionError } from './conversion-webhook.ts';
import type { ConvertingBackend, ObjectConverter } from './converting-backend.ts';
import { objectKey } from '../keys.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from '../validation/object-meta.ts';
import { customResourceChecksOf, type CustomResourceChecks } from './custom-resource.ts';

export interface CustomResourceStoreOptions {
  /** Where the version's schema is, under its schemaName. */
  definitions: Definitions;
  /** The CRD's conversion webhook, when its versions convert by one. */
  converter?: ObjectConverter;
  /** The version's converting storage, when its versions convert by webhook (the Store's backend). */
  converting?: ConvertingBackend;
  /** The Stores of the CRD's served versions (StoreOptions.equivalents). */
  equivalents?: () => readonly Store[];
}

export class CustomResourceStore extends Store {
  readonly #definitions: Definitions;
  readonly #schema: Schema;
  readonly #converter: ObjectConverter | undefined;
  readonly #converting: ConvertingBackend | undefined;
  readonly #checks: CustomResourceChecks | undefined;

  constructor(type: ResourceType, backend: Backend, admission: AdmissionChain, cache: WatchCache | undefined, opts: CustomResourceStoreOptions) {
    super(type, backend, admission, cache, { definitions: opts.definitions, ...(opts.equivalents === undefined ? {} : { equivalents: opts.equivalents }) });
    this.#definitions = opts.definitions;
    this.#schema = { $ref: schemaRef(type.schemaName) };
    this.#converter = opts.converter;
    this.#converting = opts.converting;
    this.#checks = customResourceChecksOf(type);
  }

  // A 422's causes in upstream's order (customResourceStrategy.Validate): metadata's, the
  // schema's, then the version's checks (scale paths, rules), merged with nothing.
  protected override createValidationCauses(obj: KubeObject): StatusCause[] {
    const typeMeta = this.#typeMetaCauses(obj);
    if (typeMeta !== undefined) return typeMeta;
    if (this.#checks === undefined) return super.createValidationCauses(obj);
    const causes = [...validateObjectMeta(obj, this.type.nameRule, this.type.namespaced)];
    appendAll(causes, this.schemaCauses(obj));
    return this.#checks.create(obj, causes);
  }

  protected override updateValidationCauses(obj: KubeObject, old: KubeObject): StatusCause[] {
    const typeMeta = this.#typeMetaCauses(obj);
    // Upstream's BeforeUpdate checks the metadata before the strategy, whose type meta check stops it.
    if (typeMeta !== undefined) return [...validateObjectMetaUpdate(obj, old, this.type.namespaced), ...typeMeta];
    if (this.#checks === undefined) return super.updateValidationCauses(obj, old);
    return this.#checks.update(obj, old, validateObjectMetaUpdate(obj, old, this.type.namespaced));
  }

  /**
   * Upstream's ValidateTypeMeta: an object of another kind or apiVersion is refused with that
   * alone (a body's apiVersion the store checked; a patch may have changed it).
   */
  #typeMetaCauses(obj: KubeObject): StatusCause[] | undefined {
    if (obj.kind === this.type.kind && obj.apiVersion === this.apiVersion) return undefined;
    const causes: StatusCause[] = [];
    if (obj.kind !== this.type.kind) causes.push({ reason: 'FieldValueInvalid', field: 'kind', message: `Invalid value: ${goQuote(obj.kind ?? '')}: must be ${this.type.kind}` });
    if (obj.apiVersion !== this.apiVersion) causes.push({ reason: 'FieldValueInvalid', field: 'apiVersion', message: `Invalid value: ${goQuote(obj.apiVersion ?? '')}: must be ${this.apiVersion}` });
    return causes;
  }

  protected override subresourceValidationCauses(subresource: string, obj: KubeObject, old: KubeObject): StatusCause[] {
    if (this.#checks === undefined || subresource !== 'status') return super.subresourceValidationCauses(subresource, obj, old);
    return this.#checks.status(obj, old, validateObjectMetaUpdate(obj, old, this.type.namespaced));
  }

  /**
   * A write's answer as upstream's storage gives it: decoded from what was stored, so a
   * write converted to the storage version is converted back (what the webhook changed on
   * the way shows); a dry run converted there and back, nothing stored. The object as
   * written otherwise (no conversion, no write).
   */
  async #answer(obj: KubeObject, dryRun: boolean | undefined): Promise<KubeObject> {
    if (this.#converting === undefined) return obj;
    const { namespace, name, resourceVersion } = obj.metadata;
    if (dryRun === true) {
      const kv = await this.#converting.throughStorage(obj);
      if (kv === undefined) return obj;
      const answer = this.decode(kv);
      // What the dry run would have stored keeps the resourceVersion it was answered with.
      if (resourceVersion === undefined) delete answer.metadata.resourceVersion;
      else answer.metadata.resourceVersion = resourceVersion;
      return answer;
    }
    const kv = await this.#converting.readBack(objectKey(this.type, namespace ?? '', name ?? ''), Number(resourceVersion));
    return kv === undefined ? obj : this.decode(kv);
  }

  override convertsAtOnce(): boolean {
    return this.#converter === undefined;
  }

  /** Another version's object in this one: its apiVersion changed, or converted by the CRD's webhook. */
  override async convertFrom(obj: KubeObject, source: Store): Promise<KubeObject> {
    if (this.#converter === undefined) return super.convertFrom(obj, source);
    try {
      const [converted] = await this.#converter.convert([obj], this.apiVersion, false);
      return converted!;
    } catch (err) {
      throw err instanceof ConversionError ? internalError(err.message) : err;
    }
  }

  override async create(...args: Parameters<Store['create']>): Promise<KubeObject> {
    return this.#answer(await super.create(...args), args[2]?.dryRun);
  }

  override async guaranteedUpdate(...args: Parameters<Store['guaranteedUpdate']>): ReturnType<Store['guaranteedUpdate']> {
    const result = await super.guaranteedUpdate(...args);
    const object = await this.#answer(result.object, args[3].dryRun);
    return object === result.object ? result : { object, created: result.created };
  }

  override decode(kv: KeyValue): KubeObject {
    const obj = super.decode(kv);
    obj.apiVersion = this.apiVersion;
    obj.kind = this.type.kind;
    prune(this.#definitions, this.#schema, obj, { isResourceRoot: true });
    applyDefaults(this.#definitions, this.#schema, obj);
    return obj;
  }
}
