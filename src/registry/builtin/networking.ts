// networking.k8s.io/v1 ingresses, ingressclasses, networkpolicies, ipaddresses and servicecidrs,
// after kubernetes pkg/apis/networking/v1/defaults.go, pkg/apis/networking/validation,
// printers.go and the strategies and warnings of pkg/registry/networking (IngressClasses,
// IPAddresses and ServiceCIDRs give none).

import type { KubeObject, StatusCause } from '../../api/index.ts';
import type { JsonObject } from '../../api/json.ts';
import { isDomainPrefixedPath, regexError } from '../../api/labels.ts';
import { sentEmptyList } from '../../schema/prune.ts';
import type { ResourceType } from '../resource-type.ts';
import { ageColumn, column, nameColumn } from '../table-columns.ts';
import { appendAll, fieldImmutable, forbidden, GoValue, goJson, goQuote, index, invalid, notSupported, required, tooLong } from '../validation/field.ts';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isValidPortName, isValidPortNum, validateName } from '../validation/names.ts';
import { generationStrategy, keepOldMetadata, keepOldSpec, specStatusStrategy } from './common.ts';
import { cidrErrors, cidrWarnings, parseCIDR, parseIP } from '../validation/ip.ts';
import { legacyCIDRCauses } from './legacy-ip-fields.ts';
import { loadBalancerIngressCauses, loadBalancerIngressWarnings } from './load-balancer-status.ts';
import { arrayAt, ensureObject, objectAt, objectsAt, present, stringAt } from './object.ts';
import { validateLabelSelector } from './selector-validation.ts';
import { builtinType } from './skeleton.ts';
import { formatSelector } from './table-columns.ts';


// ---- ingresses ----

const pathTypes = ['Exact', 'ImplementationSpecific', 'Prefix'];
const invalidPathSequences = ['//', '/./', '/../', '%2f', '%2F'];
const invalidPathSuffixes = ['/..', '/.'];

const wildcardFmt = '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const wildcardRegexp = new RegExp(`^${wildcardFmt}$`);

/** validation.IsWildcardDNS1123Subdomain. */
function isWildcardDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value) > 253) errs.push('must be no more than 253 characters');
  if (!wildcardRegexp.test(value)) {
    errs.push(regexError("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character", wildcardFmt, '*.example.com'));
  }
  return errs;
}

/** A host of a rule or a TLS entry: a DNS subdomain, or a wildcard one. */
function hostErrors(host: string): string[] {
  return host.includes('*') ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
}

/** validateIngressTypedLocalObjectReference (resource backends and class parameters). */
function validateTypedReference(ref: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (present(ref.apiGroup)) for (const msg of isDNS1123Subdomain(String(ref.apiGroup))) causes.push(invalid(`${path}.apiGroup`, ref.apiGroup, msg));
  for (const key of ['kind', 'name']) {
    const value = stringAt(ref, key);
    if (value === '') causes.push(required(`${path}.${key}`));
    else for (const msg of validateName(value, 'path-segment')) causes.push(invalid(`${path}.${key}`, value, msg));
  }
  return causes;
}

/**
 * The ingress's own options of upstream's IngressValidationOptions: what an update keeps
 * accepting because the stored object already held it. Service names are always checked as
 * DNS-1123 labels (AllowRelaxedServiceNameValidation): the RelaxedServiceNameValidation gate
 * is on by default in v1.36.
 */
interface IngressOptions {
  allowInvalidSecretName: boolean;
  allowInvalidWildcardHostRule: boolean;
}

const strictIngressOptions: IngressOptions = { allowInvalidSecretName: false, allowInvalidWildcardHostRule: false };

/** A backend's service name: a DNS-1123 label, as the gate allows (DNS-1035 when `strictServiceName`, as allowInvalidWildcardHostRule checks). */
function serviceNameErrors(name: string, strictServiceName: boolean): string[] {
  return strictServiceName ? isDNS1035Label(name) : isDNS1123Label(name);
}

