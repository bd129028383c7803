// flowcontrol.apiserver.k8s.io/v1 flowschemas and prioritylevelconfigurations: stored,
// defaulted and validated as upstream's pkg/apis/flowcontrol (v1 defaults, validation).
// The server classifies requests by them (auth/flow-schemas.ts); the mandatory and
// suggested objects are made at start-up (../bootstrap.ts, ../flowcontrol-config.ts).

import type { KubeObject, StatusCause, TableColumn } from '../../api/index.ts';
import { clone, isObject, type JsonObject } from '../../api/json.ts';
import { mandatoryFlowSchemas, mandatoryPriorityLevels } from '../flowcontrol-config.ts';
import type { ResourceType } from '../resource-type.ts';
import { ageColumn, column, nameColumn } from '../table-columns.ts';
import { appendAll, child, duplicate, forbidden, goJson, type GoValue, index, invalid, notSupported, required, type FieldPath } from '../validation/field.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../validation/names.ts';
import { keepOldSpec, specStatusStrategy } from './common.ts';
import { numberAt, objectAt, objectsAt, stringAt, stringsAt } from './object.ts';
import { builtinType } from './skeleton.ts';

/** A number where upstream's printer shows one, "<none>" where the field is absent. */
function numberOrNone(value: unknown): number | string {
  return typeof value === 'number' ? value : '<none>';
}

/** printers.go's printFlowSchema columns; MissingPL is the Dangling condition's status, "?" without one. */
const flowSchemaColumns: TableColumn[] = [
  nameColumn,
  column('PriorityLevel', (fs) => stringAt(objectAt(objectAt(fs, 'spec'), 'priorityLevelConfiguration'), 'name'), {
    description: '`name` is the name of the priority level configuration being referenced Required.',
  }),
  column('MatchingPrecedence', (fs) => numberOrNone(objectAt(fs, 'spec')?.matchingPrecedence), {
    description: '`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default.',
  }),
  column('DistinguisherMethod', (fs) => stringAt(objectAt(objectAt(fs, 'spec'), 'distinguisherMethod'), 'type') || '<none>', {
    description: '`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string.',
  }),
  ageColumn,
  column('MissingPL', (fs) => stringAt(objectsAt(objectAt(fs, 'status'), 'conditions').find((c) => c.type === 'Dangling'), 'status') || '?', {
    description: 'references a broken or non-existent PriorityLevelConfiguration',
  }),
];

function queuingOf(plc: KubeObject) {
  return objectAt(objectAt(objectAt(objectAt(plc, 'spec'), 'limited'), 'limitResponse'), 'queuing');
}

/** printers.go's printPriorityLevelConfiguration columns. */
const priorityLevelColumns: TableColumn[] = [
  nameColumn,
  column('Type', (plc) => stringAt(objectAt(plc, 'spec'), 'type'), {
    description: '`type` indicates whether this priority level is subject to limitation on request execution.  A value of `"Exempt"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `"Limited"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server\'s limited capacity is made available exclusively to this priority level. Required.',
  }),
  column('NominalConcurrencyShares', (plc) => {
    const limited = objectAt(objectAt(plc, 'spec'), 'limited');
    return limited === undefined ? '<none>' : numberOrNone(limited.nominalConcurrencyShares);
  }, { description: '`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level.' }),
  column('Queues', (plc) => numberOrNone(queuingOf(plc)?.queues), { description: '`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64.' }),
  column('HandSize', (plc) => numberOrNone(queuingOf(plc)?.handSize), { description: '`handSize` is a small positive number that configures the shuffle sharding of requests into queues.' }),
  column('QueueLengthLimit', (plc) => numberOrNone(queuingOf(plc)?.queueLengthLimit), { description: '`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50.' }),
  ageColumn,
];

