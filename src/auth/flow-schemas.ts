// API Priority and Fairness' classification: which FlowSchema a request matches, and so
// which PriorityLevelConfiguration serves it, as upstream's flowcontrol matching
// (apiserver/pkg/util/flowcontrol: rule.go's matching, the controller's order of
// schemas). The schemas are tried by matchingPrecedence, then name; one whose priority
// level does not exist (dangling) is passed over; the first whose rules match wins.
// Nothing matching, the request goes to the mandatory catch-all.
import type { KubeObject } from '../api/index.ts';
import type { UserInfo } from './user.ts';

/** What of a request the rules look at (the request info's fields upstream's rules read). */
export type FlowRequest =
  | { isResourceRequest: true; verb: string; group: string; resource: string; subresource: string; namespace: string }
  | { isResourceRequest: false; verb: string; path: string };

/** A request's classification: its schema and level, and how its flow is told apart. */
export interface Classification {
  schemaName: string;
  schemaUid: string;
  levelUid: string;
  /** The level: its name, whether it is Exempt (its requests never limited or queued), its dispatching. */
  level: LevelConfig;
  /** The flow distinguisher: the user's name (ByUser), the namespace (ByNamespace), or empty. */
  flow: string;
}

interface Subject {
  kind?: string;
  user?: { name?: string };
  group?: { name?: string };
  serviceAccount?: { name?: string; namespace?: string };
}
interface ResourceRule { verbs?: string[]; apiGroups?: string[]; resources?: string[]; clusterScope?: boolean; namespaces?: string[] }
interface NonResourceRule { verbs?: string[]; nonResourceURLs?: string[] }
interface PolicyRules { subjects?: Subject[]; resourceRules?: ResourceRule[]; nonResourceRules?: NonResourceRule[] }

interface Schema {
  name: string;
  uid: string;
  precedence: number;
  level: string;
  distinguisher: string | undefined;
  rules: PolicyRules[];
}

/** A priority level as dispatching needs it (server/priority-levels.ts). */
export interface LevelConfig {
  name: string;
  exempt: boolean;
  /** nominalConcurrencyShares (v1's default 30 when a Limited level leaves it out; an Exempt one's 0). */
  shares: number;
  /** The percent of its nominal seats it lends to busier levels; undefined: 0. */
  lendablePercent?: number;
  /** The percent of its nominal seats it may borrow; undefined: as many as the server has. */
  borrowingLimitPercent?: number;
  /** Its queues; undefined for a level that rejects past its limit. */
  queuing?: { queues: number; handSize: number; queueLengthLimit: number };
}

interface Level {
  uid: string;
  config: LevelConfig;
}

function levelFrom(object: KubeObject): Level {
  const name = object.metadata.name ?? '';
  const spec = (object.spec ?? {}) as {
    type?: string;
    exempt?: { nominalConcurrencyShares?: number; lendablePercent?: number };
    limited?: { nominalConcurrencyShares?: number; lendablePercent?: number; borrowingLimitPercent?: number | null; limitResponse?: { type?: string; queuing?: { queues?: number; handSize?: number; queueLengthLimit?: number } } };
  };
  const exempt = spec.type === 'Exempt';
  const response = exempt ? undefined : spec.limited?.limitResponse;
  const config: LevelConfig = {
    name, exempt,
    shares: exempt ? spec.exempt?.nominalConcurrencyShares ?? 0 : spec.limited?.nominalConcurrencyShares ?? 30,
    lendablePercent: (exempt ? spec.exempt?.lendablePercent : spec.limited?.lendablePercent) ?? 0,
    ...(!exempt && typeof spec.limited?.borrowingLimitPercent === 'number' ? { borrowingLimitPercent: spec.limited.borrowingLimitPercent } : {}),
    ...(response?.type === 'Queue'
      ? { queuing: { queues: response.queuing?.queues ?? 64, handSize: response.queuing?.handSize ?? 8, queueLengthLimit: response.queuing?.queueLengthLimit ?? 50 } }
      : {}),
  };
  return { uid: object.metadata.uid ?? '', config };
}

const serviceAccountPrefix = 'system:serviceaccount:';

/**
 * Upstream's containsString: the wildcard counts only as the list's one member (validation sees
 * to it). A list left out or stored empty is Go's nil (`null`): it holds nothing.
 */
function contains(value: string, list: readonly string[] | null | undefined, wildcard: string): boolean {
  if (list === undefined || list === null) return false;
  if (list.length === 1 && list[0] === wildcard) return true;
  return list.includes(value);
}