function validateBackend(backend: JsonObject, path: string, strictServiceName = false): StatusCause[] {
  const resource = objectAt(backend, 'resource');
  const service = objectAt(backend, 'service');
  if (resource !== undefined && service !== undefined) return [invalid(path, '', 'cannot set both resource and service backends')];
  if (resource !== undefined) return validateTypedReference(resource, `${path}.resource`);
  if (service === undefined) return [invalid(path, '', 'resource or service backend is required')];
  const causes: StatusCause[] = [];
  const name = stringAt(service, 'name');
  if (name === '') causes.push(required(`${path}.service.name`));
  else for (const msg of serviceNameErrors(name, strictServiceName)) causes.push(invalid(`${path}.service.name`, name, msg));
  const port = objectAt(service, 'port') ?? {};
  const portName = stringAt(port, 'name');
  const portNumber = typeof port.number === 'number' ? port.number : 0;
  if (portName !== '' && portNumber !== 0) causes.push(invalid(path, '', 'cannot set both port name & port number'));
  else if (portName !== '') for (const msg of isValidPortName(portName)) causes.push(invalid(`${path}.service.port.name`, portName, msg));
  else if (portNumber !== 0) for (const msg of isValidPortNum(portNumber)) causes.push(invalid(`${path}.service.port.number`, portNumber, msg));
  else causes.push(required(path, 'port name or number is required'));
  return causes;
}

function validateHTTPPath(p: JsonObject, path: string, strictServiceName: boolean): StatusCause[] {
  if (!present(p.pathType)) return [required(`${path}.pathType`, 'pathType must be specified')];
  const causes: StatusCause[] = [];
  const value = stringAt(p, 'path');
  switch (p.pathType) {
    case 'Exact':
    case 'Prefix':
      if (!value.startsWith('/')) causes.push(invalid(`${path}.path`, value, 'must be an absolute path'));
      if (value !== '') {
        for (const seq of invalidPathSequences) if (value.includes(seq)) causes.push(invalid(`${path}.path`, value, `must not contain '${seq}'`));
        for (const suffix of invalidPathSuffixes) if (value.endsWith(suffix)) causes.push(invalid(`${path}.path`, value, `cannot end with '${suffix}'`));
      }
      break;
    case 'ImplementationSpecific':
      if (value !== '' && !value.startsWith('/')) causes.push(invalid(`${path}.path`, value, 'must be an absolute path'));
      break;
    default:
      // A typed string (PathType): json.Marshal writes it (`<`, `>`, `&` escaped), not %q.
      causes.push(notSupported(`${path}.pathType`, goJson(p.pathType), pathTypes));
  }
  appendAll(causes, validateBackend(objectAt(p, 'backend') ?? {}, `${path}.backend`, strictServiceName));
  return causes;
}

/** validateIngressRuleValue: a rule's HTTP paths. */
function validateRuleValue(rule: JsonObject, path: string, strictServiceName = false): StatusCause[] {
  const http = objectAt(rule, 'http');
  if (http === undefined) return [];
  const causes: StatusCause[] = [];
  const paths = objectsAt(http, 'paths');
  if (paths.length === 0) causes.push(required(`${path}.http.paths`));
  paths.forEach((p, j) => appendAll(causes, validateHTTPPath(p, `${path}.http.paths[${j}]`, strictServiceName)));
  return causes;
}

