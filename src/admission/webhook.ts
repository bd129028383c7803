// The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins: call the webhooks
// of admissionregistration.k8s.io/v1 configurations with AdmissionReviews, and note the
// calls in the request's audit event, after
// apiserver/pkg/admission/plugin/webhook/{mutating,validating}/dispatcher.go.

import { randomUUID } from 'node:crypto';
import { badRequest, forbidden, internalError, type KubeObject } from '../api/index.ts';
import { addWarning, auditedRequest, currentRequest, requestTimeLeft, type RequestUser } from '../api/request-context.ts';
import { goJson } from '../api/field-errors.ts';
import { deepEqual, isObject } from '../api/json.ts';
import { noAuthorizer, type Authorize } from '../cel/authz.ts';
import { loadCel } from '../cel/lazy.ts';
import { applyJsonPatch } from '../patch/index.ts';
import { addAdmissionAnnotation, reinvocationOf, type AdmissionAttributes, type AdmissionPlugin } from './chain.ts';
import { AgentPool, callWebhook, WebhookCallError, type ServiceResolver } from './webhook-client.ts';
import { admissionReview, InvalidResponseError, patchAnnotationJson, refusal, reviewVersionFor, verifyResponse } from './webhook-review.ts';
import { isExemptFromWebhooks, orderedWebhooks, shouldCall, type MatchContext, type Webhook, type WebhookKind } from './webhook-rules.ts';
import { takeMutation, versionedAttributes, type Equivalents } from './equivalents.ts';

/** Where the stored configurations of one kind come from (their Store, through its watch cache). */
export interface WebhookConfigurationSource {
  /** The configurations at once when known (a synced informer), else once read. */
  list(): KubeObject[] | Promise<KubeObject[]>;
}

export interface WebhookAdmissionOptions {
  mutating: WebhookConfigurationSource;
  validating: WebhookConfigurationSource;
  /** A namespace's labels, or undefined when it does not exist (namespaceSelector). */
  namespaceLabels(name: string): Promise<Record<string, string> | undefined>;
  /** The server's authorizer, which match conditions' `authorizer` asks. */
  authorize?: Authorize;
  /** Where a webhook named by a service is called (a ready endpoint of the service). */
  resolveService?: ServiceResolver;
  /** The resources stored with a request's and conversion between them, for matchPolicy Equivalent. */
  equivalents?: Equivalents;
  log(message: string): void;
}

/** Who in-process callers (controllers) are, as upstream's loopback client is. */
const apiserverUser: RequestUser = { name: 'system:apiserver', uid: '', groups: ['system:authenticated', 'system:masters'] };

const noSideEffects = ['None', 'NoneOnDryRun'];

/**
 * Where a call stands in its phase, as its audit annotations' keys name it
 * (`round_<round>_index_<index>`): a mutating webhook's round is 1 when the phase runs
 * again (reinvocation) and its index its place among all mutating webhooks; a validating
 * webhook's round is 0 and its index its place among those the request is sent to.
 */
interface CallPosition {
  round: number;
  index: number;
}

/** Upstream's annotation prefixes (mutating/dispatcher.go, validating/dispatcher.go). */
const mutationAnnotationPrefix = 'mutation.webhook.admission.k8s.io/';
const patchAnnotationPrefix = 'patch.webhook.admission.k8s.io/';
const failedOpenPrefix = { mutating: `failed-open.${mutationAnnotationPrefix}`, validating: 'failed-open.validating.webhook.admission.k8s.io/' };

/** A failure to get a usable answer from a webhook (ErrCallingWebhook): failurePolicy decides what it does. */
class CallingWebhookError extends Error {
  constructor(webhookName: string, reason: string) {
    super(`failed calling webhook "${webhookName}": ${reason}`);
  }
}

/**
 * Both webhook plugins over one set of configuration sources and connections. Put
 * `mutating` where upstream's MutatingAdmissionWebhook runs (after the built-in mutating
 * plugins) and `validating` last; call close() when the server stops.
 */
export class WebhookAdmission {
  readonly mutating: AdmissionPlugin;
  readonly validating: AdmissionPlugin;
  private readonly opts: WebhookAdmissionOptions;
  private readonly agents = new AgentPool();
  private readonly compiled = new Map<WebhookKind, { key: string; hooks: Webhook[] }>();

