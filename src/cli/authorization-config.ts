// --authorization-config: upstream's AuthorizationConfiguration (apiserver.config.k8s.io v1,
// v1beta1, v1alpha1): the authorizer chain in order, Node, RBAC, AlwaysAllow, AlwaysDeny and
// any number of webhooks (each with its timeout, cache TTLs, SubjectAccessReview version,
// failure policy, kubeconfig and CEL match conditions). Decoded strictly and validated as
// upstream's ValidateAuthorizationConfiguration and kube-apiserver's own checks, with their
// field paths and words. The `--authorization-mode` and `--authorization-webhook-*` flags
// describe the same chain.
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { child, duplicate, index, invalid, notSupported, required, tooMany } from '../api/field-errors.ts';
import { isDNS1123Subdomain } from '../api/labels.ts';
import type { StatusCause } from '../api/types.ts';
import { cel, loadCel } from '../cel/lazy.ts';
import { DecodeError, decodeConfiguration, fieldErrorsText, type Structs } from './config-decoding.ts';
import { goDuration, type Config } from './config.ts';

/** ABAC only from the `--authorization-mode` flag: upstream's file does not take it. */
export type AuthorizerType = 'AlwaysAllow' | 'AlwaysDeny' | 'ABAC' | 'Node' | 'RBAC' | 'Webhook';

/** A match condition compiled: its expression and a function of the review's spec. */
export interface MatchCondition {
  expression: string;
  evaluate(spec: Readonly<Record<string, unknown>>): unknown;
}

export interface WebhookSettings {
  timeoutMs: number;
  /** 0: answers of that kind are not cached. */
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  version: 'v1' | 'v1beta1';
  failurePolicy: 'NoOpinion' | 'Deny';
  kubeConfigFile: string;
  matchConditions: MatchCondition[];
}

export interface AuthorizerEntry {
  type: AuthorizerType;
  name: string;
  webhook?: WebhookSettings;
}

/** The chain the `--authorization-mode` and `--authorization-webhook-*` flags describe, as upstream builds it from them. */
export function entriesOfFlags(config: Config): AuthorizerEntry[] {
  return config.authorizationModes.map((mode) => {
    if (mode !== 'Webhook') return { type: mode, name: mode.toLowerCase() };
    const flags = config.authorizationWebhook!;
    return {
      type: 'Webhook', name: 'default',
      webhook: {
        timeoutMs: 30_000, authorizedTtlMs: flags.authorizedTtlMs, unauthorizedTtlMs: flags.unauthorizedTtlMs, version: flags.version,
        failurePolicy: 'NoOpinion', kubeConfigFile: flags.configFile, matchConditions: [],
      },
    };
  });
}

// ---- Decoding. ----

const structs: Structs = {
  AuthorizationConfiguration: { authorizers: { list: 'AuthorizerConfiguration' } },
  AuthorizerConfiguration: { type: 'string', name: 'string', webhook: { struct: 'WebhookConfiguration', pointer: true } },
  WebhookConfiguration: {
    authorizedTTL: 'duration', cacheAuthorizedRequests: '*bool', unauthorizedTTL: 'duration', cacheUnauthorizedRequests: '*bool', timeout: 'duration',
    subjectAccessReviewVersion: 'string', matchConditionSubjectAccessReviewVersion: 'string', failurePolicy: 'string',
    connectionInfo: { struct: 'WebhookConnectionInfo' }, matchConditions: { list: 'WebhookMatchCondition' },
  },
  WebhookConnectionInfo: { type: 'string', kubeConfigFile: '*string' },
  WebhookMatchCondition: { expression: 'string' },
};

interface WebhookConfig {
  authorizedTTL: number; cacheAuthorizedRequests?: boolean; unauthorizedTTL: number; cacheUnauthorizedRequests?: boolean; timeout: number;
  subjectAccessReviewVersion: string; matchConditionSubjectAccessReviewVersion: string; failurePolicy: string;
  connectionInfo: { type: string; kubeConfigFile?: string }; matchConditions: { expression: string }[];
}
interface AuthorizerConfig { type: string; name: string; webhook?: WebhookConfig }

/** kube-apiserver's known types (ABAC is one, but Plinth has no ABAC authorizer). */
const knownTypes = ['AlwaysAllow', 'AlwaysDeny', 'Node', 'RBAC', 'Webhook'];