/** ValidateIngressSpec. */
function validateIngressSpec(ingress: KubeObject, opts: IngressOptions): StatusCause[] {
  const spec = objectAt(ingress, 'spec') ?? {};
  const causes: StatusCause[] = [];
  const rules = objectsAt(spec, 'rules');
  const defaultBackend = objectAt(spec, 'defaultBackend');
  if (rules.length === 0 && defaultBackend === undefined) {
    // The bad value is the rules list: `[]` when the client sent an empty one (a non-nil slice), else null.
    causes.push(invalid('spec', Array.isArray(spec.rules) || sentEmptyList(spec, 'rules') ? [] : null, 'either `defaultBackend` or `rules` must be specified'));
  }
  if (defaultBackend !== undefined) appendAll(causes, validateBackend(defaultBackend, 'spec.defaultBackend'));
  rules.forEach((rule, i) => {
    const path = `spec.rules[${i}]`;
    const host = stringAt(rule, 'host');
    if (host !== '') {
      if (parseIP(host) !== undefined) causes.push(invalid(`${path}.host`, host, 'must be a DNS name, not an IP address'));
      for (const msg of hostErrors(host)) causes.push(invalid(`${path}.host`, host, msg));
    }
    if (!host.includes('*') || !opts.allowInvalidWildcardHostRule) appendAll(causes, validateRuleValue(rule, path));
  });
  objectsAt(spec, 'tls').forEach((tls, i) => {
    const hosts = Array.isArray(tls.hosts) ? tls.hosts : [];
    hosts.forEach((host, j) => {
      for (const msg of hostErrors(String(host))) causes.push(invalid(`spec.tls[${i}].hosts[${j}]`, host, msg));
    });
    const secret = stringAt(tls, 'secretName');
    if (!opts.allowInvalidSecretName) for (const msg of tlsSecretNameErrors(secret)) causes.push(invalid(`spec.tls[${i}].secretName`, secret, msg));
  });
  if (present(spec.ingressClassName)) {
    for (const msg of isDNS1123Subdomain(String(spec.ingressClassName))) causes.push(invalid('spec.ingressClassName', spec.ingressClassName, msg));
  }
  return causes;
}

function tlsSecretNameErrors(name: string): string[] {
  return name === '' ? [] : isDNS1123Subdomain(name);
}

/**
 * What an update keeps accepting of the stored ingress (upstream's allowInvalidSecretName and
 * allowInvalidWildcardHostRule, backwards compatibility with persisted data): any invalid TLS
 * secret name there spares the new ones; a wildcard-host rule whose paths fail the strict
 * checks spares the paths of every wildcard-host rule.
 */
function ingressUpdateOptions(old: KubeObject): IngressOptions {
  const spec = objectAt(old, 'spec');
  return {
    allowInvalidSecretName: objectsAt(spec, 'tls').some((tls) => tlsSecretNameErrors(stringAt(tls, 'secretName')).length > 0),
    allowInvalidWildcardHostRule: objectsAt(spec, 'rules').some((rule) => stringAt(rule, 'host').includes('*') && validateRuleValue(rule, '', true).length > 0),
  };
}

const ingressClassAnnotation = 'kubernetes.io/ingress.class';

/**
 * ValidateIngressCreate and ValidateIngressUpdate's spec rules; a create also refuses an
 * ingress.class annotation that names another class than spec.ingressClassName.
 */
export function validateIngress(ingress: KubeObject, old?: KubeObject): StatusCause[] {
  const causes = validateIngressSpec(ingress, old === undefined ? strictIngressOptions : ingressUpdateOptions(old));
  if (old !== undefined) return causes;
  const annotation = ingress.metadata.annotations?.[ingressClassAnnotation];
  const className = objectAt(ingress, 'spec')?.ingressClassName;
  if (annotation !== undefined && present(className) && annotation !== className) {
    causes.push(invalid(`annotations.${ingressClassAnnotation}`, annotation, 'must match `ingressClassName` when both are specified'));
  }
  return causes;
}

/**
 * printIngress's Hosts: the first three rules' hosts (rules without one skipped), and
 * "+ N more..." once a rule follows them, N counting every other rule, hostless ones too.
 */
function hostsCell(ingress: KubeObject): string {
  const rules = objectsAt(objectAt(ingress, 'spec'), 'rules');
  const max = 3;
  const hosts: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (hosts.length === max) more = true;
    const host = stringAt(rule, 'host');
    if (!more && host !== '') hosts.push(host);
  }
  if (hosts.length === 0) return '*';
  return more ? `${hosts.join(',')} + ${rules.length - max} more...` : hosts.join(',');
}

/** ingressLoadBalancerStatusStringer, wide as the server prints: each entry's IP or else hostname, unique and sorted. */
function addressCell(ingress: KubeObject): string {
  const addresses = objectsAt(objectAt(objectAt(ingress, 'status'), 'loadBalancer'), 'ingress')
    .map((i) => stringAt(i, 'ip') || stringAt(i, 'hostname'))
    .filter((a) => a !== '');
  return [...new Set(addresses)].sort().join(',');
}