// Upstream's v1 defaults (pkg/apis/flowcontrol/v1/defaults.go).
const defaultMatchingPrecedence = 1000;
const defaultNominalConcurrencyShares = 30;
const defaultHandSize = 8;
const defaultQueues = 64;
const defaultQueueLengthLimit = 50;

/** An int32 field Go decodes as 0 when absent: 0 and absent are the same value. */
function isZero(value: unknown): boolean {
  return value === undefined || value === null || value === 0;
}

function defaultFlowSchema(fs: KubeObject): void {
  const spec = objectAt(fs, 'spec');
  if (spec !== undefined && isZero(spec.matchingPrecedence)) spec.matchingPrecedence = defaultMatchingPrecedence;
}

function defaultPriorityLevel(plc: KubeObject): void {
  const spec = objectAt(plc, 'spec');
  const exempt = objectAt(spec, 'exempt');
  if (exempt !== undefined) {
    exempt.nominalConcurrencyShares ??= 0;
    exempt.lendablePercent ??= 0;
  }
  const limited = objectAt(spec, 'limited');
  if (limited !== undefined) {
    // A pointer in v1: an explicit 0 is kept (a level that admits nothing).
    limited.nominalConcurrencyShares ??= defaultNominalConcurrencyShares;
    limited.lendablePercent ??= 0;
  }
  const queuing = objectAt(objectAt(limited, 'limitResponse'), 'queuing');
  if (queuing !== undefined) {
    if (isZero(queuing.handSize)) queuing.handSize = defaultHandSize;
    if (isZero(queuing.queues)) queuing.queues = defaultQueues;
    if (isZero(queuing.queueLengthLimit)) queuing.queueLengthLimit = defaultQueueLengthLimit;
  }
}

const exemptName = 'exempt';
const maxMatchingPrecedence = 10_000;
const maxQueues = 10_000_000;
/** shufflesharding.MaxHashBits: the hash a hand is dealt from. */
const maxHashBits = 60;
const distinguisherMethods = ['ByNamespace', 'ByUser'];
const subjectKinds = ['Group', 'ServiceAccount', 'User'];
const ruleVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const levelTypes = ['Exempt', 'Limited'];
const limitResponseTypes = ['Queue', 'Reject'];
const namespaceIntro = "each member of this list must be '*' or a DNS-1123 label; ";

/** A list's `*` alone, or the other values without it. */
function checkWildcard(values: string[], path: FieldPath, what: string): StatusCause[] {
  return values.length > 1 && values.includes('*') ? [invalid(path, values, `if '*' is present, must not specify other ${what}`)] : [];
}

function checkVerbs(verbs: string[], path: FieldPath): StatusCause[] {
  if (verbs.length === 0) return [required(path, 'verbs must contain at least one value')];
  if (verbs.includes('*')) return checkWildcard(verbs, path, 'verbs');
  return verbs.every((v) => ruleVerbs.includes(v)) ? [] : [notSupported(path, verbs, ruleVerbs)];
}

/** ValidateNonResourceURLPath. */
function checkNonResourceURL(url: string, path: FieldPath): StatusCause[] {
  if (url === '') return [invalid(path, url, 'must not be empty')];
  if (url === '/') return [];
  if (!url.startsWith('/')) return [invalid(path, url, 'must start with slash')];
  if (url.includes(' ')) return [invalid(path, url, 'must not contain white-space')];
  if (url.includes('//')) return [invalid(path, url, 'must not contain double slash')];
  const wildcards = url.split('*').length - 1;
  if (wildcards > 1 || (wildcards === 1 && !url.endsWith('/*'))) return [invalid(path, url, 'wildcard can only do suffix matching')];
  return [];
}