/** Upstream's ValidateWebhookConfiguration (its paths are the authorizer's, not `.webhook`'s), with match conditions compiled. */
function validateWebhook(w: WebhookConfig, at: string, causes: StatusCause[]): WebhookSettings | undefined {
  const before = causes.length;
  if (w.timeout === 0) causes.push(required(child(at, 'timeout')));
  else if (w.timeout > 30_000 || w.timeout < 0) causes.push(invalid(child(at, 'timeout'), goDuration(w.timeout), 'must be > 0s and <= 30s'));
  // v1's defaults: 5m and 30s for TTLs left out, both caches on.
  const authorizedTtl = w.authorizedTTL === 0 ? 300_000 : w.authorizedTTL;
  const unauthorizedTtl = w.unauthorizedTTL === 0 ? 30_000 : w.unauthorizedTTL;
  if (w.subjectAccessReviewVersion === '') causes.push(required(child(at, 'subjectAccessReviewVersion')));
  else if (w.subjectAccessReviewVersion !== 'v1' && w.subjectAccessReviewVersion !== 'v1beta1') {
    causes.push(notSupported(child(at, 'subjectAccessReviewVersion'), w.subjectAccessReviewVersion, ['v1', 'v1beta1']));
  }
  if (w.matchConditionSubjectAccessReviewVersion === '') {
    if (w.matchConditions.length > 0) causes.push(required(child(at, 'matchConditionSubjectAccessReviewVersion'), 'required if match conditions are specified'));
  } else if (w.matchConditionSubjectAccessReviewVersion !== 'v1') {
    causes.push(notSupported(child(at, 'matchConditionSubjectAccessReviewVersion'), w.matchConditionSubjectAccessReviewVersion, ['v1']));
  }
  if (w.failurePolicy === '') causes.push(required(child(at, 'failurePolicy')));
  else if (w.failurePolicy !== 'NoOpinion' && w.failurePolicy !== 'Deny') causes.push(notSupported(child(at, 'failurePolicy'), w.failurePolicy, ['NoOpinion', 'Deny']));
  const connectionAt = child(at, 'connectionInfo');
  const file = w.connectionInfo.kubeConfigFile;
  if (w.connectionInfo.type === '') causes.push(required(child(connectionAt, 'type')));
  else if (w.connectionInfo.type === 'InClusterConfig') {
    if (file !== undefined) causes.push(invalid(child(connectionAt, 'kubeConfigFile'), file, 'can only be set when type=KubeConfigFile'));
    // Upstream allows it for aggregated servers only; kube-apiserver (and Plinth) runs outside any cluster.
    else causes.push(invalid(child(connectionAt, 'type'), 'InClusterConfig', 'InClusterConfig is not allowed for kube-apiserver: use KubeConfigFile'));
  } else if (w.connectionInfo.type === 'KubeConfigFile') {
    const fileAt = child(connectionAt, 'kubeConfigFile');
    if (file === undefined || file === '') causes.push(required(fileAt));
    else if (!path.isAbsolute(file)) causes.push(invalid(fileAt, file, 'must be an absolute path'));
    else {
      try {
        if (!statSync(file).isFile()) causes.push(invalid(fileAt, file, 'must be a regular file'));
      } catch (err) {
        causes.push(invalid(fileAt, file, `error loading file: stat ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`));
      }
    }
  } else {
    causes.push(notSupported(child(connectionAt, 'type'), w.connectionInfo.type, ['InClusterConfig', 'KubeConfigFile']));
  }
  const matchConditions: MatchCondition[] = [];
  if (w.matchConditions.length > 64) causes.push(tooMany(child(at, 'matchConditions'), w.matchConditions.length, 64));
  else {
    const seen = new Set<string>();
    w.matchConditions.forEach((condition, i) => {
      const conditionAt = child(index(child(at, 'matchConditions'), i), 'expression');
      if (condition.expression.trim() === '') {
        causes.push(required(conditionAt));
        return;
      }
      if (seen.has(condition.expression)) {
        causes.push(duplicate(conditionAt, condition.expression));
        return;
      }
      seen.add(condition.expression);
      const compiled = cel().compileAuthorizationCondition(condition.expression);
      if ('error' in compiled) causes.push(invalid(conditionAt, condition.expression, compiled.error));
      else matchConditions.push({ expression: condition.expression, evaluate: compiled.evaluate });
    });
  }
  if (causes.length > before) return undefined;
  return {
    timeoutMs: w.timeout,
    authorizedTtlMs: w.cacheAuthorizedRequests === false ? 0 : authorizedTtl,
    unauthorizedTtlMs: w.cacheUnauthorizedRequests === false ? 0 : unauthorizedTtl,
    version: w.subjectAccessReviewVersion as 'v1' | 'v1beta1',
    failurePolicy: w.failurePolicy as 'NoOpinion' | 'Deny',
    kubeConfigFile: file!,
    matchConditions,
  };
}

