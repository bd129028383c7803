// Kubernetes' CEL authorizer library (upstream's cel/library/authz.go), which admission
// policies and webhook match conditions see as `authorizer`: checks of what the requesting
// user (or a service account) may do, answered by the server's own authorizer.
//
//   authorizer.group('apps').resource('deployments').namespace('ns').name('x').check('update').allowed()
//   authorizer.path('/healthz').check('get').allowed()
//   authorizer.serviceAccount('ns', 'sa').group('').resource('pods').check('list').reason()
//   authorizer.requestResource.subresource('status').check('custom-verb').allowed()
//
// A check the authorizer answers at once is answered at once; one it answers later (a
// webhook) makes the expression's evaluation a promise, which the callers await.
import type { Environment } from '@marcbachmann/cel-js';
import { parseFieldSelector } from '../api/fields.ts';
import type { RequestUser } from '../api/request-context.ts';

// What the server's authorizer is asked and answers, as the library needs it (auth/authorize.ts
// has the whole; CEL sits below auth and is handed the authorizer).
interface AuthorizationAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
  version?: string;
  fieldSelector?: ReturnType<typeof parseFieldSelector>['terms'];
  labelSelector?: string;
}

interface AuthorizationDecision {
  decision: 'Allow' | 'Deny' | 'NoOpinion';
  reason?: string;
  error?: string;
}

/** The server's authorizer (auth/authorize.ts), as the library asks it. */
export type Authorize = (user: RequestUser, attributes: AuthorizationAttributes) => AuthorizationDecision | Promise<AuthorizationDecision>;

/** Without the server's authorizer (tests), every check has no opinion. */
export const noAuthorizer: Authorize = () => ({ decision: 'NoOpinion', reason: 'no authorizer is configured' });

/** The request's own resource, for `authorizer.requestResource`. */
export interface RequestResource {
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

export class CelAuthorizer {
  readonly user: RequestUser;
  readonly authorize: Authorize;
  /** A check of the request's own resource (upstream's `authorizer.requestResource`). */
  readonly requestResource: CelResourceCheck | null;

  constructor(user: RequestUser, authorize: Authorize, request?: RequestResource) {
    this.user = user;
    this.authorize = authorize;
    this.requestResource = request === undefined ? null : new CelResourceCheck(this, request.group, request.resource, {
      subresource: request.subresource, namespace: request.namespace, name: request.name,
    });
  }
}

export class CelPathCheck {
  readonly authorizer: CelAuthorizer;
  readonly path: string;

  constructor(authorizer: CelAuthorizer, path: string) {
    this.authorizer = authorizer;
    this.path = path;
  }
}

export class CelGroupCheck {
  readonly authorizer: CelAuthorizer;
  readonly group: string;

  constructor(authorizer: CelAuthorizer, group: string) {
    this.authorizer = authorizer;
    this.group = group;
  }
}

interface ResourceCheckParts {
  subresource: string;
  namespace: string;
  name: string;
  fieldSelector: string;
  labelSelector: string;
}

export class CelResourceCheck {
  readonly authorizer: CelAuthorizer;
  readonly group: string;
  readonly resource: string;
  readonly parts: ResourceCheckParts;

  constructor(authorizer: CelAuthorizer, group: string, resource: string, parts: Partial<ResourceCheckParts> = {}) {
    this.authorizer = authorizer;
    this.group = group;
    this.resource = resource;
    this.parts = { subresource: '', namespace: '', name: '', fieldSelector: '', labelSelector: '', ...parts };
  }

  with(parts: Partial<ResourceCheckParts>): CelResourceCheck {
    return new CelResourceCheck(this.authorizer, this.group, this.resource, { ...this.parts, ...parts });
  }
}

export class CelDecision {
  readonly allowed: boolean;
  readonly reason: string;
  readonly error: string | undefined;

