// The authorizer chain, from `--authorization-config` (followed as the file changes) or the
// `--authorization-mode`, `--authorization-policy-file` (ABAC) and `--authorization-webhook-*`
// flags, composed as kube-apiserver composes it: the system:masters authorizer first, then each
// authorizer in order, the first that allows or denies deciding. Node, RBAC and ABAC are built
// once, at start; a reload may reorder them and change the webhooks, as upstream's reloader allows.
import { readFile } from 'node:fs/promises';
import { AgentPool } from '../admission/webhook-client.ts';
import { abacAuthorizer, parseAbacPolicies } from '../auth/abac.ts';
import { alwaysAllow, alwaysDeny, unionAuthorizer, type AuthorizationDecision, type Authorizer } from '../auth/authorize.ts';
import { privilegedGroupsAuthorizer } from '../auth/rbac.ts';
import type { RuleResolver } from '../auth/rule-resolver.ts';
import { systemMasters } from '../auth/user.ts';
import { webhookAuthorizer } from '../auth/webhook-authorizer.ts';
import { entriesOfFlags, loadAuthorizationConfiguration, parseAuthorizationConfiguration, type AuthorizerEntry, type MatchCondition, type WebhookSettings } from './authorization-config.ts';
import { UsageError, type Config } from './config.ts';
import { webhookCaller, type AttemptResult } from './webhook-caller.ts';
import { loadWebhookKubeconfig } from './webhook-kubeconfig.ts';
import { watchFile } from './watch-file.ts';

/** What authorization reports (ApiMetrics' upstream series). */
export interface AuthorizationMetrics {
  authorizationDecision(type: string, name: string, decision: 'allowed' | 'denied'): void;
  authorizationWebhookAttempt(name: string, result: AttemptResult, seconds: number): void;
  authorizationWebhookFailOpen(name: string, result: AttemptResult): void;
  authorizationMatchCondition(name: string, outcome: 'excluded' | 'error', seconds: number): void;
  authorizationConfig(data: string, status?: 'success' | 'failure'): void;
}

type ChainAuthorizer = Authorizer & RuleResolver;

/** The parts built once at start. */
export interface ChainParts {
  rbac?: ChainAuthorizer;
  node?: Authorizer;
}

/** The ABAC mode's policy file, read and parsed once at start as upstream's NewFromFile; a file that does not load fails the start. */
async function abacOf(file: string, log: (message: string) => void): Promise<ChainAuthorizer> {
  let loaded;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--authorization-policy-file: ${(err as Error).message}`);
  }
  try {
    loaded = parseAbacPolicies(text, file);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (loaded.unversioned > 0) log(`Policy file ${file} contained unversioned rules. See docs/admin/authorization.md#abac-mode for ABAC file format details.`);
  return abacAuthorizer(loaded.policies);
}

export interface AuthorizationSetup {
  /** The authorizer types of the chain at start: Node and RBAC are built for these. */
  types: ReadonlySet<string>;
  /** The chain once Node's and RBAC's authorizers exist; the file is followed from then on. */
  start(parts: ChainParts): Promise<ChainAuthorizer>;
  close(): void;
}