/** The ingress strategy's WarningsOnCreate (it warns of nothing on update). */
function ingressWarningsOnCreate(ingress: KubeObject): string[] {
  if (ingress.metadata.annotations?.[ingressClassAnnotation] === undefined || present(objectAt(ingress, 'spec')?.ingressClassName)) return [];
  return [`annotation ${goQuote(ingressClassAnnotation)} is deprecated, please use 'spec.ingressClassName' instead`];
}

export function ingressesType(): ResourceType {
  return builtinType('networking.k8s.io', 'v1', 'ingresses', {
    // `validate` runs on update too, with the stored ingress (ValidateIngressUpdate's options).
    strategy: specStatusStrategy({
      validate: validateIngress,
      warningsOnCreate: ingressWarningsOnCreate,
      subresources: {
        status: {
          prepareForUpdate: keepOldSpec,
          // ValidateIngressStatusUpdate: ValidateIngressLoadBalancerStatus.
          validateUpdate: (ingress, old) => loadBalancerIngressCauses(ingress, old),
          warningsOnUpdate: loadBalancerIngressWarnings,
        },
      },
    }),
    // pkg/printers/internalversion: printIngress.
    tableColumns: [
      nameColumn,
      // spec.ingressClassName only: the deprecated annotation is not shown.
      column('Class', (ing) => (present(objectAt(ing, 'spec')?.ingressClassName) ? stringAt(objectAt(ing, 'spec'), 'ingressClassName') : '<none>'), { description: 'The name of the IngressClass resource that should be used for additional configuration' }),
      column('Hosts', hostsCell, { description: 'Hosts that incoming requests are matched against before the ingress rule' }),
      column('Address', addressCell, { description: 'Address is a list containing ingress points for the load-balancer' }),
      column('Ports', (ing) => (objectsAt(objectAt(ing, 'spec'), 'tls').length > 0 ? '80, 443' : '80'), { description: 'Ports of TLS configurations that open' }),
      ageColumn,
    ],
  });
}

// ---- ingressclasses ----

const parameterScopes = ['Cluster', 'Namespace'];
const maxControllerLength = 250;

/** validateIngressClassSpec. */
export function validateIngressClass(ic: KubeObject): StatusCause[] {
  const spec = objectAt(ic, 'spec') ?? {};
  const controller = stringAt(spec, 'controller');
  const causes: StatusCause[] = [];
  if (Buffer.byteLength(controller) > maxControllerLength) causes.push(tooLong('spec.controller', maxControllerLength));
  appendAll(causes, isDomainPrefixedPath(controller, 'spec.controller'));
  const params = objectAt(spec, 'parameters');
  if (params !== undefined) {
    const path = 'spec.parameters';
    appendAll(causes, validateTypedReference(params, path));
    if (!present(params.scope)) {
      causes.push(required(`${path}.scope`));
    } else if (!parameterScopes.includes(String(params.scope))) {
      causes.push(notSupported(`${path}.scope`, params.scope, parameterScopes));
    } else if (params.scope === 'Namespace') {
      if (!present(params.namespace)) causes.push(required(`${path}.namespace`, "`parameters.scope` is set to 'Namespace'"));
      else for (const msg of isDNS1123Label(String(params.namespace))) causes.push(invalid(`${path}.namespace`, params.namespace, msg));
    } else if (present(params.namespace)) {
      causes.push(forbidden(`${path}.namespace`, "`parameters.scope` is set to 'Cluster'"));
    }
  }
  return causes;
}

/** SetDefaults_IngressClass: parameters are cluster-scoped unless told. */
function defaultIngressClass(ic: KubeObject): void {
  const params = objectAt(objectAt(ic, 'spec'), 'parameters');
  if (params !== undefined && !present(params.scope)) params.scope = 'Cluster';
}

