// PodSecurity admission (upstream's plugin/pkg/admission/security/podsecurity over
// k8s.io/pod-security-admission/admission, on by default): the Pod Security Standards a
// namespace's `pod-security.kubernetes.io/*` labels choose. Pods are refused by the enforce
// level and warned and audited by the others; pod controllers' templates are only warned
// and audited; a namespace's labels must be valid, and raising its enforce level warns of
// the existing pods that would not pass. Its configuration (configuration.ts) sets the policy
// of modes a namespace's labels leave unset and exempts namespaces, users and runtime
// classes; without one, every mode defaults to privileged:latest and nothing is exempt.
import { internalError, invalid, StatusError, type KubeObject, type StatusCause } from '../../api/index.ts';
import { goQuote } from '../../api/field-errors.ts';
import { deepEqual, type JsonObject } from '../../api/json.ts';
import { addAuditAnnotation, addWarning, currentRequest } from '../../api/request-context.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../chain.ts';
import { nameOf, objectAt, objects, stringAt, type PodMetadata, type Violation } from './check.ts';
import { defaultPodSecurityConfiguration, type PodSecurityConfiguration } from './configuration.ts';
import {
  aggregateMessage, compareLevels, equivalentPolicy, fullyPrivileged, labelPrefix, latestVersion, levelVersionString, policyToEvaluate, sameLevelVersion,
  type LevelVersion, type Policy,
} from './levels.ts';
import { evaluatePod, forbiddenDetail, forbiddenReason } from './registry.ts';

export interface PodSecuritySources {
  /** A namespace by name; undefined when there is none. */
  namespace(name: string): Promise<KubeObject | undefined>;
  /** The pods of a namespace. */
  pods(namespace: string): Promise<KubeObject[]>;
}

export const podSecurityPluginName = 'PodSecurity';

export {
  defaultPodSecurityConfiguration, parsePodSecurityConfiguration, type PodSecurityConfiguration, type PodSecurityExemptions,
} from './configuration.ts';

/**
 * Upstream's pod_security_* counters (k8s.io/pod-security-admission/metrics), labelled as
 * its recorder labels them: the operation in lower case, the resource `pod` for pods and
 * `controller` for anything else (upstream's `namespace` case names a resource that does not
 * exist, so namespaces count as controllers too), the subresource as requested.
 */
export interface PodSecurityMetrics {
  /** A policy evaluated: enforce allowing or denying, audit and warn denying. `version` is `latest`, `v1.N`, or `future` past this server's. */
  evaluation(labels: { decision: 'allow' | 'deny'; policy_level: string; policy_version: string; mode: 'enforce' | 'audit' | 'warn'; request_operation: string; resource: string; subresource: string }): void;
  /** A request exempt by namespace, user or runtime class. */
  exemption(labels: { request_operation: string; resource: string; subresource: string }): void;
  /** An error that kept the policy from being evaluated normally (`fatal`: not evaluated at all). */
  error(labels: { fatal: 'true' | 'false'; request_operation: string; resource: string; subresource: string }): void;
}

/** What the handlers share: where namespaces and pods come from, the configuration, the counters. */
interface PodSecurity {
  sources: PodSecuritySources;
  configuration: PodSecurityConfiguration;
  metrics: PodSecurityMetrics | undefined;
}

/** The minor version of the Pod Security Standards this server implements: policies of later versions count as `future`. */
const apiMinor = 36;

function requestLabels(attrs: AdmissionAttributes): { request_operation: string; resource: string; subresource: string } {
  return {
    request_operation: attrs.operation.toLowerCase(),
    resource: attrs.group === '' && attrs.resource === 'pods' ? 'pod' : 'controller',
    subresource: attrs.subresource,
  };
}

function recordEvaluation(ps: PodSecurity, attrs: AdmissionAttributes, decision: 'allow' | 'deny', lv: LevelVersion, mode: 'enforce' | 'audit' | 'warn'): void {
  if (ps.metrics === undefined) return;
  const version = lv.version.text === 'latest' ? 'latest' : lv.version.minor <= apiMinor ? lv.version.text : 'future';
  ps.metrics.evaluation({ decision, policy_level: lv.level, policy_version: version, mode, ...requestLabels(attrs) });
}