/** What a reload may not change: the types (but Webhook) the server started with. */
export interface ReloadLimits {
  initialTypes: ReadonlySet<string>;
}

export class InvalidAuthorizationConfiguration extends Error {}

/**
 * The configuration decoded, validated (upstream's rules, then kube-apiserver's: each
 * non-webhook authorizer named as its type in lower case; on a reload the same non-webhook
 * types as at start) and its match conditions compiled.
 */
export async function parseAuthorizationConfiguration(data: string, limits?: ReloadLimits): Promise<AuthorizerEntry[]> {
  const decoded = (await decodeConfiguration(data, 'AuthorizationConfiguration', structs)) as unknown as { authorizers: AuthorizerConfig[] };
  if (decoded.authorizers.some((a) => (a.webhook?.matchConditions.length ?? 0) > 0)) await loadCel();
  const causes: StatusCause[] = [];
  const entries: AuthorizerEntry[] = [];
  if (decoded.authorizers.length === 0) causes.push(required('authorizers', 'at least one authorization mode must be defined'));
  const seenTypes = new Set<string>();
  const seenNames = new Set<string>();
  decoded.authorizers.forEach((a, i) => {
    const at = index('authorizers', i);
    if (a.type === '') {
      causes.push(required(child(at, 'type')));
      return;
    }
    if (!knownTypes.includes(a.type)) {
      causes.push(notSupported(child(at, 'type'), a.type, knownTypes));
      return;
    }
    if (seenTypes.has(a.type) && a.type !== 'Webhook') {
      causes.push(duplicate(child(at, 'type'), a.type));
      return;
    }
    seenTypes.add(a.type);
    if (a.name === '') causes.push(required(child(at, 'name')));
    else if (seenNames.has(a.name)) causes.push(duplicate(child(at, 'name'), a.name));
    else {
      const errs = isDNS1123Subdomain(a.name);
      if (errs.length > 0) causes.push(invalid(child(at, 'name'), a.name, `authorizer name is invalid: ${errs.join(', ')}`));
    }
    seenNames.add(a.name);
    if (a.type === 'Webhook') {
      if (a.webhook === undefined) {
        causes.push(required(child(at, 'webhook'), 'required when type=Webhook'));
        return;
      }
      const webhook = validateWebhook(a.webhook, at, causes);
      if (webhook !== undefined) entries.push({ type: 'Webhook', name: a.name, webhook });
      return;
    }
    if (a.webhook !== undefined) causes.push(invalid(child(at, 'webhook'), 'non-null', 'may only be specified when type=Webhook'));
    entries.push({ type: a.type as AuthorizerType, name: a.name });
  });
  if (causes.length > 0) throw new InvalidAuthorizationConfiguration(fieldErrorsText(causes));
  // kube-apiserver's own checks.
  const misnamed = entries.find((e) => e.type !== 'Webhook' && e.name !== e.type.toLowerCase());
  if (misnamed !== undefined) throw new InvalidAuthorizationConfiguration(`expected name ${misnamed.type.toLowerCase()} for authorizer ${misnamed.type} instead of ${misnamed.name}`);
  if (limits !== undefined) {
    const added = entries.find((e) => (e.type === 'Node' || e.type === 'RBAC') && !limits.initialTypes.has(e.type));
    if (added !== undefined) throw new InvalidAuthorizationConfiguration(`authorizer type ${added.type} is not allowed if it was not enabled at initial server startup`);
    const missing = [...limits.initialTypes].filter((t) => t !== 'Webhook' && !entries.some((e) => e.type === t)).sort();
    if (missing.length > 0) throw new InvalidAuthorizationConfiguration(`missing required types: [${missing.join(' ')}]`);
  }
  return entries;
}

/** The file read and parsed; errors worded as kube-apiserver's start-up words them. */
export async function loadAuthorizationConfiguration(file: string): Promise<{ entries: AuthorizerEntry[]; data: string }> {
  let data: string;
  try {
    data = await readFile(file, 'utf8');
  } catch (err) {
    throw new Error(`failed to load AuthorizationConfiguration from file: ${(err as Error).message}`);
  }
  try {
    return { entries: await parseAuthorizationConfiguration(data), data };
  } catch (err) {
    if (err instanceof DecodeError || err instanceof InvalidAuthorizationConfiguration) throw new Error(`failed to load AuthorizationConfiguration from file: ${err.message}`);
    throw err;
  }
}