  constructor(opts: WebhookAdmissionOptions) {
    this.opts = opts;
    const match: MatchContext = {
      namespaceLabels: (name) => opts.namespaceLabels(name),
      ...(opts.equivalents !== undefined ? { equivalents: opts.equivalents } : {}),
    };
    // No promise for a write no webhook can see: an exempt one, or none configured (known at once).
    const configurations = (attrs: AdmissionAttributes, source: WebhookConfigurationSource) => {
      if (isExemptFromWebhooks(attrs)) return undefined;
      const configs = source.list();
      return Array.isArray(configs) && configs.length === 0 ? undefined : configs;
    };
    this.mutating = {
      name: 'MutatingAdmissionWebhook',
      admit: (attrs) => {
        const configs = configurations(attrs, opts.mutating);
        return configs === undefined ? undefined : this.admit(attrs, match, configs);
      },
      observesMutating: (attrs) => configurations(attrs, opts.mutating) !== undefined,
    };
    this.validating = {
      name: 'ValidatingAdmissionWebhook',
      validate: (attrs) => {
        const configs = configurations(attrs, opts.validating);
        return configs === undefined ? undefined : this.validate(attrs, match, configs);
      },
    };
  }

  close(): void {
    this.agents.close();
  }

  /** The webhooks of one kind in calling order; recompiled only when a configuration changed. */
  private async hooks(kind: WebhookKind, pending: KubeObject[] | Promise<KubeObject[]>): Promise<Webhook[]> {
    const configs = await pending;
    const key = configs.map((c) => `${c.metadata.uid}@${c.metadata.resourceVersion}`).sort().join(',');
    const cached = this.compiled.get(kind);
    if (cached !== undefined && cached.key === key) return cached.hooks;
    const hooks = orderedWebhooks(configs, kind);
    this.compiled.set(kind, { key, hooks });
    return hooks;
  }

  /**
   * The mutating webhooks in order. One that changes the object makes the chain run the
   * mutating phase again, where the webhooks asking to be called again (reinvocationPolicy
   * IfNeeded) that ran before a change are, once; all of them if something else changed the
   * object after the last webhook.
   */
  private async admit(attrs: AdmissionAttributes, match: MatchContext, configs: KubeObject[] | Promise<KubeObject[]>): Promise<void> {
    const hooks = await this.hooks('mutating', configs);
    if (hooks.length === 0) return;
    const reinvocation = reinvocationOf(attrs);
    const record = reinvocation.record('MutatingAdmissionWebhook');
    if (reinvocation.again && record.changedSince(attrs.object)) record.changed();
    const round = reinvocation.again ? 1 : 0;
    for (const [index, hook] of hooks.entries()) {
      const key = `${hook.configurationName}\0${hook.name}`;
      if (reinvocation.again && !record.runsAgain(key)) continue;
      const sent = await this.shouldSend(hook, attrs, match);
      if (sent === undefined) continue;
      if (await this.callFailingPerPolicy(hook, sent, true, { round, index })) {
        if (sent !== attrs) await takeMutation(sent, attrs, this.opts.equivalents!);
        record.changed();
        reinvocation.requested = true;
      }
      if (hook.reinvocationPolicy === 'IfNeeded') record.invoked(key);
    }
    record.left(attrs.object);
  }

  private async validate(attrs: AdmissionAttributes, match: MatchContext, configs: KubeObject[] | Promise<KubeObject[]>): Promise<void> {
    const hooks = await this.hooks('validating', configs);
    if (hooks.length === 0) return;
    const relevant: Array<{ hook: Webhook; sent: AdmissionAttributes }> = [];
    for (const hook of hooks) {
      const sent = await this.shouldSend(hook, attrs, match);
      if (sent !== undefined) relevant.push({ hook, sent });
    }
    // Validating webhooks run in parallel; the first error (in calling order) is the answer.
    const results = await Promise.allSettled(relevant.map(({ hook, sent }, index) => this.callFailingPerPolicy(hook, sent, false, { round: 0, index })));
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  }