function checkResourceRule(rule: JsonObject, path: FieldPath): StatusCause[] {
  const causes = checkVerbs(stringsAt(rule, 'verbs'), child(path, 'verbs'));
  const groups = stringsAt(rule, 'apiGroups');
  if (groups.length === 0) causes.push(required(child(path, 'apiGroups'), 'resource rules must supply at least one api group'));
  else appendAll(causes, checkWildcard(groups, child(path, 'apiGroups'), 'api groups'));
  const resources = stringsAt(rule, 'resources');
  if (resources.length === 0) causes.push(required(child(path, 'resources'), 'resource rules must supply at least one resource'));
  else appendAll(causes, checkWildcard(resources, child(path, 'resources'), 'resources'));
  const namespaces = stringsAt(rule, 'namespaces');
  if (namespaces.length === 0 && rule.clusterScope !== true) {
    causes.push(required(child(path, 'namespaces'), 'resource rules that are not cluster scoped must supply at least one namespace'));
  } else if (namespaces.includes('*')) {
    appendAll(causes, checkWildcard(namespaces, child(path, 'namespaces'), 'namespaces'));
  } else {
    namespaces.forEach((ns, i) => {
      for (const msg of isDNS1123Label(ns)) causes.push(invalid(index(child(path, 'namespaces'), i), ns, namespaceIntro + msg));
    });
  }
  return causes;
}

function checkNonResourceRule(rule: JsonObject, path: FieldPath): StatusCause[] {
  const causes = checkVerbs(stringsAt(rule, 'verbs'), child(path, 'verbs'));
  const urls = stringsAt(rule, 'nonResourceURLs');
  const urlsPath = child(path, 'nonResourceURLs');
  if (urls.length === 0) causes.push(required(urlsPath, 'nonResourceURLs must contain at least one value'));
  else if (urls.includes('*')) appendAll(causes, checkWildcard(urls, urlsPath, 'non-resource URLs'));
  else urls.forEach((url, i) => appendAll(causes, checkNonResourceURL(url, index(urlsPath, i))));
  return causes;
}

const subjectMembers: Record<string, string> = { ServiceAccount: 'serviceAccount', User: 'user', Group: 'group' };

function checkSubject(subject: JsonObject, path: FieldPath): StatusCause[] {
  const kind = subject.kind;
  const member = typeof kind === 'string' ? subjectMembers[kind] : undefined;
  if (member === undefined) return [notSupported(child(path, 'kind'), kind ?? '', subjectKinds)];
  const causes: StatusCause[] = [];
  const value = objectAt(subject, member);
  const memberPath = child(path, member);
  if (value === undefined) {
    causes.push(required(memberPath, `${member} is required when subject kind is '${kind as string}'`));
  } else {
    const name = stringAt(value, 'name');
    if (name === '') causes.push(required(child(memberPath, 'name')));
    else if (member === 'serviceAccount' && name !== '*') {
      for (const msg of isDNS1123Subdomain(name)) causes.push(invalid(child(memberPath, 'name'), name, msg));
    }
    if (member === 'serviceAccount') {
      const namespace = stringAt(value, 'namespace');
      if (namespace === '') causes.push(required(child(memberPath, 'namespace'), 'must specify namespace for service account'));
      else for (const msg of isDNS1123Label(namespace)) causes.push(invalid(child(memberPath, 'namespace'), namespace, msg));
    }
  }
  // The members of the other kinds, in upstream's order for each kind.
  const others = { ServiceAccount: ['user', 'group'], User: ['serviceAccount', 'group'], Group: ['serviceAccount', 'user'] }[kind as string]!;
  const kinds: Record<string, string> = { serviceAccount: 'ServiceAccount', user: 'User', group: 'Group' };
  for (const other of others) {
    if (subject[other] !== undefined && subject[other] !== null) causes.push(forbidden(child(path, other), `${other} is forbidden when subject kind is not '${kinds[other]!}'`));
  }
  return causes;
}

/** ValidateFlowSchemaStatus, ValidatePriorityLevelConfigurationStatus. */
function checkConditions(status: JsonObject | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  objectsAt(status, 'conditions').forEach((condition, i) => {
    const type = stringAt(condition, 'type');
    const path = child(index('status.conditions', i), 'type');
    if (seen.has(type)) causes.push(duplicate(path, type));
    seen.add(type);
    if (type === '') causes.push(required(path, 'must not be empty'));
  });
  return causes;
}

