// admissionregistration.k8s.io/v1 mutatingwebhookconfigurations and
// validatingwebhookconfigurations, after kubernetes pkg/apis/admissionregistration/v1/defaults.go,
// pkg/apis/admissionregistration/validation and pkg/registry/admissionregistration.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { ageColumn, column, nameColumn } from '../table-columns.ts';
import { appendAll, duplicate, invalid, notSupported, required } from '../validation/field.ts';
import { isDNS1123Subdomain } from '../validation/names.ts';
import { validateReviewVersionList, validateWebhookService, validateWebhookURL } from '../validation/webhook-client.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import { checkEnum, defaultPointer, failurePolicies, matchPolicies, reinvocationPolicies, staticSuffixWarnings, strings, validateMatchConditions, validateRule } from './admission-rules.ts';
import { arrayAt, objectAt, objectsAt, semanticEqual, stringAt } from './object.ts';
import { validateLabelSelector } from './selector-validation.ts';
import { builtinType } from './skeleton.ts';

type WebhookKind = 'mutating' | 'validating';

const acceptedReviewVersions = ['v1', 'v1beta1'];
const sideEffectClasses = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const noSideEffectClasses = ['None', 'NoneOnDryRun'];

/** SetDefaults_MutatingWebhook / SetDefaults_ValidatingWebhook, SetDefaults_Rule, SetDefaults_ServiceReference. */
function defaultWebhook(hook: JsonObject, kind: WebhookKind): void {
  // All pointers in Go: an explicit "" is kept, and refused by validation.
  defaultPointer(hook, 'failurePolicy', 'Fail');
  defaultPointer(hook, 'matchPolicy', 'Equivalent');
  if (!isObject(hook.namespaceSelector)) hook.namespaceSelector = {};
  if (!isObject(hook.objectSelector)) hook.objectSelector = {};
  defaultPointer(hook, 'timeoutSeconds', 10);
  if (kind === 'mutating') defaultPointer(hook, 'reinvocationPolicy', 'Never');
  for (const rule of objectsAt(hook, 'rules')) defaultPointer(rule, 'scope', '*');
  const service = objectAt(objectAt(hook, 'clientConfig'), 'service');
  if (service !== undefined) defaultPointer(service, 'port', 443);
}

function defaultConfiguration(obj: KubeObject, kind: WebhookKind): void {
  for (const hook of objectsAt(obj, 'webhooks')) defaultWebhook(hook, kind);
}

