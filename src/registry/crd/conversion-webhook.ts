// A CRD's conversion webhook (spec.conversion.strategy Webhook): objects are sent in a
// ConversionReview (apiextensions.k8s.io v1 or v1beta1, the first of the CRD's
// conversionReviewVersions Plinth speaks) and the converted objects checked as upstream's
// webhook converter checks them: the same uid (v1), a Success result, one object per object
// sent, each in the desired version with its kind, name, namespace and uid; of the rest of
// its metadata only labels and annotations may change, and the original's is restored.
// Errors read as upstream's ("conversion webhook for stable.example.com/v1, Kind=CronTab
// failed: ..."): clients and operators match on them.

import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../api/index.ts';
import { isObject } from '../../api/json.ts';
import { AgentPool, callWebhook, type ServiceResolver } from '../../admission/webhook-client.ts';
import { validateAnnotations, validateLabels } from '../validation/object-meta.ts';

/** Where the webhook is: spec.conversion.webhook of the CRD. */
export interface ConversionWebhookConfig {
  /** The CRD's name, for errors and logs. */
  crdName: string;
  url?: string;
  service?: { namespace: string; name: string; path?: string; port: number };
  /** PEM of clientConfig.caBundle; unset: the system's roots. */
  caPem?: string;
  /** spec.conversion.webhook.conversionReviewVersions, in the CRD's order of preference. */
  reviewVersions: string[];
}

/** The ConversionReview versions Plinth sends. */
const spokenReviewVersions = new Set(['v1', 'v1beta1']);

/**
 * The largest answer read: a review carries objects of at most ~1 MiB together (or one
 * larger object, up to the 3 MiB a request may write), and the converted objects may be
 * larger than the originals. Upstream's client reads any size.
 */
const maxResponseBytes = 64 * 1024 * 1024;

/** Upstream's conversion client waits this long (its `?timeout=30s`). */
const timeoutSeconds = 30;

/** spec.conversion of a stored CRD as a webhook's configuration; undefined unless its strategy is Webhook. */
export function conversionWebhookOf(crdName: string, conversion: unknown): ConversionWebhookConfig | undefined {
  if (!isObject(conversion) || conversion.strategy !== 'Webhook') return undefined;
  const webhook = isObject(conversion.webhook) ? conversion.webhook : {};
  const cc = isObject(webhook.clientConfig) ? webhook.clientConfig : {};
  const reviewVersions = Array.isArray(webhook.conversionReviewVersions) ? webhook.conversionReviewVersions.filter((v): v is string => typeof v === 'string') : [];
  const config: ConversionWebhookConfig = { crdName, reviewVersions };
  if (typeof cc.url === 'string') config.url = cc.url;
  if (isObject(cc.service)) {
    const svc = cc.service;
    config.service = {
      namespace: String(svc.namespace ?? ''),
      name: String(svc.name ?? ''),
      ...(typeof svc.path === 'string' ? { path: svc.path } : {}),
      port: typeof svc.port === 'number' ? svc.port : 443,
    };
  }
  if (typeof cc.caBundle === 'string' && cc.caBundle !== '') config.caPem = Buffer.from(cc.caBundle, 'base64').toString('utf8');
  return config;
}

/** Go's GroupVersionKind.String(): "group/version, Kind=Kind". */
function gvkString(obj: KubeObject | undefined): string {
  return `${obj?.apiVersion ?? ''}, Kind=${obj?.kind ?? ''}`;
}

function metaString(obj: Record<string, unknown>, field: string): string {
  const meta = obj.metadata;
  if (!isObject(meta)) return '';
  const value = meta[field];
  return typeof value === 'string' ? value : '';
}

/** Why a webhook's answer is not a conversion (the message after "conversion webhook for X failed: "). */
class ReviewError extends Error {}

/** The converted objects of a response, or a ReviewError naming what is wrong with it. */
export function convertedObjectsOf(reviewVersion: string, uid: string, body: unknown): unknown[] {
  if (!isObject(body)) throw new ReviewError('no response provided');
  if (reviewVersion === 'v1') {
    // A body that names another kind is refused; one naming none decodes as the kind asked for.
    const apiVersion = typeof body.apiVersion === 'string' ? body.apiVersion : 'apiextensions.k8s.io/v1';
    const kind = typeof body.kind === 'string' ? body.kind : 'ConversionReview';
    if (apiVersion !== 'apiextensions.k8s.io/v1' || kind !== 'ConversionReview') {
      throw new ReviewError(`expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${apiVersion}, Kind=${kind}`);
    }
  }
  const response = body.response;
  if (!isObject(response)) throw new ReviewError('no response provided');
  // v1beta1 answers were never checked for their uid, and still are not (upstream's compatibility).
  const got = typeof response.uid === 'string' ? response.uid : '';
  if (reviewVersion === 'v1' && got !== uid) throw new ReviewError(`expected response.uid="${uid}", got "${got}"`);
  const result = isObject(response.result) ? response.result : {};
  if (result.status !== 'Success') {
    if (typeof result.message === 'string' && result.message !== '') throw new ReviewError(result.message);
    throw new ReviewError(`response.result.status was '${typeof result.status === 'string' ? result.status : ''}', not 'Success'`);
  }
  return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
}