// ---- the mandatory objects' fixed specs ----

/** Fields of the internal types that are pointers: there, absent differs from a zero value. */
const pointerFields = new Set(['distinguisherMethod', 'user', 'group', 'serviceAccount', 'limited', 'exempt', 'queuing', 'nominalConcurrencyShares', 'lendablePercent', 'borrowingLimitPercent']);

/** Whether a decoded value is its Go type's zero value (a pointer inside only when nil). */
function isGoZero(value: unknown): boolean {
  if (value === undefined || value === null || value === '' || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isObject(value)) return Object.entries(value).every(([key, v]) => (pointerFields.has(key) ? v === undefined || v === null : isGoZero(v)));
  return false;
}

/**
 * apiequality.Semantic.DeepEqual of two decoded, defaulted specs: an absent value equals the
 * zero value of a field that is not a pointer (an empty list a missing one), never a
 * pointer's value.
 */
function goSpecEqual(a: unknown, b: unknown, pointer = false): boolean {
  const absentA = a === undefined || a === null;
  const absentB = b === undefined || b === null;
  if (absentA || absentB) return absentA && absentB ? true : !pointer && isGoZero(absentA ? b : a);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => goSpecEqual(v, b[i]));
  if (isObject(a) && isObject(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) if (!goSpecEqual(a[key], b[key], pointerFields.has(key))) return false;
    return true;
  }
  return a === b;
}

/** The list at `key` as json.Marshal writes the Go slice it decodes to: null when absent. */
function goList<T>(parent: unknown, key: string, item: (value: JsonObject) => T): T[] | null {
  const value = isObject(parent) ? parent[key] : undefined;
  return Array.isArray(value) ? value.map((v) => item(isObject(v) ? v : {})) : null;
}

function goStrings(parent: unknown, key: string): string[] | null {
  return isObject(parent) && Array.isArray(parent[key]) ? stringsAt(parent, key) : null;
}

function goNamed(parent: unknown, key: string): { Name: string } | null {
  const value = objectAt(parent, key);
  return value === undefined ? null : { Name: stringAt(value, 'name') };
}

/** A FlowSchema's spec as upstream's field error shows its internal FlowSchemaSpec: Go's field names, in their order. */
function goFlowSchemaSpec(spec: JsonObject | undefined): GoValue {
  const method = objectAt(spec, 'distinguisherMethod');
  return goJson({
    PriorityLevelConfiguration: { Name: stringAt(objectAt(spec, 'priorityLevelConfiguration'), 'name') },
    MatchingPrecedence: numberAt(spec, 'matchingPrecedence') ?? 0,
    DistinguisherMethod: method === undefined ? null : { Type: stringAt(method, 'type') },
    Rules: goList(spec, 'rules', (rule) => ({
      Subjects: goList(rule, 'subjects', (subject) => {
        const account = objectAt(subject, 'serviceAccount');
        return {
          Kind: stringAt(subject, 'kind'),
          User: goNamed(subject, 'user'),
          Group: goNamed(subject, 'group'),
          ServiceAccount: account === undefined ? null : { Namespace: stringAt(account, 'namespace'), Name: stringAt(account, 'name') },
        };
      }),
      ResourceRules: goList(rule, 'resourceRules', (r) => ({
        Verbs: goStrings(r, 'verbs'), APIGroups: goStrings(r, 'apiGroups'), Resources: goStrings(r, 'resources'), ClusterScope: r.clusterScope === true, Namespaces: goStrings(r, 'namespaces'),
      })),
      NonResourceRules: goList(rule, 'nonResourceRules', (r) => ({ Verbs: goStrings(r, 'verbs'), NonResourceURLs: goStrings(r, 'nonResourceURLs') })),
    })),
  });
}