/** Pod subresources that cannot change what the checks read; any other (ephemeralcontainers, resize) is evaluated. */
const ignoredPodSubresources = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status']);

interface PodTemplate {
  metadata: PodMetadata;
  spec: JsonObject;
}

function template(value: JsonObject | undefined): PodTemplate {
  return { metadata: objectAt(value, 'metadata') ?? {}, spec: objectAt(value, 'spec') ?? {} };
}

/**
 * Each pod controller's pod template (upstream's DefaultPodSpecExtractor); undefined when
 * it has none (a ReplicationController's template is optional).
 */
const podTemplates: Record<string, (object: KubeObject) => PodTemplate | undefined> = {
  '/podtemplates': (o) => template(objectAt(o, 'template')),
  '/replicationcontrollers': (o) => {
    const value = objectAt(o, 'spec', 'template');
    return value === undefined ? undefined : template(value);
  },
  'apps/replicasets': (o) => template(objectAt(o, 'spec', 'template')),
  'apps/deployments': (o) => template(objectAt(o, 'spec', 'template')),
  'apps/statefulsets': (o) => template(objectAt(o, 'spec', 'template')),
  'apps/daemonsets': (o) => template(objectAt(o, 'spec', 'template')),
  'batch/jobs': (o) => template(objectAt(o, 'spec', 'template')),
  'batch/cronjobs': (o) => template(objectAt(o, 'spec', 'jobTemplate', 'spec', 'template')),
};

/** The plugin; `configuration` as parsePodSecurityConfiguration reads it, kube-apiserver's default without. */
export function podSecurityAdmission(sources: PodSecuritySources, configuration: PodSecurityConfiguration = defaultPodSecurityConfiguration, metrics?: PodSecurityMetrics): AdmissionPlugin {
  const ps: PodSecurity = { sources, configuration, metrics };
  return {
    name: podSecurityPluginName,
    validate(attrs) {
      // Upstream's handler takes creates and updates only. A pod controller's object is
      // read only once the namespace's policy asks for it, as upstream's: an apply decodes
      // the object it wrote only when someone reads it (Store.applyOffloaded).
      if (attrs.operation === 'DELETE') return undefined;
      const groupResource = `${attrs.group}/${attrs.resource}`;
      if (groupResource === '/namespaces') return attrs.subresource === '' && attrs.object !== undefined ? validateNamespace(ps, attrs) : undefined;
      if (groupResource === '/pods') return ignoredPodSubresources.has(attrs.subresource) || attrs.object === undefined ? undefined : validatePod(ps, attrs);
      const templateOf = podTemplates[groupResource];
      if (templateOf === undefined || attrs.subresource !== '') return undefined;
      return validatePodController(ps, attrs, templateOf);
    },
  };
}

// Upstream's exemption checks: an empty name is never exempt.
function exemptNamespace(ps: PodSecurity, namespace: string): boolean {
  return namespace !== '' && ps.configuration.exemptions.namespaces.includes(namespace);
}

/** The requesting user's name; in-process writes, with no request, have none. */
function exemptUser(ps: PodSecurity): boolean {
  const name = currentRequest()?.user.name ?? '';
  return name !== '' && ps.configuration.exemptions.usernames.includes(name);
}

function exemptRuntimeClass(ps: PodSecurity, spec: JsonObject): boolean {
  const runtimeClass = stringAt(spec, 'runtimeClassName');
  return runtimeClass !== '' && ps.configuration.exemptions.runtimeClasses.includes(runtimeClass);
}

/**
 * Upstream's exemptions for pods and pod controllers, checked before the namespace is read:
 * the namespace first, then the user, each audited as the reason. True when exempt.
 */
function exemptRequest(ps: PodSecurity, attrs: AdmissionAttributes): boolean {
  const reason = exemptNamespace(ps, attrs.namespace) ? 'namespace' : exemptUser(ps) ? 'user' : undefined;
  if (reason === undefined) return false;
  annotate('exempt', reason);
  ps.metrics?.exemption(requestLabels(attrs));
  return true;
}

/** Upstream prefixes its audit annotation keys with the label prefix. */
function annotate(key: string, value: string): void {
  addAuditAnnotation(labelPrefix + key, value);
}

/**
 * Namespace labels must parse (on update, only when they changed), and a stricter enforce
 * level warns of the existing pods it would refuse. Answers at once unless pods are checked.
 */