/** IsFullyQualifiedName: a DNS subdomain of at least three segments. */
function validateFullyQualifiedName(name: string, path: string): StatusCause[] {
  if (name === '') return [required(path)];
  const errs = isDNS1123Subdomain(name);
  if (errs.length > 0) return [invalid(path, name, errs.join(','))];
  if (name.split('.').length < 3) return [invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

/** validateAdmissionReviewVersions. */
function validateReviewVersions(versions: unknown, path: string, requireRecognized: boolean): StatusCause[] {
  const list = strings(versions);
  if (list.length === 0) return [required(path, `must specify one of ${acceptedReviewVersions.join(', ')}`)];
  return validateReviewVersionList(list, path, acceptedReviewVersions, requireRecognized);
}

interface ValidationOptions {
  requireNoSideEffects: boolean;
  requireRecognizedReviewVersion: boolean;
  requireUniqueNames: boolean;
}

function validateWebhook(hook: JsonObject, kind: WebhookKind, opts: ValidationOptions, path: string): StatusCause[] {
  const causes = validateFullyQualifiedName(stringAt(hook, 'name'), `${path}.name`);
  objectsAt(hook, 'rules').forEach((rule, i) => appendAll(causes, validateRule(rule, `${path}.rules[${i}]`)));
  appendAll(causes, checkEnum(hook.failurePolicy, failurePolicies, `${path}.failurePolicy`));
  appendAll(causes, checkEnum(hook.matchPolicy, matchPolicies, `${path}.matchPolicy`));
  const allowedSideEffects = opts.requireNoSideEffects ? noSideEffectClasses : sideEffectClasses;
  if (hook.sideEffects === undefined || hook.sideEffects === null) causes.push(required(`${path}.sideEffects`, `must specify one of ${allowedSideEffects.join(', ')}`));
  else if (!allowedSideEffects.includes(String(hook.sideEffects))) causes.push(notSupported(`${path}.sideEffects`, hook.sideEffects, allowedSideEffects));
  const timeout = hook.timeoutSeconds;
  if (typeof timeout === 'number' && (timeout > 30 || timeout < 1)) causes.push(invalid(`${path}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds'));
  for (const selector of ['namespaceSelector', 'objectSelector']) {
    const sel = objectAt(hook, selector);
    if (sel !== undefined) appendAll(causes, validateLabelSelector(sel, `${path}.${selector}`));
  }
  if (kind === 'mutating') appendAll(causes, checkEnum(hook.reinvocationPolicy, reinvocationPolicies, `${path}.reinvocationPolicy`));
  const cc = objectAt(hook, 'clientConfig') ?? {};
  const hasURL = typeof cc.url === 'string';
  const service = objectAt(cc, 'service');
  if (hasURL === (service !== undefined)) causes.push(required(`${path}.clientConfig`, 'exactly one of url or service is required'));
  else if (hasURL) appendAll(causes, validateWebhookURL(cc.url as string, `${path}.clientConfig.url`));
  else appendAll(causes, validateWebhookService(service!, `${path}.clientConfig.service`));
  appendAll(causes, validateMatchConditions(objectsAt(hook, 'matchConditions'), `${path}.matchConditions`));
  return causes;
}

function validateConfiguration(obj: KubeObject, kind: WebhookKind, opts: ValidationOptions): StatusCause[] {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  objectsAt(obj, 'webhooks').forEach((hook, i) => {
    const path = `webhooks[${i}]`;
    appendAll(causes, validateWebhook(hook, kind, opts, path));
    appendAll(causes, validateReviewVersions(hook.admissionReviewVersions, `${path}.admissionReviewVersions`, opts.requireRecognizedReviewVersion));
    const name = stringAt(hook, 'name');
    if (opts.requireUniqueNames && name !== '') {
      if (names.has(name)) causes.push(duplicate(`${path}.name`, name));
      names.add(name);
    }
  });
  return causes;
}

/**
 * Upstream relaxes on update the rules a stored configuration already breaks (written by
 * an older server); every configuration Plinth stores passed them, so they always apply.
 */
const strict: ValidationOptions = { requireNoSideEffects: true, requireRecognizedReviewVersion: true, requireUniqueNames: true };

function strategy(kind: WebhookKind): Strategy {
  return {
    defaults(obj) {
      defaultConfiguration(obj, kind);
    },
    prepareForCreate(obj) {
      obj.metadata.generation = 1;
    },
    prepareForUpdate(obj, old) {
      const generation = old.metadata.generation ?? 0;
      obj.metadata.generation = semanticEqual(obj.webhooks, old.webhooks) ? generation : generation + 1;
    },
    validate(obj) {
      return validateConfiguration(obj, kind, strict);
    },
    warningsOnCreate: staticSuffixWarnings,
    warningsOnUpdate: staticSuffixWarnings,
  };
}

function webhookCount(obj: KubeObject): number {
  return arrayAt(obj, 'webhooks').length;
}

function configurationType(kind: WebhookKind): ResourceType {
  return builtinType('admissionregistration.k8s.io', 'v1', `${kind}webhookconfigurations`, {
    strategy: strategy(kind),
    // Match conditions are compiled when a configuration is written (admission-rules.ts).
    strategyUsesCel: true,
    allowCreateOnUpdate: false,
    // A PUT must name the resourceVersion it replaces (upstream's strategies: AllowUnconditionalUpdate false).
    allowUnconditionalUpdate: false,
    deleteReturnsObject: false,
    nameRule: 'dns1123-subdomain',
    // pkg/printers/internalversion: printMutatingWebhook / printValidatingWebhook.
    tableColumns: [
      nameColumn,
      column('Webhooks', webhookCount, { type: 'integer', description: 'Webhooks indicates the number of webhooks registered in this configuration.' }),
      ageColumn,
    ],
  });
}

export function mutatingWebhookConfigurationsType(): ResourceType {
  return configurationType('mutating');
}

export function validatingWebhookConfigurationsType(): ResourceType {
  return configurationType('validating');
}