/**
 * Checks a converted object against the one sent and gives it the original's metadata with
 * the converted labels and annotations (upstream's validateConvertedObject and
 * restoreObjectMeta). Answers the reason it is refused, or undefined.
 */
export function restoreConverted(original: KubeObject, converted: Record<string, unknown>): { invalid: string } | { metadata: string } | undefined {
  for (const [field, name] of [['kind', 'kind'], ['name', 'name'], ['namespace', 'namespace'], ['uid', 'UID']] as const) {
    const want = field === 'kind' ? original.kind ?? '' : metaString(original, field);
    const got = field === 'kind' ? (typeof converted.kind === 'string' ? converted.kind : '') : metaString(converted, field);
    if (want !== got) return { invalid: `must have the same ${name}: ${want} != ${got}` };
  }
  const answered = converted.metadata;
  if (answered === undefined) return { metadata: 'missing metadata in converted object' };
  if (!isObject(answered)) return { metadata: `invalid metadata of type ${goTypeName(answered)} in converted object` };
  const restored: Record<string, unknown> = structuredClone(original.metadata) as Record<string, unknown>;
  for (const field of ['labels', 'annotations'] as const) {
    const value = answered[field];
    if (value === undefined || value === null) {
      delete restored[field];
      continue;
    }
    if (!isObject(value)) return { metadata: `invalid metadata.${field} of type ${goTypeName(value)} in converted object` };
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string') return { metadata: `metadata.${field}[${k}] must be a string, but is ${goTypeName(v)} in converted object` };
    }
    const causes = field === 'labels' ? validateLabels(value, 'metadata.labels') : validateAnnotations(value, 'metadata.annotation');
    if (causes.length > 0) return { metadata: aggregate(causes.map((c) => `${c.field}: ${c.message}`)) };
    restored[field] = value;
  }
  converted.metadata = restored;
  return undefined;
}

/** Go's errors.Aggregate text: one error as it is, several in brackets. */
function aggregate(messages: string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}

/** The Go type an unstructured value decodes to, as %T prints it. */
function goTypeName(value: unknown): string {
  if (value === null) return '<nil>';
  if (Array.isArray(value)) return '[]interface {}';
  switch (typeof value) {
    case 'string': return 'string';
    case 'boolean': return 'bool';
    case 'number': return Number.isInteger(value) ? 'int64' : 'float64';
    default: return 'map[string]interface {}';
  }
}

/** A conversion that failed; the message is upstream's. */
export class ConversionError extends Error {}

/** Upstream's failure types of a conversion webhook call (apiserver_conversion_webhook_request_total). */
export type ConversionFailureType =
  | 'conversion_webhook_call_failure'
  | 'conversion_webhook_malformed_response_failure'
  | 'conversion_webhook_partial_response_failure'
  | 'conversion_webhook_invalid_converted_object_failure';

/** One call of a conversion webhook, for the metrics. */
export interface ConversionObservation {
  crdName: string;
  /** The version of the objects sent and the one asked for (versions, without the group). */
  fromVersion: string;
  toVersion: string;
  seconds: number;
  /** '' when the conversion succeeded. */
  failureType: ConversionFailureType | '';
}

const versionOf = (apiVersion: string | undefined) => (apiVersion ?? '').slice((apiVersion ?? '').indexOf('/') + 1);

/** A ConversionError with its failure type for the metrics. */
class ConversionFailure extends ConversionError {
  readonly failureType: ConversionFailureType;

  constructor(failureType: ConversionFailureType, message: string) {
    super(message);
    this.failureType = failureType;
  }
}

/** Calls one CRD's conversion webhook. */
export class WebhookConverter {
  readonly #config: ConversionWebhookConfig;
  readonly #agents = new AgentPool();
  readonly #observe: ((o: ConversionObservation) => void) | undefined;
  readonly #resolveService: ServiceResolver | undefined;

  constructor(config: ConversionWebhookConfig, opts: { observe?: (o: ConversionObservation) => void; resolveService?: ServiceResolver } = {}) {
    this.#config = config;
    this.#observe = opts.observe;
    this.#resolveService = opts.resolveService;
  }