/** ValidateIngressClassUpdate: the controller immutable, then the class's own rules (once). */
function validateIngressClassWrite(ic: KubeObject, old?: KubeObject): StatusCause[] {
  if (old === undefined) return validateIngressClass(ic);
  const causes: StatusCause[] = [];
  const controller = stringAt(objectAt(ic, 'spec'), 'controller');
  if (controller !== stringAt(objectAt(old, 'spec'), 'controller')) causes.push(invalid('spec.controller', controller, fieldImmutable));
  appendAll(causes, validateIngressClass(ic));
  return causes;
}

/** The annotation naming the default class (networking/v1 AnnotationIsDefaultIngressClass). */
const defaultIngressClassAnnotation = 'ingressclass.kubernetes.io/is-default-class';

export function ingressClassesType(): ResourceType {
  return builtinType('networking.k8s.io', 'v1', 'ingressclasses', {
    strategy: generationStrategy({
      defaults: defaultIngressClass,
      validate: validateIngressClassWrite,
    }),
    // pkg/printers/internalversion: printIngressClass.
    tableColumns: [
      // The default class is marked as printers.go does since v1.35, like a default StorageClass.
      { ...nameColumn, cell: (ic) => `${ic.metadata.name ?? ''}${ic.metadata.annotations?.[defaultIngressClassAnnotation] === 'true' ? ' (default)' : ''}` },
      column('Controller', (ic) => stringAt(objectAt(ic, 'spec'), 'controller'), { description: 'Controller that is responsible for handling this class' }),
      column('Parameters', (ic) => {
        const params = objectAt(objectAt(ic, 'spec'), 'parameters');
        if (params === undefined) return '<none>';
        const group = present(params.apiGroup) ? `.${String(params.apiGroup)}` : '';
        return `${stringAt(params, 'kind')}${group}/${stringAt(params, 'name')}`;
      }, { description: 'A reference to a resource with additional parameters' }),
      ageColumn,
    ],
  });
}

// ---- networkpolicies ----

const policyTypes = ['Ingress', 'Egress'];
const protocols = ['TCP', 'UDP', 'SCTP'];
/** The rule lists of a policy's spec and the field naming their peers. */
const ruleDirections = [['ingress', 'from'], ['egress', 'to']] as const;

function exceptsOf(block: JsonObject): string[] {
  return arrayAt(block, 'except').map(String);
}

function validatePort(port: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  // A typed string: json.Marshal writes it (`<`, `>`, `&` escaped), not %q.
  if (present(port.protocol) && !protocols.includes(String(port.protocol))) causes.push(notSupported(`${path}.protocol`, goJson(port.protocol), protocols));
  const endPort = port.endPort;
  if (typeof port.port === 'number') {
    for (const msg of isValidPortNum(port.port)) causes.push(invalid(`${path}.port`, port.port, msg));
    if (typeof endPort === 'number') {
      // v1.36 names `port`'s value here (kubernetes#137960 names endPort's from v1.37).
      if (endPort < port.port) causes.push(invalid(`${path}.endPort`, port.port, 'must be greater than or equal to `port`'));
      for (const msg of isValidPortNum(endPort)) causes.push(invalid(`${path}.endPort`, endPort, msg));
    }
  } else if (present(port.port)) {
    if (present(endPort)) causes.push(invalid(`${path}.endPort`, endPort, 'may not be specified when `port` is non-numeric'));
    for (const msg of isValidPortName(String(port.port))) causes.push(invalid(`${path}.port`, port.port, msg));
  } else if (present(endPort)) {
    causes.push(invalid(`${path}.endPort`, endPort, 'may not be specified when `port` is not specified'));
  }
  return causes;
}

/**
 * ValidateIPBlock. A CIDR the stored policy held anywhere is kept as it is (upstream's
 * AllowCIDRsEvenIfInvalid: an update may move peers and rules about).
 */