/** The match conditions as one function: false as soon as one is false; an error when none is and one could not be evaluated. */
function matcher(name: string, conditions: readonly MatchCondition[], metrics: AuthorizationMetrics | undefined): ((spec: Readonly<Record<string, unknown>>) => boolean) | undefined {
  if (conditions.length === 0) return undefined;
  return (spec) => {
    const started = performance.now();
    const errors: string[] = [];
    const done = (outcome: 'excluded' | 'error' | undefined) => {
      if (outcome !== undefined) metrics?.authorizationMatchCondition(name, outcome, (performance.now() - started) / 1000);
    };
    for (const condition of conditions) {
      let value: unknown;
      try {
        value = condition.evaluate(spec);
      } catch (err) {
        errors.push(`cel evaluation error: expression '${condition.expression}' resulted in error: ${(err as Error).message}`);
        continue;
      }
      if (typeof value !== 'boolean') {
        errors.push(`cel evaluation error: expression '${condition.expression}' eval result type should be bool but got ${typeof value}`);
        continue;
      }
      if (!value) {
        done(errors.length > 0 ? 'error' : undefined);
        done('excluded');
        return false;
      }
    }
    if (errors.length > 0) {
      done('error');
      throw new Error(errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`);
    }
    return true;
  };
}

async function webhookOf(name: string, settings: WebhookSettings, agents: AgentPool, metrics: AuthorizationMetrics | undefined): Promise<ChainAuthorizer> {
  const connection = await loadWebhookKubeconfig(settings.kubeConfigFile);
  const call = webhookCaller(connection, agents, {
    timeoutMs: settings.timeoutMs,
    ...(metrics !== undefined ? { onAttempt: (result: AttemptResult, seconds: number) => metrics.authorizationWebhookAttempt(name, result, seconds) } : {}),
  });
  const matches = matcher(name, settings.matchConditions, metrics);
  return webhookAuthorizer({
    name, version: settings.version, authorizedTtlMs: settings.authorizedTtlMs, unauthorizedTtlMs: settings.unauthorizedTtlMs, failurePolicy: settings.failurePolicy,
    call: metrics === undefined || settings.failurePolicy !== 'NoOpinion' ? call : async (review) => {
      try {
        return await call(review);
      } catch (err) {
        metrics.authorizationWebhookFailOpen(name, (err as { attemptResult?: AttemptResult }).attemptResult ?? 'error');
        throw err;
      }
    },
    ...(matches !== undefined ? { matches } : {}),
  });
}

/** Counts an authorizer's allow and deny decisions (upstream's InstrumentedAuthorizer), answering at once when it does. */
function instrumented(type: string, name: string, authorizer: Authorizer, metrics: AuthorizationMetrics | undefined): Authorizer {
  if (metrics === undefined) return authorizer;
  const record = (result: AuthorizationDecision): AuthorizationDecision => {
    if (result.decision === 'Allow') metrics.authorizationDecision(type, name, 'allowed');
    else if (result.decision === 'Deny') metrics.authorizationDecision(type, name, 'denied');
    return result;
  };
  const wrapped: Authorizer & Partial<RuleResolver> = {
    authorize(user, attributes) {
      const result = authorizer.authorize(user, attributes);
      return result instanceof Promise ? result.then(record) : record(result);
    },
  };
  const resolver = authorizer as Partial<RuleResolver>;
  if (resolver.rulesFor !== undefined) wrapped.rulesFor = resolver.rulesFor.bind(authorizer);
  return wrapped;
}

/** The chain of the entries: system:masters first, then each in order. */
async function chainOf(
  entries: readonly AuthorizerEntry[], parts: ChainParts, abac: ChainAuthorizer | undefined, agents: AgentPool, metrics: AuthorizationMetrics | undefined,
): Promise<ChainAuthorizer> {
  const authorizers: Authorizer[] = [privilegedGroupsAuthorizer([systemMasters])];
  for (const entry of entries) {
    let authorizer: Authorizer;
    if (entry.type === 'AlwaysAllow') authorizer = alwaysAllow;
    else if (entry.type === 'AlwaysDeny') authorizer = alwaysDeny;
    else if (entry.type === 'Node') authorizer = parts.node!;
    else if (entry.type === 'RBAC') authorizer = parts.rbac!;
    else if (entry.type === 'ABAC') authorizer = abac!;
    else authorizer = await webhookOf(entry.name, entry.webhook!, agents, metrics);
    authorizers.push(instrumented(entry.type, entry.name, authorizer, metrics));
  }
  return unionAuthorizer(authorizers);
}

export async function authorizationSetup(config: Config, log: (message: string) => void, metrics?: AuthorizationMetrics): Promise<AuthorizationSetup> {
  let loaded: { entries: AuthorizerEntry[]; data: string } | undefined;
  if (config.authorizationConfig !== undefined) {
    try {
      loaded = await loadAuthorizationConfiguration(config.authorizationConfig);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  const entries = loaded?.entries ?? entriesOfFlags(config);
  // A webhook's kubeconfig that does not load fails the start.
  for (const entry of entries) {
    if (entry.webhook === undefined) continue;
    try {
      await loadWebhookKubeconfig(entry.webhook.kubeConfigFile);
    } catch (err) {
      throw new UsageError(`authorization webhook ${JSON.stringify(entry.name)}: ${(err as Error).message}`);
    }
  }
  const types = new Set(entries.map((e) => e.type));
  const abac = config.authorizationPolicyFile !== undefined && types.has('ABAC') ? await abacOf(config.authorizationPolicyFile, log) : undefined;
  const agents = new AgentPool();
  let current: ChainAuthorizer | undefined;
  let following: { close(): void } | undefined;
  const chain: ChainAuthorizer = {
    authorize: (user, attributes) => current!.authorize(user, attributes),
    rulesFor: (user, namespace) => current!.rulesFor(user, namespace),
  };
  return {
    types,
    async start(parts) {
      current = await chainOf(entries, parts, abac, agents, metrics);
      if (loaded !== undefined) {
        metrics?.authorizationConfig(loaded.data);
        following = followFile(config.authorizationConfig!, loaded.data, types, async (next) => {
          current = await chainOf(next, parts, abac, agents, metrics);
        }, log, metrics);
      }
      return chain;
    },
    close() {
      following?.close();
      agents.close();
    },
  };
}

/**
 * Reloads the chain when the file changes, as upstream's reloader: a file that cannot be
 * read, does not load, is invalid or adds or drops Node or RBAC is logged and skipped (the
 * current chain stays) until it changes again.
 */
function followFile(
  file: string, initialData: string, initialTypes: ReadonlySet<string>, install: (entries: AuthorizerEntry[]) => Promise<void>,
  log: (message: string) => void, metrics: AuthorizationMetrics | undefined,
): { close(): void } {
  let tracked = initialData;
  const failed = (err: unknown, data: string) => {
    log(`reloading authorization config: ${(err as Error).message}`);
    metrics?.authorizationConfig(data, 'failure');
  };
  const reload = async (): Promise<void> => {
    let data: string;
    try {
      data = await readFile(file, 'utf8');
    } catch (err) {
      failed(err, '');
      return;
    }
    if (data === tracked) return;
    tracked = data;
    log('found new authorization config data');
    let entries: AuthorizerEntry[];
    try {
      entries = await parseAuthorizationConfiguration(data, { initialTypes });
      for (const entry of entries) if (entry.webhook !== undefined) await loadWebhookKubeconfig(entry.webhook.kubeConfigFile);
      await install(entries);
    } catch (err) {
      failed(err, data);
      return;
    }
    log('reloaded authz config');
    metrics?.authorizationConfig(data, 'success');
  };
  return watchFile(file, reload);
}