  /**
   * `objects` in `desiredAPIVersion`, in their order; those already in it are not sent.
   * `asList`: the objects are a list's items (upstream words a list's errors by index).
   * Throws ConversionError.
   */
  async convert(objects: KubeObject[], desiredAPIVersion: string, asList: boolean): Promise<KubeObject[]> {
    const sent = objects.filter((obj) => obj.apiVersion !== desiredAPIVersion);
    if (sent.length === 0) return objects;
    const reviewVersion = this.#config.reviewVersions.find((v) => spokenReviewVersions.has(v));
    if (reviewVersion === undefined) throw new ConversionError('no supported conversion review versions');
    const started = performance.now();
    let failureType: ConversionFailureType | '' = '';
    try {
      return await this.#call(objects, sent, desiredAPIVersion, reviewVersion, asList);
    } catch (err) {
      failureType = err instanceof ConversionFailure ? err.failureType : 'conversion_webhook_call_failure';
      throw err;
    } finally {
      this.#observe?.({
        crdName: this.#config.crdName,
        fromVersion: versionOf(sent[0]!.apiVersion),
        toVersion: versionOf(desiredAPIVersion),
        seconds: (performance.now() - started) / 1000,
        failureType,
      });
    }
  }

  async #call(objects: KubeObject[], sent: KubeObject[], desiredAPIVersion: string, reviewVersion: string, asList: boolean): Promise<KubeObject[]> {
    const what = gvkString(sent[0]);
    const fail = (type: ConversionFailureType, message: string) => new ConversionFailure(type, message);
    const uid = randomUUID();
    const review = {
      kind: 'ConversionReview',
      apiVersion: `apiextensions.k8s.io/${reviewVersion}`,
      request: { uid, desiredAPIVersion, objects: sent },
      response: { uid: '', convertedObjects: null, result: { metadata: {} } },
    };
    let body: unknown;
    try {
      body = await callWebhook(this.#config, review, { timeoutSeconds, maxResponseBytes, resolveService: this.#resolveService }, this.#agents);
    } catch (err) {
      throw fail('conversion_webhook_call_failure', `conversion webhook for ${what} failed: ${(err as Error).message}`);
    }
    let converted: unknown[];
    try {
      converted = convertedObjectsOf(reviewVersion, uid, body);
    } catch (err) {
      throw fail('conversion_webhook_malformed_response_failure', `conversion webhook for ${what} failed: ${(err as Error).message}`);
    }
    if (converted.length !== sent.length) throw fail('conversion_webhook_partial_response_failure', `conversion webhook for ${what} returned ${converted.length} objects, expected ${sent.length}`);
    const invalid = (message: string) => fail('conversion_webhook_invalid_converted_object_failure', message);
    const out: KubeObject[] = [];
    let next = 0;
    for (const original of objects) {
      if (original.apiVersion === desiredAPIVersion) {
        out.push(original);
        continue;
      }
      const at = next++;
      const item = converted[at];
      // Upstream counts a list's items from 1 past this point, and a single object's as 0.
      const index = asList ? `converted object at index ${at + 1}` : 'object at index 0';
      // Upstream decodes each as an unstructured object, which must name its kind.
      if (!isObject(item) || typeof item.kind !== 'string' || item.kind === '') {
        throw invalid(asList
          ? `conversion webhook for ${what} returned invalid converted object at index ${at}: Object 'Kind' is missing in '${JSON.stringify(item)}'`
          : `Object 'Kind' is missing in '${JSON.stringify(item)}'`);
      }
      const gotVersion = typeof item.apiVersion === 'string' ? item.apiVersion : '';
      if (gotVersion !== desiredAPIVersion) {
        throw invalid(`conversion webhook for ${what} returned invalid ${index}: invalid groupVersion (expected ${desiredAPIVersion}, received ${gotVersion})`);
      }
      const gotKind = typeof item.kind === 'string' ? item.kind : '';
      if (gotKind !== original.kind) {
        throw invalid(`conversion webhook for ${what} returned invalid ${index}: invalid kind (expected ${original.kind}, received ${gotKind})`);
      }
      const refused = restoreConverted(original, item);
      if (refused !== undefined) {
        if ('invalid' in refused) throw invalid(`conversion webhook for ${what} returned invalid ${asList ? `converted object at index ${at + 1}` : 'object'}: ${refused.invalid}`);
        throw invalid(`conversion webhook for ${what} returned invalid metadata${asList ? ` in object at index ${at + 1}` : ''}: ${refused.metadata}`);
      }
      out.push(item as KubeObject);
    }
    return out;
  }

  close(): void {
    this.#agents.close();
  }
}