/** A PriorityLevelConfiguration's spec as upstream's field error shows its internal spec. */
function goPriorityLevelSpec(spec: JsonObject | undefined): GoValue {
  const limited = objectAt(spec, 'limited');
  const exempt = objectAt(spec, 'exempt');
  const response = objectAt(limited, 'limitResponse');
  const queuing = objectAt(response, 'queuing');
  return goJson({
    Type: stringAt(spec, 'type'),
    Limited: limited === undefined ? null : {
      NominalConcurrencyShares: numberAt(limited, 'nominalConcurrencyShares') ?? 0,
      LimitResponse: {
        Type: stringAt(response, 'type'),
        Queuing: queuing === undefined ? null : { Queues: numberAt(queuing, 'queues') ?? 0, HandSize: numberAt(queuing, 'handSize') ?? 0, QueueLengthLimit: numberAt(queuing, 'queueLengthLimit') ?? 0 },
      },
      LendablePercent: numberAt(limited, 'lendablePercent') ?? null,
      BorrowingLimitPercent: numberAt(limited, 'borrowingLimitPercent') ?? null,
    },
    Exempt: exempt === undefined ? null : { NominalConcurrencyShares: numberAt(exempt, 'nominalConcurrencyShares') ?? null, LendablePercent: numberAt(exempt, 'lendablePercent') ?? null },
  });
}

/** ValidateFlowSchema's rule for the mandatory schemas ('exempt', 'catch-all'): their spec is the fixed one. */
function checkMandatoryFlowSchema(fs: KubeObject): StatusCause[] {
  const name = fs.metadata.name ?? '';
  const fixed = mandatoryFlowSchemas.find((m) => m.metadata.name === name);
  if (fixed === undefined || goSpecEqual(fs.spec, fixed.spec)) return [];
  return [invalid('spec', goFlowSchemaSpec(objectAt(fs, 'spec')), `spec of '${name}' must equal the fixed value`)];
}

/** ValidateIfMandatoryPriorityLevelConfigurationObject: 'catch-all' is fixed, and so is 'exempt' but for its spec.exempt. */
function checkMandatoryPriorityLevel(plc: KubeObject): StatusCause[] {
  const name = plc.metadata.name ?? '';
  const fixed = objectAt(mandatoryPriorityLevels.find((m) => m.metadata.name === name), 'spec');
  if (fixed === undefined) return [];
  const spec = objectAt(plc, 'spec');
  if (name === exemptName) {
    if (goSpecEqual({ ...spec, exempt: fixed.exempt }, fixed)) return [];
    return [invalid('spec', goPriorityLevelSpec(spec), `spec of '${name}' except the 'spec.exempt' field must equal the fixed value`)];
  }
  return goSpecEqual(spec, fixed) ? [] : [invalid('spec', goPriorityLevelSpec(spec), `spec of '${name}' must equal the fixed value`)];
}