function validateIPBlock(block: JsonObject, path: string, allowedCIDRs: readonly string[]): StatusCause[] {
  const cidrText = stringAt(block, 'cidr');
  if (cidrText === '') return [required(`${path}.cidr`)];
  const causes = legacyCIDRCauses(`${path}.cidr`, cidrText, allowedCIDRs);
  const cidr = parseCIDR(cidrText);
  if (cidr === undefined) return causes;
  exceptsOf(block).forEach((text, i) => {
    appendAll(causes, legacyCIDRCauses(`${path}.except[${i}]`, text, allowedCIDRs));
    const except = parseCIDR(text);
    if (except === undefined) return;
    const inside = except.family === cidr.family && except.base >= cidr.base && except.base < cidr.base + cidr.size;
    if (!inside || cidr.prefix >= except.prefix) causes.push(invalid(`${path}.except[${i}]`, text, 'must be a strict subset of `cidr`'));
  });
  return causes;
}

function validatePeer(peer: JsonObject, path: string, allowedCIDRs: readonly string[]): StatusCause[] {
  const causes: StatusCause[] = [];
  let count = 0;
  for (const key of ['podSelector', 'namespaceSelector']) {
    const selector = objectAt(peer, key);
    if (selector === undefined) continue;
    count++;
    appendAll(causes, validateLabelSelector(selector, `${path}.${key}`));
  }
  const block = objectAt(peer, 'ipBlock');
  if (block !== undefined) {
    count++;
    appendAll(causes, validateIPBlock(block, `${path}.ipBlock`, allowedCIDRs));
  }
  if (count === 0) causes.push(required(path, 'must specify a peer'));
  else if (count > 1 && block !== undefined) causes.push(forbidden(path, 'may not specify both ipBlock and another peer'));
  return causes;
}

/** The ipBlock peers of a policy's rules, ingress then egress, with their paths. */
function ipBlocks(np: KubeObject): { block: JsonObject; path: string }[] {
  const spec = objectAt(np, 'spec');
  return ruleDirections.flatMap(([direction, peers]) => objectsAt(spec, direction).flatMap((rule, i) =>
    objectsAt(rule, peers).flatMap((peer, j) => {
      const block = objectAt(peer, 'ipBlock');
      return block === undefined ? [] : [{ block, path: `spec.${direction}[${i}].${peers}[${j}].ipBlock` }];
    })));
}

/** ValidateNetworkPolicySpec; on update (ValidateNetworkPolicyUpdate) every CIDR of the stored policy is kept as it is. */
export function validateNetworkPolicy(np: KubeObject, old?: KubeObject): StatusCause[] {
  const spec = objectAt(np, 'spec') ?? {};
  const allowedCIDRs = old === undefined ? [] : ipBlocks(old).flatMap(({ block }) => [stringAt(block, 'cidr'), ...exceptsOf(block)]);
  const causes = validateLabelSelector(objectAt(spec, 'podSelector') ?? {}, 'spec.podSelector');
  for (const [direction, peers] of ruleDirections) {
    objectsAt(spec, direction).forEach((rule, i) => {
      const path = `spec.${direction}[${i}]`;
      objectsAt(rule, 'ports').forEach((port, j) => appendAll(causes, validatePort(port, `${path}.ports[${j}]`)));
      objectsAt(rule, peers).forEach((peer, j) => appendAll(causes, validatePeer(peer, `${path}.${peers}[${j}]`, allowedCIDRs)));
    });
  }
  const types = Array.isArray(spec.policyTypes) ? spec.policyTypes : [];
  if (types.length > policyTypes.length) {
    causes.push(invalid('spec.policyTypes', types, 'may not specify more than two policyTypes'));
    return causes;
  }
  types.forEach((t, i) => {
    if (!policyTypes.includes(String(t))) causes.push(notSupported(`spec.policyTypes[${i}]`, goJson(t), policyTypes));
  });
  return causes;
}

/** The network policy strategy's warnings: GetWarningsForCIDR of each ipBlock's cidr and except. */
function networkPolicyWarnings(np: KubeObject): string[] {
  return ipBlocks(np).flatMap(({ block, path }) => [
    ...cidrWarnings(`${path}.cidr`, stringAt(block, 'cidr')),
    ...exceptsOf(block).flatMap((except, k) => cidrWarnings(`${path}.except[${k}]`, except)),
  ]);
}

/** SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort. */
function defaultNetworkPolicy(np: KubeObject): void {
  const spec = ensureObject(np as unknown as JsonObject, 'spec');
  for (const direction of ['ingress', 'egress']) {
    for (const rule of objectsAt(spec, direction)) for (const port of objectsAt(rule, 'ports')) if (!present(port.protocol)) port.protocol = 'TCP';
  }
  if (!Array.isArray(spec.policyTypes) || spec.policyTypes.length === 0) {
    spec.policyTypes = objectsAt(spec, 'egress').length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
}


export function networkPoliciesType(): ResourceType {
  return builtinType('networking.k8s.io', 'v1', 'networkpolicies', {
    // ValidateNetworkPolicyUpdate is the spec's rules again, with the stored CIDRs allowed: `validate` runs on update too.
    strategy: generationStrategy({
      defaults: defaultNetworkPolicy,
      validate: validateNetworkPolicy,
      warningsOnCreate: networkPolicyWarnings,
      warningsOnUpdate: networkPolicyWarnings,
    }),
    // pkg/printers/internalversion: printNetworkPolicy.
    tableColumns: [
      nameColumn,
      column('Pod-Selector', (np) => formatSelector(objectAt(np, 'spec')?.podSelector), { description: "podSelector selects the pods to which this NetworkPolicy object applies. The array of rules is applied to any pods selected by this field. An empty selector matches all pods in this namespace. Multiple network policies can select the same set of pods. In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace." }),
      ageColumn,
    ],
  });
}

/** printers.go's printIPAddress: `resource.group[/namespace]/name` of the parent, lower-cased group-resource. */
function ipAddressParent(ip: KubeObject): string {
  const ref = objectAt(objectAt(ip, 'spec'), 'parentRef');
  if (ref === undefined) return '<none>';
  const resource = stringAt(ref, 'resource');
  const group = stringAt(ref, 'group');
  let text = (group === '' ? resource : `${resource}.${group}`).toLowerCase();
  const namespace = stringAt(ref, 'namespace');
  if (namespace !== '') text += `/${namespace}`;
  return `${text}/${stringAt(ref, 'name')}`;
}

/** validateIPAddressParentReference. */
function validateParentReference(ref: JsonObject | undefined): StatusCause[] {
  const path = 'spec.parentRef';
  if (ref === undefined) return [required(path)];
  const causes: StatusCause[] = [];
  const group = stringAt(ref, 'group');
  if (group !== '') for (const msg of isDNS1123Subdomain(group)) causes.push(invalid(`${path}.group`, group, msg));
  for (const key of ['resource', 'name']) {
    const value = stringAt(ref, key);
    if (value === '') causes.push(required(`${path}.${key}`));
    else for (const msg of validateName(value, 'path-segment')) causes.push(invalid(`${path}.${key}`, value, msg));
  }
  const namespace = stringAt(ref, 'namespace');
  if (namespace !== '') for (const msg of validateName(namespace, 'path-segment')) causes.push(invalid(`${path}.namespace`, namespace, msg));
  return causes;
}

/** The internal networking.ParentReference as json.Marshal writes it (Go field names, declaration order). */
function goParentReference(ref: JsonObject | undefined): GoValue {
  if (ref === undefined) return new GoValue('null');
  return goJson({ Group: stringAt(ref, 'group'), Resource: stringAt(ref, 'resource'), Namespace: stringAt(ref, 'namespace'), Name: stringAt(ref, 'name') });
}

/**
 * ValidateIPAddress past the metadata the Store checks by the "ip-address" name rule (an
 * update's generateName too): the parent reference; an update also keeps the parent
 * (ValidateIPAddressUpdate).
 */
export function validateIPAddress(ip: KubeObject, old?: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const ref = objectAt(objectAt(ip, 'spec'), 'parentRef');
  appendAll(causes, validateParentReference(ref));
  if (old !== undefined) {
    const oldRef = objectAt(objectAt(old, 'spec'), 'parentRef');
    const value = goParentReference(ref);
    if (value.text !== goParentReference(oldRef).text) causes.push(invalid('spec.parentRef', value, fieldImmutable));
  }
  return causes;
}

export function ipAddressesType(): ResourceType {
  return builtinType('networking.k8s.io', 'v1', 'ipaddresses', {
    nameRule: 'ip-address',
    // Upstream's noopNameGenerator: a generateName is the name itself, an IP address.
    strategy: { validate: validateIPAddress, generateName: (base) => base },
    // Upstream defines no Age column here (its rows carry a third cell kubectl drops).
    tableColumns: [
      nameColumn,
      column('ParentRef', ipAddressParent, { description: 'ParentRef references the resource that an IPAddress is attached to. An IPAddress must reference a parent object.' }),
    ],
  });
}

/** validateServiceCIDRSpec: one or two CIDRs, valid, of different families. */
function validateServiceCIDRSpec(sc: KubeObject): StatusCause[] {
  const path = 'spec.cidrs';
  const cidrs = arrayAt(objectAt(sc, 'spec'), 'cidrs').map(String);
  if (cidrs.length === 0) return [required(path, 'at least one CIDR required')];
  // The bad value is the internal ServiceCIDRSpec, marshalled by its Go field name.
  if (cidrs.length > 2) return [invalid(path, goJson({ CIDRs: cidrs }), 'may only hold up to 2 values')];
  const causes = cidrs.flatMap((cidr, i) => cidrErrors(cidr).map((msg) => invalid(index(path, i), cidr, msg)));
  const families = cidrs.map((cidr) => parseCIDR(cidr)?.family);
  if (cidrs.length === 2 && families[0] !== undefined && families[0] === families[1]) {
    causes.push(invalid(path, cidrs, 'may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64'));
  }
  return causes;
}

/**
 * ValidateServiceCIDR on create; ValidateServiceCIDRUpdate on update, which checks only that
 * the CIDRs stay, but for a single-stack range that gains its second family.
 */
export function validateServiceCIDR(sc: KubeObject, old?: KubeObject): StatusCause[] {
  if (old === undefined) return validateServiceCIDRSpec(sc);
  const path = 'spec.cidrs';
  const cidrs = arrayAt(objectAt(sc, 'spec'), 'cidrs');
  const oldCIDRs = arrayAt(objectAt(old, 'spec'), 'cidrs');
  if (cidrs.length === oldCIDRs.length) {
    return oldCIDRs.flatMap((cidr, i) => (cidr === cidrs[i] ? [] : [invalid(index(path, i), cidrs[i], fieldImmutable)]));
  }
  if (oldCIDRs.length === 1 && cidrs.length === 2) {
    const causes = cidrs[0] === oldCIDRs[0] ? [] : [invalid(index(path, 0), cidrs[0], fieldImmutable)];
    return [...causes, ...validateServiceCIDRSpec(sc)];
  }
  const spec = objectAt(sc, 'spec') ?? {};
  return [invalid(path, Array.isArray(spec.cidrs) || sentEmptyList(spec, 'cidrs') ? cidrs : null, fieldImmutable)];
}

export function serviceCIDRsType(): ResourceType {
  return builtinType('networking.k8s.io', 'v1', 'servicecidrs', {
    // Upstream's strategy keeps what the client sent, status too, and counts no generation;
    // only its status subresource keeps the spec, and the stored metadata (ResetObjectMetaForStatus).
    strategy: {
      validate: validateServiceCIDR,
      subresources: {
        status: {
          prepareForUpdate(obj, old) {
            keepOldSpec(obj, old);
            keepOldMetadata(obj, old);
          },
        },
      },
    },
    // printers.go's printServiceCIDR.
    tableColumns: [
      nameColumn,
      column('CIDRs', (sc) => arrayAt(objectAt(sc, 'spec'), 'cidrs').map(String).join(','), {
        description: 'CIDRs defines the IP blocks in CIDR notation (e.g. "192.168.0.0/24" or "2001:db8::/64") from which to assign service cluster IPs. Max of two CIDRs is allowed, one of each IP family. This field is immutable.',
      }),
      ageColumn,
    ],
  });
}