  /**
   * Whether the request goes to the webhook: its rules and selectors match, and then its
   * matchConditions are all true. A condition that fails to evaluate fails the request
   * (403, as upstream's dispatcher) under failurePolicy Fail and skips the webhook under Ignore.
   */
  private async shouldSend(hook: Webhook, request: AdmissionAttributes, match: MatchContext): Promise<AdmissionAttributes | undefined> {
    const invocation = await shouldCall(hook, request, match);
    if (invocation === false) return undefined;
    const attrs = invocation.equivalent === undefined ? request : await versionedAttributes(request, invocation.equivalent, this.opts.equivalents!);
    if (hook.matchConditions.length === 0) return attrs;
    const { evaluateMatchConditions, celValue, CelAuthorizer } = await loadCel();
    const user = currentRequest()?.user ?? apiserverUser;
    const review = (admissionReview('v1', '', attrs, user) as { request: unknown }).request;
    const outcome = await evaluateMatchConditions(hook.matchConditions, {
      object: attrs.object === undefined ? null : celValue(attrs.object, undefined),
      oldObject: attrs.oldObject === undefined ? null : celValue(attrs.oldObject, undefined),
      request: celValue(review, undefined),
      authorizer: new CelAuthorizer(user, this.opts.authorize ?? noAuthorizer, {
        group: attrs.group, resource: attrs.resource, subresource: attrs.subresource, namespace: attrs.namespace, name: attrs.name,
      }),
    });
    if ('error' in outcome) {
      if (hook.failurePolicy === 'Ignore') return undefined;
      this.opts.log(`Failed evaluating match conditions, failing closed ${hook.name}: ${outcome.error}`);
      const resource = request.group === '' ? request.resource : `${request.resource}.${request.group}`;
      throw forbidden(`${resource} "${request.name}" is forbidden: ${outcome.error}`);
    }
    return outcome.matches ? attrs : undefined;
  }

  /**
   * Calls one webhook. A refusal, or a dry run the webhook cannot take, fails the request;
   * a failed call fails it with 500 under failurePolicy Fail and is logged and skipped
   * under Ignore. Answers whether a mutating webhook changed the object.
   *
   * An audited request's event notes, as upstream's dispatchers do, every call of a mutating
   * webhook (whether it changed the object), a call that failed open, and (call) the patch
   * applied and the webhook's own auditAnnotations.
   */
  private async callFailingPerPolicy(hook: Webhook, attrs: AdmissionAttributes, mutating: boolean, position: CallPosition): Promise<boolean> {
    const audited = auditedRequest();
    const at = `round_${position.round}_index_${position.index}`;
    let mutated = false;
    try {
      if (attrs.dryRun && !noSideEffects.includes(hook.sideEffects)) {
        throw badRequest(`admission webhook "${hook.name}" does not support dry run`);
      }
      mutated = await this.call(hook, attrs, mutating, audited ? at : undefined);
      return mutated;
    } catch (err) {
      if (!(err instanceof CallingWebhookError)) throw err;
      if (hook.failurePolicy === 'Ignore') {
        this.opts.log(`Failed calling webhook, failing open ${hook.name}: ${err.message}`);
        if (audited) this.annotate(hook, `${failedOpenPrefix[mutating ? 'mutating' : 'validating']}${at}`, hook.name);
        return false;
      }
      this.opts.log(`Failed calling webhook, failing closed ${hook.name}: ${err.message}`);
      throw internalError(err.message);
    } finally {
      // Upstream's MutationAuditAnnotation, its fields in order; mutated is false for a call that failed.
      if (audited && mutating) {
        this.annotate(hook, `${mutationAnnotationPrefix}${at}`, goJson({ configuration: hook.configurationName, webhook: hook.name, mutated }).text);
      }
    }
  }

  /** Adds an admission annotation to the request's audit event; one refused (a bad key) is logged, as upstream's dispatchers do. */
  private annotate(hook: Webhook, key: string, value: string, level?: 'Request'): void {
    const refused = addAdmissionAnnotation(key, value, level);
    if (refused !== undefined) this.opts.log(`Failed to set admission audit annotation ${key} to ${value} for ${hook.kind} webhook ${hook.name}: ${refused}`);
  }