function validateNamespace(ps: PodSecurity, attrs: AdmissionAttributes): Promise<void> | undefined {
  const namespace = attrs.object!;
  const defaults = ps.configuration.defaults;
  const { policy, errors } = policyToEvaluate(namespace.metadata.labels, defaults);
  // kube-apiserver's admission attributes of a namespace name it as their namespace.
  const name = namespace.metadata.name ?? attrs.name;
  const warnIfExempt = () => {
    if (!exemptNamespace(ps, name)) return false;
    const warning = exemptNamespaceWarning(name, policy, defaults, namespace.metadata.labels ?? {});
    if (warning !== '') addWarning(warning);
    return true;
  };
  if (attrs.operation === 'CREATE') {
    if (errors.length > 0) throw invalid(attrs.kind, attrs.name, errors);
    warnIfExempt();
    return undefined;
  }
  const old = policyToEvaluate(attrs.oldObject?.metadata.labels, defaults);
  if (errors.length > 0 && (old.errors.length === 0 || !deepEqual(errors, old.errors))) throw invalid(attrs.kind, attrs.name, errors);
  const [enforce, oldEnforce] = [policy.enforce, old.policy.enforce];
  if (sameLevelVersion(enforce, oldEnforce) || enforce.level === 'privileged') return undefined;
  // Relaxed at the same version: nothing that passed before fails now.
  if (enforce.version.text === oldEnforce.version.text && compareLevels(enforce.level, oldEnforce.level) < 1) return undefined;
  if (warnIfExempt()) return undefined;
  return warnOfExistingPods(ps, name, enforce);
}

/**
 * Upstream's exemptNamespaceWarning: labelling an exempt namespace with a policy that is
 * neither fully privileged nor equivalent to the defaults warns that it will be ignored,
 * naming the non-privileged modes its labels set. Empty when there is nothing to say.
 */
function exemptNamespaceWarning(namespace: string, policy: Policy, defaults: Policy, labels: Record<string, string>): string {
  if (fullyPrivileged(policy) || equivalentPolicy(policy, defaults)) return '';
  const modes = (['enforce', 'audit', 'warn'] as const).filter((mode) =>
    policy[mode].level !== 'privileged' && (Object.hasOwn(labels, labelPrefix + mode) || Object.hasOwn(labels, `${labelPrefix}${mode}-version`)));
  const set = modes.map((mode) => `${mode}=${levelVersionString(policy[mode])}`).join(', ');
  return `namespace ${goQuote(namespace)} is exempt from Pod Security, and the policy (${set}) will be ignored`;
}

function validatePod(ps: PodSecurity, attrs: AdmissionAttributes): Promise<void> | undefined {
  return exemptRequest(ps, attrs) ? undefined : evaluatePodRequest(ps, attrs);
}

async function evaluatePodRequest(ps: PodSecurity, attrs: AdmissionAttributes): Promise<void> {
  const namespace = await ps.sources.namespace(attrs.namespace);
  if (namespace === undefined) {
    ps.metrics?.error({ fatal: 'true', ...requestLabels(attrs) });
    const error = internalError(`failed to lookup namespace ${goQuote(attrs.namespace)}`);
    annotate('error', `${error.message}: namespaces ${goQuote(attrs.namespace)} not found`);
    throw error;
  }
  const { policy, errors } = policyToEvaluate(namespace.metadata.labels, ps.configuration.defaults);
  if (errors.length === 0 && fullyPrivileged(policy)) {
    annotate('enforce-policy', levelVersionString({ level: 'privileged', version: latestVersion }));
    return;
  }
  const pod = attrs.object!;
  if (attrs.operation === 'UPDATE' && attrs.oldObject !== undefined && !significantPodUpdate(pod, attrs.oldObject)) return;
  evaluate(ps, attrs, policy, aggregateOf(errors), { metadata: pod.metadata, spec: objectAt(pod, 'spec') ?? {} }, true);
}

type TemplateOf = (object: KubeObject) => PodTemplate | undefined;

function validatePodController(ps: PodSecurity, attrs: AdmissionAttributes, templateOf: TemplateOf): Promise<void> | undefined {
  return exemptRequest(ps, attrs) ? undefined : evaluatePodController(ps, attrs, templateOf);
}

