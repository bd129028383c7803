// admissionregistration.k8s.io/v1 MutatingWebhookConfiguration and ValidatingWebhookConfiguration.

import type { Definitions, Schema } from '../types.ts';
import { atomic, bytes, int32, labelSelector, listOf, mergeList, object, ref, str, strEnum, topLevel } from './build.ts';

const ADMISSIONREGISTRATION = 'io.k8s.api.admissionregistration.v1.';
const admissionregistrationV1 = { group: 'admissionregistration.k8s.io', version: 'v1' };

/** The fields mutating and validating webhooks share. */
function webhookFields(): Record<string, Schema> {
  return {
    admissionReviewVersions: atomic(str(), 'AdmissionReview versions the webhook accepts, in order of preference; the server sends the first it knows ("v1", "v1beta1").'),
    clientConfig: ref(ADMISSIONREGISTRATION + 'WebhookClientConfig', 'How to reach the webhook.'),
    failurePolicy: strEnum(['Fail', 'Ignore'], 'What an error calling the webhook does: Fail (the default) rejects the request, Ignore lets it through.'),
    matchConditions: mergeList(ref(ADMISSIONREGISTRATION + 'MatchCondition'), 'name', 'CEL conditions the request must also meet for the webhook to be called.'),
    matchPolicy: strEnum(['Equivalent', 'Exact'], 'How rules match requests for other versions of a resource: Equivalent (the default) or Exact.'),
    name: str('The webhook\'s name, a qualified name with at least three segments ("imagepolicy.example.com").'),
    namespaceSelector: labelSelector('Calls the webhook only for objects in namespaces whose labels match. Default: every namespace.'),
    objectSelector: labelSelector('Calls the webhook only for objects (old or new) whose labels match. Default: every object.'),
    rules: atomic(ref(ADMISSIONREGISTRATION + 'RuleWithOperations'), 'The operations and resources the webhook is called for.'),
    sideEffects: strEnum(['None', 'NoneOnDryRun', 'Some', 'Unknown'], 'Whether calling the webhook has side effects: None or NoneOnDryRun allow calling it for dry-run requests.'),
    timeoutSeconds: int32('Seconds to wait for the webhook, 1 to 30. Defaults to 10.'),
  };
}

const webhookRequired = ['name', 'clientConfig', 'sideEffects', 'admissionReviewVersions'];

export const admissionregistrationDefinitions: Definitions = {
  [ADMISSIONREGISTRATION + 'MutatingWebhookConfiguration']: topLevel(admissionregistrationV1, 'MutatingWebhookConfiguration', 'Webhooks that may change objects before they are stored.', {
    webhooks: mergeList(ref(ADMISSIONREGISTRATION + 'MutatingWebhook'), 'name', 'The webhooks and what they are called for.'),
  }),
  [ADMISSIONREGISTRATION + 'MutatingWebhookConfigurationList']: listOf(admissionregistrationV1, 'MutatingWebhookConfiguration', ADMISSIONREGISTRATION + 'MutatingWebhookConfiguration', 'The configurations.'),
  [ADMISSIONREGISTRATION + 'MutatingWebhook']: object('A webhook that may change the object of a request.', {
    ...webhookFields(),
    reinvocationPolicy: strEnum(['IfNeeded', 'Never'], 'Whether the webhook is called again when a later mutation changes the object: Never (the default) or IfNeeded.'),
  }, { required: webhookRequired }),
  [ADMISSIONREGISTRATION + 'ValidatingWebhookConfiguration']: topLevel(admissionregistrationV1, 'ValidatingWebhookConfiguration', 'Webhooks that accept or reject requests without changing them.', {
    webhooks: mergeList(ref(ADMISSIONREGISTRATION + 'ValidatingWebhook'), 'name', 'The webhooks and what they are called for.'),
  }),
  [ADMISSIONREGISTRATION + 'ValidatingWebhookConfigurationList']: listOf(admissionregistrationV1, 'ValidatingWebhookConfiguration', ADMISSIONREGISTRATION + 'ValidatingWebhookConfiguration', 'The configurations.'),
  [ADMISSIONREGISTRATION + 'ValidatingWebhook']: object('A webhook that accepts or rejects a request.', webhookFields(), { required: webhookRequired }),
  [ADMISSIONREGISTRATION + 'WebhookClientConfig']: object('How to reach a webhook: a URL, or a service in the cluster.', {
    caBundle: bytes('PEM CA certificates that verify the webhook\'s serving certificate; the system roots when absent.'),
    service: ref(ADMISSIONREGISTRATION + 'ServiceReference', 'A service in the cluster that serves the webhook. Exclusive with url.'),
    url: str('The webhook\'s HTTPS URL (no user, query or fragment). Exclusive with service.'),
  }),
  [ADMISSIONREGISTRATION + 'ServiceReference']: object('A service serving a webhook.', {
    name: str('Name of the service.'),
    namespace: str('Namespace of the service.'),
    path: str('URL path requests are sent to.'),
    port: int32('Port of the service, 1 to 65535. Defaults to 443.'),
  }, { required: ['namespace', 'name'] }),
  [ADMISSIONREGISTRATION + 'RuleWithOperations']: object('Operations on resources a webhook is called for; every field matching a request calls it.', {
    apiGroups: atomic(str(), 'API groups; "" is the core group, "*" every group.'),
    apiVersions: atomic(str(), 'API versions; "*" every version.'),
    operations: atomic(str(), 'CREATE, UPDATE, DELETE, CONNECT, or "*" for all.'),
    resources: atomic(str(), 'Resources, "resource/subresource", "resource/*", "*/subresource", "*" (every resource, no subresource) or "*/*".'),
    scope: str('"Cluster", "Namespaced" or "*" (the default).'),
  }),
  [ADMISSIONREGISTRATION + 'MatchCondition']: object('A CEL expression a request must satisfy for the webhook to be called.', {
    expression: str('A CEL expression evaluating to a boolean.'),
    name: str('The condition\'s name, unique in the webhook.'),
  }, { required: ['name', 'expression'] }),
};