  constructor(decision: AuthorizationDecision) {
    this.allowed = decision.decision === 'Allow';
    this.reason = decision.reason ?? '';
    this.error = decision.error;
  }
}

/** The decision the authorizer gives, at once when it can. */
function decide(authorizer: CelAuthorizer, attributes: AuthorizationAttributes): CelDecision | Promise<CelDecision> {
  const toDecision = (d: AuthorizationDecision) => new CelDecision(d);
  const failed = (err: unknown) => new CelDecision({ decision: 'NoOpinion', error: (err as Error)?.message ?? String(err) });
  try {
    const answer = authorizer.authorize(authorizer.user, attributes);
    return answer instanceof Promise ? answer.then(toDecision, failed) : toDecision(answer);
  } catch (err) {
    return failed(err);
  }
}

function resourceAttributes(check: CelResourceCheck, verb: string): AuthorizationAttributes {
  const { parts } = check;
  const attributes: AuthorizationAttributes = {
    // Any version, the request's own resource too, as upstream's checks ask.
    verb, group: check.group, resource: check.resource, subresource: parts.subresource, namespace: parts.namespace, name: parts.name, path: '', version: '*',
  };
  if (parts.labelSelector !== '') attributes.labelSelector = parts.labelSelector;
  if (parts.fieldSelector !== '') {
    try {
      attributes.fieldSelector = parseFieldSelector(parts.fieldSelector).terms;
    } catch {
      // Upstream passes the parse error on; the authorizers here read only well-formed selectors.
    }
  }
  return attributes;
}

const ns = 'kubernetes.authorization.';

/** Registers the library's types and functions. */
export function registerAuthzLibrary(env: Environment): void {
  // No fields: what the values hold is not CEL's to read, but the request's own resource check.
  env.registerType(`${ns}Authorizer`, { ctor: CelAuthorizer, fields: { requestResource: `${ns}ResourceCheck` } });
  env.registerType(`${ns}PathCheck`, { ctor: CelPathCheck, fields: {} });
  env.registerType(`${ns}GroupCheck`, { ctor: CelGroupCheck, fields: {} });
  env.registerType(`${ns}ResourceCheck`, { ctor: CelResourceCheck, fields: {} });
  env.registerType(`${ns}Decision`, { ctor: CelDecision, fields: {} });
  const fn = (signature: string, handler: (...args: any[]) => unknown) => env.registerFunction(signature, handler);
  fn(`${ns}Authorizer.path(string): ${ns}PathCheck`, (a: CelAuthorizer, path: string) => new CelPathCheck(a, path));
  fn(`${ns}Authorizer.group(string): ${ns}GroupCheck`, (a: CelAuthorizer, group: string) => new CelGroupCheck(a, group));
  fn(`${ns}Authorizer.serviceAccount(string, string): ${ns}Authorizer`, (a: CelAuthorizer, namespace: string, name: string) =>
    new CelAuthorizer({ name: `system:serviceaccount:${namespace}:${name}`, uid: '', groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`] }, a.authorize));
  fn(`${ns}GroupCheck.resource(string): ${ns}ResourceCheck`, (g: CelGroupCheck, resource: string) => new CelResourceCheck(g.authorizer, g.group, resource));
  for (const part of ['subresource', 'namespace', 'name', 'fieldSelector', 'labelSelector'] as const) {
    fn(`${ns}ResourceCheck.${part}(string): ${ns}ResourceCheck`, (r: CelResourceCheck, value: string) => r.with({ [part]: value }));
  }
  fn(`${ns}ResourceCheck.check(string): ${ns}Decision`, (r: CelResourceCheck, verb: string) => decide(r.authorizer, resourceAttributes(r, verb)));
  fn(`${ns}PathCheck.check(string): ${ns}Decision`, (p: CelPathCheck, verb: string) =>
    decide(p.authorizer, { verb, group: '', resource: '', subresource: '', namespace: '', name: '', path: p.path }));
  fn(`${ns}Decision.allowed(): bool`, (d: CelDecision) => d.allowed);
  fn(`${ns}Decision.reason(): string`, (d: CelDecision) => d.reason);
  fn(`${ns}Decision.errored(): bool`, (d: CelDecision) => d.error !== undefined);
  fn(`${ns}Decision.error(): string`, (d: CelDecision) => d.error ?? '');
}