async function evaluatePodController(ps: PodSecurity, attrs: AdmissionAttributes, templateOf: TemplateOf): Promise<void> {
  const namespace = await ps.sources.namespace(attrs.namespace);
  if (namespace === undefined) {
    ps.metrics?.error({ fatal: 'true', ...requestLabels(attrs) });
    annotate('error', `failed to lookup namespace ${goQuote(attrs.namespace)}: namespaces ${goQuote(attrs.namespace)} not found`);
    return;
  }
  const { policy, errors } = policyToEvaluate(namespace.metadata.labels, ps.configuration.defaults);
  if (errors.length === 0 && policy.warn.level === 'privileged' && policy.audit.level === 'privileged') return;
  const object = attrs.object;
  const podTemplate = object === undefined ? undefined : templateOf(object);
  if (podTemplate !== undefined) evaluate(ps, attrs, policy, aggregateOf(errors), podTemplate, false);
}

function aggregateOf(errors: readonly StatusCause[]): string | undefined {
  return errors.length === 0 ? undefined : aggregateMessage(errors);
}

/**
 * Upstream's EvaluatePod: a pod with an exempt runtime class passes, audited as such;
 * otherwise enforce (for pods only) refuses, audit annotates, warn warns when the request
 * is not refused anyway. A level and version evaluated once serves every mode.
 */
function evaluate(ps: PodSecurity, attrs: AdmissionAttributes, policy: Policy, policyError: string | undefined, pod: PodTemplate, enforce: boolean): void {
  if (exemptRuntimeClass(ps, pod.spec)) {
    annotate('exempt', 'runtimeClass');
    ps.metrics?.exemption(requestLabels(attrs));
    return;
  }
  if (policyError !== undefined) {
    annotate('error', `Failed to parse policy: ${policyError}`);
    ps.metrics?.error({ fatal: 'false', ...requestLabels(attrs) });
  }
  const results = new Map<string, Violation[]>();
  const violationsOf = (lv: LevelVersion) => {
    const key = levelVersionString(lv);
    let violations = results.get(key);
    if (violations === undefined) {
      violations = evaluatePod(lv, pod.metadata, pod.spec);
      results.set(key, violations);
    }
    return violations;
  };
  let refusal: StatusError | undefined;
  if (enforce) {
    annotate('enforce-policy', levelVersionString(policy.enforce));
    const violations = violationsOf(policy.enforce);
    if (violations.length > 0) refusal = forbidden(attrs, `violates PodSecurity ${goQuote(levelVersionString(policy.enforce))}: ${forbiddenDetail(violations)}`);
    recordEvaluation(ps, attrs, refusal === undefined ? 'allow' : 'deny', policy.enforce, 'enforce');
  }
  const audited = violationsOf(policy.audit);
  if (audited.length > 0) {
    annotate('audit-violations', `would violate PodSecurity ${goQuote(levelVersionString(policy.audit))}: ${forbiddenDetail(audited)}`);
    recordEvaluation(ps, attrs, 'deny', policy.audit, 'audit');
  }
  if (refusal !== undefined) throw refusal;
  const warned = violationsOf(policy.warn);
  if (warned.length > 0) {
    addWarning(`would violate PodSecurity ${goQuote(levelVersionString(policy.warn))}: ${forbiddenDetail(warned)}`);
    recordEvaluation(ps, attrs, 'deny', policy.warn, 'warn');
  }
}

/** apimachinery's NewForbidden for the request's resource and name. */
function forbidden(attrs: AdmissionAttributes, message: string): StatusError {
  const resource = attrs.group === '' ? attrs.resource : `${attrs.resource}.${attrs.group}`;
  const subject = attrs.name === '' ? resource : `${resource} ${goQuote(attrs.name)}`;
  return new StatusError(403, 'Forbidden', `${subject} is forbidden: ${message}`, {
    kind: attrs.resource, ...(attrs.name === '' ? {} : { name: attrs.name }), ...(attrs.group === '' ? {} : { group: attrs.group }),
  });
}

const seccompContainerAnnotationPrefix = 'container.seccomp.security.alpha.kubernetes.io/';

/**
 * Upstream's isSignificantPodUpdate: of a pod's spec only images (and the containers added)
 * may change after creation, so any other update is not evaluated again.
 */