function matchesSubject(user: UserInfo, subject: Subject): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.user !== undefined && (subject.user.name === '*' || subject.user.name === user.name);
    case 'Group': {
      const seek = subject.group?.name;
      if (seek === undefined) return false;
      return seek === '*' || user.groups.includes(seek);
    }
    case 'ServiceAccount': {
      const account = subject.serviceAccount;
      if (account === undefined) return false;
      const namespace = account.namespace ?? '';
      if (account.name === '*') return user.name.startsWith(`${serviceAccountPrefix}${namespace}:`);
      return user.name === `${serviceAccountPrefix}${namespace}:${account.name ?? ''}`;
    }
    default:
      return false;
  }
}

/** A rule's non-resource URL: `*`, the path itself, or a prefix (`/healthz` covers `/healthz/etcd`; `/apis/*` all under `/apis/`). */
function matchesURL(urls: readonly string[] | undefined, path: string): boolean {
  for (const url of urls ?? []) {
    if (url === '*' || url === path) return true;
    let prefix = url.endsWith('*') ? url.slice(0, -1) : url;
    if (!prefix.endsWith('/')) prefix += '/';
    if (path.startsWith(prefix)) return true;
  }
  return false;
}

function matchesRules(request: FlowRequest, rules: PolicyRules): boolean {
  if (request.isResourceRequest) {
    const resource = request.subresource === '' ? request.resource : `${request.resource}/${request.subresource}`;
    return (rules.resourceRules ?? []).some((rule) =>
      contains(request.verb, rule.verbs, '*')
      && contains(resource, rule.resources, '*')
      && contains(request.group, rule.apiGroups, '*')
      && (request.namespace === '' ? rule.clusterScope === true : contains(request.namespace, rule.namespaces, '*')));
  }
  return (rules.nonResourceRules ?? []).some((rule) => contains(request.verb, rule.verbs, '*') && matchesURL(rule.nonResourceURLs, request.path));
}

/** Whether `schema`'s rules take the request (upstream's matchesFlowSchema). */
function matches(schema: Schema, user: UserInfo, request: FlowRequest): boolean {
  return schema.rules.some((rules) => (rules.subjects ?? []).some((subject) => matchesSubject(user, subject)) && matchesRules(request, rules));
}

function schemaOf(object: KubeObject): Schema {
  const spec = (object.spec ?? {}) as { matchingPrecedence?: number; priorityLevelConfiguration?: { name?: string }; distinguisherMethod?: { type?: string }; rules?: PolicyRules[] };
  return {
    name: object.metadata.name ?? '',
    uid: object.metadata.uid ?? '',
    precedence: spec.matchingPrecedence ?? 1000,
    level: spec.priorityLevelConfiguration?.name ?? '',
    distinguisher: spec.distinguisherMethod?.type,
    rules: spec.rules ?? [],
  };
}

/**
 * The FlowSchemas and priority levels as stored, kept current by whoever watches them
 * (cli/flow-control.ts), and the classification of each request against them.
 */
export class FlowClassifier {
  #schemas: Schema[] = [];
  #levels = new Map<string, Level>();
  #levelConfigs: readonly LevelConfig[] = [];
  /** The schemas in matching order with their levels: dangling ones left out. */
  #order: Array<{ schema: Schema; level: Level }> = [];

  /** Takes the FlowSchemas stored now. */
  setSchemas(objects: readonly KubeObject[]): void {
    this.#schemas = objects.map(schemaOf).sort((a, b) => a.precedence - b.precedence || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.#reorder();
  }

  /** Takes the PriorityLevelConfigurations stored now. */
  setLevels(objects: readonly KubeObject[]): void {
    this.#levels = new Map(objects.map((o) => {
      const level = levelFrom(o);
      return [level.config.name, level];
    }));
    this.#levelConfigs = [...this.#levels.values()].map((level) => level.config);
    this.#reorder();
  }

  /** Every level's configuration; the same array until the levels change. */
  levels(): readonly LevelConfig[] {
    return this.#levelConfigs;
  }

  /** The request's schema and level; undefined only when not even catch-all is stored. */
  classify(user: UserInfo, request: FlowRequest): Classification | undefined {
    for (const { schema, level } of this.#order) {
      if (matches(schema, user, request)) return classification(schema, level, user, request);
    }
    const catchAll = this.#order.find(({ schema }) => schema.name === 'catch-all');
    return catchAll === undefined ? undefined : classification(catchAll.schema, catchAll.level, user, request);
  }

  #reorder(): void {
    this.#order = this.#schemas.flatMap((schema) => {
      const level = this.#levels.get(schema.level);
      return level === undefined ? [] : [{ schema, level }];
    });
  }
}

function classification(schema: Schema, level: Level, user: UserInfo, request: FlowRequest): Classification {
  const flow = schema.distinguisher === 'ByUser' ? user.name : schema.distinguisher === 'ByNamespace' && request.isResourceRequest ? request.namespace : '';
  return { schemaName: schema.name, schemaUid: schema.uid, levelUid: level.uid, level: level.config, flow };
}