  /** `annotated`: the key suffix of the call's audit annotations, when the request is audited. */
  private async call(hook: Webhook, attrs: AdmissionAttributes, mutating: boolean, annotated: string | undefined): Promise<boolean> {
    const version = reviewVersionFor(hook.admissionReviewVersions);
    if (version === undefined) throw new CallingWebhookError(hook.name, 'webhook does not accept known AdmissionReview versions (v1, v1beta1)');
    const uid = randomUUID();
    const review = admissionReview(version, uid, attrs, currentRequest()?.user ?? apiserverUser);
    let body: unknown;
    try {
      body = await callWebhook(hook.clientConfig, review, { ...callTimeout(hook.timeoutSeconds), resolveService: this.opts.resolveService }, this.agents);
    } catch (err) {
      if (err instanceof WebhookCallError) throw new CallingWebhookError(hook.name, `failed to call webhook: ${err.message}`);
      throw err;
    }
    let result;
    try {
      result = verifyResponse(version, uid, mutating, body);
    } catch (err) {
      if (err instanceof InvalidResponseError) throw new CallingWebhookError(hook.name, err.message);
      throw err;
    }
    // The webhook's own annotations, whether it allowed the request or not.
    if (annotated !== undefined) {
      for (const [key, value] of Object.entries(result.auditAnnotations)) this.annotate(hook, `${hook.name}/${key}`, value);
    }
    for (const warning of result.warnings) addWarning(warning);
    if (!result.allowed) throw refusal(hook.name, result.result);
    if (!mutating || result.patch === undefined || (Array.isArray(result.patch) && result.patch.length === 0)) return false;
    const changed = applyPatch(hook, attrs, result.patch);
    // Upstream's PatchAuditAnnotation for a patch applied (whether or not it changed the object),
    // kept by events of the Request levels only: it shows what the request's body became.
    if (annotated !== undefined) {
      const value = `{"configuration":${goJson(hook.configurationName).text},"webhook":${goJson(hook.name).text},"patch":${patchAnnotationJson(result.patchText!)},"patchType":"JSONPatch"}`;
      this.annotate(hook, `${patchAnnotationPrefix}${annotated}`, value, 'Request');
    }
    return changed;
  }
}

/**
 * Applies a mutating webhook's JSON Patch to the object in place (the Store keeps using
 * the same object). Answers whether it changed.
 */
function applyPatch(hook: Webhook, attrs: AdmissionAttributes, patch: unknown): boolean {
  const obj = attrs.object;
  if (obj === undefined) {
    throw internalError(`admission webhook "${hook.name}" attempted to modify the object, which is not supported for this operation`);
  }
  let patched: unknown;
  try {
    patched = applyJsonPatch(obj, patch);
  } catch (err) {
    throw internalError((err as Error).message);
  }
  if (!isObject(patched) || typeof patched.metadata !== 'object' || patched.metadata === null) {
    throw internalError(`admission webhook "${hook.name}" returned a patch that leaves no object`);
  }
  const next = patched as KubeObject;
  if (next.apiVersion !== obj.apiVersion || next.kind !== obj.kind) {
    throw internalError(`admission webhook "${hook.name}" attempted to change the object's apiVersion or kind`);
  }
  if (deepEqual(obj, next)) return false;
  for (const key of Object.keys(obj)) delete (obj as Record<string, unknown>)[key];
  Object.assign(obj, next);
  attrs.mutated = true;
  return true;
}

/**
 * How long a call may take: the webhook's timeoutSeconds, or what is left of the request's
 * deadline when that is sooner, as upstream's call runs in the request's context; the
 * `timeout` the webhook is told is that, rounded up to whole seconds (client-go's).
 */
function callTimeout(timeoutSeconds: number): { timeoutSeconds: number; timeoutMs: number } {
  const left = requestTimeLeft();
  if (left === undefined || left >= timeoutSeconds * 1000) return { timeoutSeconds, timeoutMs: timeoutSeconds * 1000 };
  const ms = Math.max(0, Math.ceil(left));
  return { timeoutSeconds: Math.ceil(ms / 1000), timeoutMs: ms };
}