/** Upstream's ValidateFlowSchema beyond metadata (an update is checked the same). */
export function validateFlowSchema(fs: KubeObject): StatusCause[] {
  const spec = objectAt(fs, 'spec');
  const causes: StatusCause[] = [];
  const precedence = numberAt(spec, 'matchingPrecedence') ?? 0;
  if (precedence <= 0) causes.push(invalid('spec.matchingPrecedence', precedence, 'must be a positive value'));
  if (precedence > maxMatchingPrecedence) causes.push(invalid('spec.matchingPrecedence', precedence, `must not be greater than ${maxMatchingPrecedence}`));
  if (precedence === 1 && fs.metadata.name !== exemptName) causes.push(invalid('spec.matchingPrecedence', precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  const method = objectAt(spec, 'distinguisherMethod');
  if (method !== undefined && !distinguisherMethods.includes(stringAt(method, 'type'))) {
    // Upstream reports the whole internal *flowcontrol.FlowDistinguisherMethod.
    causes.push(notSupported('spec.distinguisherMethod.type', goJson({ Type: stringAt(method, 'type') }), distinguisherMethods));
  }
  const level = stringAt(objectAt(spec, 'priorityLevelConfiguration'), 'name');
  if (level === '') causes.push(required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  else for (const msg of isDNS1123Subdomain(level)) causes.push(invalid('spec.priorityLevelConfiguration.name', level, msg));
  objectsAt(spec, 'rules').forEach((rule, i) => {
    const path = index('spec.rules', i);
    const subjects = objectsAt(rule, 'subjects');
    if (subjects.length === 0) causes.push(required(child(path, 'subjects'), 'subjects must contain at least one value'));
    subjects.forEach((subject, j) => appendAll(causes, checkSubject(subject, index(child(path, 'subjects'), j))));
    const resourceRules = objectsAt(rule, 'resourceRules');
    const nonResourceRules = objectsAt(rule, 'nonResourceRules');
    if (resourceRules.length === 0 && nonResourceRules.length === 0) causes.push(required(path, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
    resourceRules.forEach((r, j) => appendAll(causes, checkResourceRule(r, index(child(path, 'resourceRules'), j))));
    nonResourceRules.forEach((r, j) => appendAll(causes, checkNonResourceRule(r, index(child(path, 'nonResourceRules'), j))));
  });
  appendAll(causes, checkMandatoryFlowSchema(fs));
  appendAll(causes, checkConditions(objectAt(fs, 'status')));
  return causes;
}

function checkPercent(owner: JsonObject, key: string, path: FieldPath): StatusCause[] {
  const value = owner[key];
  return typeof value === 'number' && (value < 0 || value > 100) ? [invalid(child(path, key), value, 'must be between 0 and 100, inclusive')] : [];
}

function checkQueuing(queuing: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const lengthLimit = numberAt(queuing, 'queueLengthLimit') ?? 0;
  if (lengthLimit <= 0) causes.push(invalid(child(path, 'queueLengthLimit'), lengthLimit, 'must be positive'));
  const queues = numberAt(queuing, 'queues') ?? 0;
  if (queues <= 0) causes.push(invalid(child(path, 'queues'), queues, 'must be positive'));
  else if (queues > maxQueues) causes.push(invalid(child(path, 'queues'), queues, `must not be greater than ${maxQueues}`));
  const handSize = numberAt(queuing, 'handSize') ?? 0;
  if (handSize <= 0) causes.push(invalid(child(path, 'handSize'), handSize, 'must be positive'));
  else if (handSize > queues) causes.push(invalid(child(path, 'handSize'), handSize, `should not be greater than queues (${queues})`));
  else if (Math.ceil(Math.log2(queues) * handSize) > maxHashBits) {
    causes.push(invalid(child(path, 'handSize'), handSize, `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${maxHashBits}`));
  }
  return causes;
}

function checkLimited(limited: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const shares = limited.nominalConcurrencyShares;
  // v1 lets a limited level have no shares at all.
  if (typeof shares === 'number' && shares < 0) causes.push(invalid(child(path, 'nominalConcurrencyShares'), shares, 'must be a non-negative integer'));
  const response = objectAt(limited, 'limitResponse');
  const responsePath = child(path, 'limitResponse');
  const type = stringAt(response, 'type');
  const queuing = objectAt(response, 'queuing');
  if (type === 'Reject') {
    if (queuing !== undefined) causes.push(forbidden(child(responsePath, 'queuing'), 'must be nil if limited.limitResponse.type is not Limited'));
  } else if (type === 'Queue') {
    if (queuing === undefined) causes.push(required(child(responsePath, 'queuing'), 'must not be empty if limited.limitResponse.type is Limited'));
    else appendAll(causes, checkQueuing(queuing, child(responsePath, 'queuing')));
  } else {
    causes.push(notSupported(child(responsePath, 'type'), type, limitResponseTypes));
  }
  appendAll(causes, checkPercent(limited, 'lendablePercent', path));
  const borrowing = limited.borrowingLimitPercent;
  if (typeof borrowing === 'number' && borrowing < 0) causes.push(invalid(child(path, 'borrowingLimitPercent'), borrowing, 'if specified, must be a non-negative integer'));
  return causes;
}

/** Upstream's ValidatePriorityLevelConfiguration beyond metadata (an update is checked the same). */
export function validatePriorityLevel(plc: KubeObject): StatusCause[] {
  const spec = objectAt(plc, 'spec');
  const causes: StatusCause[] = [];
  const type = stringAt(spec, 'type');
  if ((plc.metadata.name === exemptName) !== (type === 'Exempt')) causes.push(invalid('spec.type', type, "type must be 'Exempt' if and only if name is 'exempt'"));
  const limited = objectAt(spec, 'limited');
  const exempt = objectAt(spec, 'exempt');
  if (type === 'Exempt') {
    if (limited !== undefined) causes.push(forbidden('spec.limited', 'must be nil if the type is not Limited'));
    if (exempt !== undefined) {
      const shares = exempt.nominalConcurrencyShares;
      if (typeof shares === 'number' && shares < 0) causes.push(invalid('spec.exempt.nominalConcurrencyShares', shares, 'must be a non-negative integer'));
      appendAll(causes, checkPercent(exempt, 'lendablePercent', 'spec.exempt'));
    }
  } else if (type === 'Limited') {
    if (exempt !== undefined) causes.push(forbidden('spec.exempt', 'must be nil if the type is Limited'));
    if (limited === undefined) causes.push(required('spec.limited', 'must not be empty when type is Limited'));
    else appendAll(causes, checkLimited(limited, 'spec.limited'));
  } else {
    causes.push(notSupported('spec.type', type, levelTypes));
  }
  appendAll(causes, checkMandatoryPriorityLevel(plc));
  appendAll(causes, checkConditions(objectAt(plc, 'status')));
  return causes;
}

/**
 * A status write changes the status alone: the stored spec and metadata stay, but for the
 * managed fields the write recorded (both types' status strategies reset the whole ObjectMeta).
 */
function keepAllButStatus(obj: KubeObject, old: KubeObject): void {
  keepOldSpec(obj, old);
  const meta = obj.metadata as unknown as JsonObject;
  const oldMeta = old.metadata as unknown as JsonObject;
  for (const key of Object.keys(meta)) if (key !== 'managedFields' && !(key in oldMeta)) delete meta[key];
  for (const [key, value] of Object.entries(oldMeta)) if (key !== 'managedFields' && key !== 'resourceVersion') meta[key] = clone(value);
}

/** A status write is checked for its conditions only (upstream's ValidateFlowSchemaStatusUpdate and the priority levels' alike). */
const statusSubresource = {
  status: {
    prepareForUpdate: keepAllButStatus,
    validateUpdate: (obj: KubeObject) => checkConditions(objectAt(obj, 'status')),
  },
};

export function flowSchemasType(): ResourceType {
  return builtinType('flowcontrol.apiserver.k8s.io', 'v1', 'flowschemas', {
    strategy: specStatusStrategy({
      defaults: defaultFlowSchema,
      validate: validateFlowSchema,
      subresources: statusSubresource,
    }),
    tableColumns: flowSchemaColumns,
  });
}

export function priorityLevelConfigurationsType(): ResourceType {
  return builtinType('flowcontrol.apiserver.k8s.io', 'v1', 'prioritylevelconfigurations', {
    strategy: specStatusStrategy({
      defaults: defaultPriorityLevel,
      validate: validatePriorityLevel,
      subresources: statusSubresource,
    }),
    tableColumns: priorityLevelColumns,
  });
}