function significantPodUpdate(pod: KubeObject, oldPod: KubeObject): boolean {
  const annotations = pod.metadata.annotations ?? {};
  const oldAnnotations = oldPod.metadata.annotations ?? {};
  const significant = (container: JsonObject, old: JsonObject) => {
    if (stringAt(container, 'image') !== stringAt(old, 'image')) return true;
    const seccompKey = seccompContainerAnnotationPrefix + nameOf(container);
    return (annotations[seccompKey] ?? '') !== (oldAnnotations[seccompKey] ?? '');
  };
  for (const field of ['containers', 'initContainers']) {
    const containers = objects(objectAt(pod, 'spec')?.[field]);
    const oldContainers = objects(objectAt(oldPod, 'spec')?.[field]);
    if (containers.length !== oldContainers.length || containers.some((c, i) => significant(c, oldContainers[i]!))) return true;
  }
  const oldEphemeral = objects(objectAt(oldPod, 'spec')?.ephemeralContainers);
  return objects(objectAt(pod, 'spec')?.ephemeralContainers).some((c) => {
    const old = oldEphemeral.find((o) => nameOf(o) === nameOf(c));
    return old === undefined || significant(c, old);
  });
}

// Upstream's limits on checking a namespace's pods when its enforce level is raised.
const maxPodsToCheck = 3000;
const podCheckBudgetMs = 1000;

async function warnOfExistingPods(ps: PodSecurity, namespace: string, enforce: LevelVersion): Promise<void> {
  for (const warning of await existingPodWarnings(ps, namespace, enforce)) addWarning(warning);
}

/** Upstream's EvaluatePodsInNamespace: one warning per distinct set of violations, naming the first pod. */
async function existingPodWarnings(ps: PodSecurity, namespace: string, enforce: LevelVersion): Promise<string[]> {
  const deadline = performance.now() + podCheckBudgetMs;
  let pods: KubeObject[];
  try {
    pods = await ps.sources.pods(namespace);
  } catch {
    return ['failed to list pods while checking new PodSecurity enforce level'];
  }
  const prioritized = prioritizePods(ps, pods);
  const total = prioritized.length;
  const toCheck = prioritized.slice(0, maxPodsToCheck);
  let checked = toCheck.length;
  const byReason = new Map<string, { podName: string; count: number }>();
  for (const [i, pod] of toCheck.entries()) {
    const violations = evaluatePod(enforce, pod.metadata, objectAt(pod, 'spec') ?? {});
    if (violations.length > 0) {
      const reason = forbiddenReason(violations);
      const name = pod.metadata.name ?? '';
      const seen = byReason.get(reason);
      if (seen === undefined) byReason.set(reason, { podName: name, count: 1 });
      else byReason.set(reason, { podName: name < seen.podName ? name : seen.podName, count: seen.count + 1 });
    }
    if (performance.now() > deadline) {
      checked = i + 1;
      break;
    }
  }
  const warnings: string[] = [];
  if (checked < total) warnings.push(`new PodSecurity enforce level only checked against the first ${checked} of ${total} existing pods`);
  if (byReason.size > 0) warnings.push(`existing pods in namespace ${goQuote(namespace)} violate the new PodSecurity enforce level ${goQuote(levelVersionString(enforce))}`);
  const podWarnings = [...byReason].map(([reason, { podName, count }]) => {
    if (count === 1) return `${podName}: ${reason}`;
    return `${podName} (and ${count - 1} other ${count === 2 ? 'pod' : 'pods'}): ${reason}`;
  });
  return [...warnings, ...podWarnings.sort()];
}

/**
 * Pods without a controller and one pod per controller first, then the other replicas;
 * pods of an exempt runtime class are not checked (nor counted).
 */
function prioritizePods(ps: PodSecurity, pods: readonly KubeObject[]): KubeObject[] {
  const first: KubeObject[] = [];
  const replicas: KubeObject[] = [];
  const controllers = new Set<string>();
  for (const pod of pods) {
    if (exemptRuntimeClass(ps, objectAt(pod, 'spec') ?? {})) continue;
    const controller = pod.metadata.ownerReferences?.find((ref) => ref.controller === true);
    if (controller === undefined) first.push(pod);
    else if (controllers.has(controller.uid)) replicas.push(pod);
    else {
      controllers.add(controller.uid);
      first.push(pod);
    }
  }
  return [...first, ...replicas];
}
