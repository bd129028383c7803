// --authentication-config: upstream's AuthenticationConfiguration (apiserver.config.k8s.io
// v1, v1beta1, v1alpha1): JWT authenticators (several issuers, each with its audiences, CA,
// claim validation rules, claim mappings by claim or CEL expression, user validation rules)
// and anonymous access limited to some paths. Decoded strictly and validated as upstream's
// ValidateAuthenticationConfiguration, with its field paths and words; the expressions are
// compiled here, and the auth layer gets them as functions.
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { child, duplicate, goJson, index, invalid, required, tooMany } from '../api/field-errors.ts';
import { isDomainPrefixedPath } from '../api/labels.ts';
import type { StatusCause } from '../api/types.ts';
import type { CompiledExpression, JwtAuthenticatorSpec, PrefixedClaimOrExpression } from '../auth/oidc.ts';
import { cel, loadCel } from '../cel/lazy.ts';
import { DecodeError, decodeConfiguration, fieldErrorsText, type Structs } from './config-decoding.ts';
import type { JwtEntry } from './jwt-authenticators.ts';

// ---- The types, as decoded (Go's zero values for what the file leaves out). ----

interface PrefixedClaimOrExpressionConfig { claim: string; prefix?: string; expression: string }
interface JwtConfig {
  issuer: { url: string; discoveryURL?: string; certificateAuthority: string; audiences: string[]; audienceMatchPolicy: string; egressSelectorType: string };
  claimValidationRules: { claim: string; requiredValue: string; expression: string; message: string }[];
  claimMappings: {
    username: PrefixedClaimOrExpressionConfig;
    groups: PrefixedClaimOrExpressionConfig;
    uid: { claim: string; expression: string };
    extra: { key: string; valueExpression: string }[];
  };
  userValidationRules: { expression: string; message: string }[];
}
export interface AnonymousConfig { enabled: boolean; conditions: { path: string }[] }
interface AuthenticationConfiguration { jwt: JwtConfig[]; anonymous?: AnonymousConfig }

// ---- Decoding: each struct's fields with their Go types. ----

const structs: Structs = {
  AuthenticationConfiguration: { jwt: { list: 'JWTAuthenticator' }, anonymous: { struct: 'AnonymousAuthConfig', pointer: true } },
  JWTAuthenticator: {
    issuer: { struct: 'Issuer' }, claimValidationRules: { list: 'ClaimValidationRule' }, claimMappings: { struct: 'ClaimMappings' },
    userValidationRules: { list: 'UserValidationRule' },
  },
  Issuer: { url: 'string', discoveryURL: '*string', certificateAuthority: 'string', audiences: '[]string', audienceMatchPolicy: 'string', egressSelectorType: 'string' },
  ClaimValidationRule: { claim: 'string', requiredValue: 'string', expression: 'string', message: 'string' },
  ClaimMappings: {
    username: { struct: 'PrefixedClaimOrExpression' }, groups: { struct: 'PrefixedClaimOrExpression' }, uid: { struct: 'ClaimOrExpression' },
    extra: { list: 'ExtraMapping' },
  },
  PrefixedClaimOrExpression: { claim: 'string', prefix: '*string', expression: 'string' },
  ClaimOrExpression: { claim: 'string', expression: 'string' },
  ExtraMapping: { key: 'string', valueExpression: 'string' },
  UserValidationRule: { expression: 'string', message: 'string' },
  AnonymousAuthConfig: { enabled: 'bool', conditions: { list: 'AnonymousAuthCondition' } },
  AnonymousAuthCondition: { path: 'string' },
};

/** The file's configuration, decoded strictly into its Go types. */
export async function decodeAuthenticationConfiguration(text: string): Promise<AuthenticationConfiguration> {
  return (await decodeConfiguration(text, 'AuthenticationConfiguration', structs)) as unknown as AuthenticationConfiguration;
}

// ---- Validation (upstream's ValidateAuthenticationConfiguration). ----

/** Go's url.Parse, as far as validation needs it: the scheme, user info, query and fragment, or its error. */
function goUrl(raw: string): { scheme: string; user: boolean; query: string; fragment: string } | { error: string } {
  if (/[\x00-\x1f\x7f]/.test(raw)) return { error: `parse ${JSON.stringify(raw)}: net/url: invalid control character in URL` };
  const hash = raw.indexOf('#');
  const fragment = hash < 0 ? '' : raw.slice(hash + 1);
  let rest = hash < 0 ? raw : raw.slice(0, hash);
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest)?.[1] ?? '';
  if (scheme === '' && rest.startsWith(':')) return { error: `parse ${JSON.stringify(raw)}: missing protocol scheme` };
  rest = rest.slice(scheme === '' ? 0 : scheme.length + 1);
  const q = rest.indexOf('?');
  const query = q < 0 ? '' : rest.slice(q + 1);
  rest = q < 0 ? rest : rest.slice(0, q);
  let user = false;
  if (scheme !== '' && rest.startsWith('//')) {
    const authority = rest.slice(2).split('/')[0]!;
    const at = authority.lastIndexOf('@');
    user = at >= 0;
    const host = authority.slice(at + 1);
    const colon = host.startsWith('[') ? host.indexOf(':', host.indexOf(']')) : host.lastIndexOf(':');
    if (colon >= 0 && !/^:\d*$/.test(host.slice(colon))) return { error: `parse ${JSON.stringify(raw)}: invalid port ${JSON.stringify(host.slice(colon))} after host` };
  }
  return { scheme: scheme.toLowerCase(), user, query, fragment };
}

function validateUrl(url: string, disallowed: readonly string[], at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (disallowed.includes(url)) causes.push(invalid(at, url, `URL must not overlap with disallowed issuers: [${[...new Set(disallowed)].sort().join(' ')}]`));
  const parsed = goUrl(url);
  if ('error' in parsed) return [...causes, invalid(at, url, parsed.error)];
  if (parsed.scheme !== 'https') causes.push(invalid(at, url, 'URL scheme must be https'));
  if (parsed.user) causes.push(invalid(at, url, 'URL must not contain a username or password'));
  if (parsed.query !== '') causes.push(invalid(at, url, 'URL must not contain a query'));
  if (parsed.fragment !== '') causes.push(invalid(at, url, 'URL must not contain a fragment'));
  return causes;
}

/** Whether PEM text holds at least one certificate (client-go's cert.NewPoolFromBytes). */
function holdsCertificate(pem: string): boolean {
  for (const block of pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? []) {
    try {
      new X509Certificate(block);
      return true;
    } catch {
      // not a certificate: the next block may be
    }
  }
  return false;
}

function validateIssuer(issuer: JwtConfig['issuer'], disallowed: readonly string[], at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const urlAt = child(at, 'url');
  if (issuer.url === '') causes.push(required(urlAt));
  else causes.push(...validateUrl(issuer.url, disallowed, urlAt));
  const discovery = issuer.discoveryURL ?? '';
  if (discovery !== '') {
    const discoveryAt = child(at, 'discoveryURL');
    if (issuer.url !== '' && issuer.url.replace(/\/+$/, '') === discovery.replace(/\/+$/, '')) causes.push(invalid(discoveryAt, discovery, 'discoveryURL must be different from URL'));
    causes.push(...validateUrl(discovery, [], discoveryAt));
  }
  const audiencesAt = child(at, 'audiences');
  const policyAt = child(at, 'audienceMatchPolicy');
  if (issuer.audiences.length === 0) {
    causes.push(required(audiencesAt, `at least one ${audiencesAt} is required`));
  } else {
    const seen = new Set<string>();
    issuer.audiences.forEach((audience, i) => {
      if (audience === '') causes.push(required(index(audiencesAt, i)));
      if (seen.has(audience)) causes.push(duplicate(index(audiencesAt, i), audience));
      seen.add(audience);
    });
    if (issuer.audiences.length > 1 && issuer.audienceMatchPolicy !== 'MatchAny') {
      causes.push(invalid(policyAt, issuer.audienceMatchPolicy, 'audienceMatchPolicy must be MatchAny for multiple audiences'));
    }
    if (issuer.audiences.length === 1 && issuer.audienceMatchPolicy !== '' && issuer.audienceMatchPolicy !== 'MatchAny') {
      causes.push(invalid(policyAt, issuer.audienceMatchPolicy, 'audienceMatchPolicy must be empty or MatchAny for single audience'));
    }
  }
  if (issuer.certificateAuthority !== '' && !holdsCertificate(issuer.certificateAuthority)) {
    causes.push(invalid(child(at, 'certificateAuthority'), '<omitted>', 'data does not contain any valid RSA or ECDSA certificates'));
  }
  // Plinth has no egress selector configuration: either type reaches the issuer directly.
  if (issuer.egressSelectorType !== '' && issuer.egressSelectorType !== 'controlplane' && issuer.egressSelectorType !== 'cluster') {
    causes.push(invalid(child(at, 'egressSelectorType'), issuer.egressSelectorType, 'egress selector must be either controlplane or cluster'));
  }
  return causes;
}

interface Compiled { compiled?: CompiledExpression; ast?: unknown; cause?: StatusCause }

/** An expression compiled, or the field error upstream's convertCELErrorToValidationError gives. */
function compileExpression(expression: string, variable: 'claims' | 'user', bool: boolean, at: string): Compiled {
  const result = cel().compileAuthenticationExpression(expression, variable, bool);
  if ('error' in result) return { cause: invalid(at, expression, result.error) };
  return { compiled: { expression, evaluate: result.evaluate }, ast: result.ast };
}

function selects(ast: unknown, field: string): boolean {
  return ast !== undefined && cel().selectsField(ast, 'claims', field);
}

/** One `jwt` entry validated and compiled; the spec only when it is valid. */
function validateJwt(jwt: JwtConfig, disallowed: readonly string[], at: string): { spec?: JwtAuthenticatorSpec; causes: StatusCause[] } {
  const causes = validateIssuer(jwt.issuer, disallowed, child(at, 'issuer'));
  let usesEmailVerified = false;

  const requiredClaims: Record<string, string> = {};
  const claimValidationRules: JwtAuthenticatorSpec['claimValidationRules'][number][] = [];
  const rulesAt = child(at, 'claimValidationRules');
  const seenClaims = new Set<string>();
  const seenExpressions = new Set<string>();
  jwt.claimValidationRules.forEach((rule, i) => {
    const ruleAt = index(rulesAt, i);
    if (rule.claim !== '' && rule.expression !== '') causes.push(invalid(ruleAt, rule.claim, "claim and expression can't both be set"));
    else if (rule.claim === '' && rule.expression === '') causes.push(required(ruleAt, 'claim or expression is required'));
    else if (rule.claim !== '') {
      if (rule.message !== '') causes.push(invalid(child(ruleAt, 'message'), rule.message, 'may not be specified when claim is set'));
      if (seenClaims.has(rule.claim)) causes.push(duplicate(child(ruleAt, 'claim'), rule.claim));
      seenClaims.add(rule.claim);
      requiredClaims[rule.claim] = rule.requiredValue;
    } else {
      if (rule.requiredValue !== '') causes.push(invalid(child(ruleAt, 'requiredValue'), rule.requiredValue, 'may not be specified when expression is set'));
      if (seenExpressions.has(rule.expression)) {
        causes.push(duplicate(child(ruleAt, 'expression'), rule.expression));
        return;
      }
      seenExpressions.add(rule.expression);
      const { compiled, ast, cause } = compileExpression(rule.expression, 'claims', true, child(ruleAt, 'expression'));
      if (cause !== undefined) causes.push(cause);
      else {
        claimValidationRules.push({ ...compiled!, message: rule.message });
        usesEmailVerified ||= selects(ast, 'email_verified');
      }
    }
  });

  const mappingsAt = child(at, 'claimMappings');
  const mapping = (m: PrefixedClaimOrExpressionConfig, name: 'username' | 'groups', requiredMapping: boolean): { mapped?: PrefixedClaimOrExpression; ast?: unknown } => {
    const mAt = child(mappingsAt, name);
    if (m.expression !== '' && m.claim !== '') causes.push(invalid(mAt, '', "claim and expression can't both be set"));
    else if (m.expression === '' && m.claim === '') {
      if (requiredMapping) causes.push(required(mAt, 'claim or expression is required'));
    } else if (m.expression !== '') {
      if (m.prefix !== undefined) causes.push(invalid(child(mAt, 'prefix'), m.prefix, 'may not be specified when expression is set'));
      const { compiled, ast, cause } = compileExpression(m.expression, 'claims', false, child(mAt, 'expression'));
      if (cause !== undefined) causes.push(cause);
      else return { mapped: { expression: compiled! }, ast };
    } else if (m.prefix === undefined) {
      causes.push(required(child(mAt, 'prefix'), 'prefix is required when claim is set. It can be set to an empty string to disable prefixing'));
    } else {
      return { mapped: { claim: m.claim, prefix: m.prefix } };
    }
    return {};
  };
  const username = mapping(jwt.claimMappings.username, 'username', true);
  const usesEmail = selects(username.ast, 'email');
  usesEmailVerified ||= selects(username.ast, 'email_verified');
  const groups = mapping(jwt.claimMappings.groups, 'groups', false);

  let uid: JwtAuthenticatorSpec['uid'];
  const uidConfig = jwt.claimMappings.uid;
  if (uidConfig.claim !== '' && uidConfig.expression !== '') causes.push(invalid(child(mappingsAt, 'uid'), '', "claim and expression can't both be set"));
  else if (uidConfig.expression !== '') {
    const { compiled, cause } = compileExpression(uidConfig.expression, 'claims', false, child(mappingsAt, 'uid', 'expression'));
    if (cause !== undefined) causes.push(cause);
    else uid = { expression: compiled! };
  } else if (uidConfig.claim !== '') uid = { claim: uidConfig.claim };

  const extra: JwtAuthenticatorSpec['extra'][number][] = [];
  const seenKeys = new Set<string>();
  jwt.claimMappings.extra.forEach((entry, i) => {
    const entryAt = index(child(mappingsAt, 'extra'), i);
    const keyAt = child(entryAt, 'key');
    causes.push(...isDomainPrefixedPath(entry.key, keyAt));
    if (entry.key !== entry.key.toLowerCase()) causes.push(invalid(keyAt, entry.key, 'must be lowercase'));
    const domain = entry.key.includes('/') ? entry.key.slice(0, entry.key.indexOf('/')) : '';
    if (domain === 'kubernetes.io' || domain.endsWith('.kubernetes.io') || domain === 'k8s.io' || domain.endsWith('.k8s.io')) {
      causes.push(invalid(keyAt, entry.key, 'k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use'));
    }
    if (seenKeys.has(entry.key)) {
      causes.push(duplicate(keyAt, entry.key));
      return;
    }
    seenKeys.add(entry.key);
    if (entry.valueExpression === '') {
      causes.push(required(child(entryAt, 'valueExpression')));
      return;
    }
    const { compiled, ast, cause } = compileExpression(entry.valueExpression, 'claims', false, child(entryAt, 'valueExpression'));
    if (cause !== undefined) causes.push(cause);
    else {
      extra.push({ ...compiled!, key: entry.key });
      usesEmailVerified ||= selects(ast, 'email_verified');
    }
  });
  if (usesEmail && !usesEmailVerified) {
    causes.push(invalid(child(mappingsAt, 'username', 'expression'), jwt.claimMappings.username.expression,
      'claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression'));
  }

  const userValidationRules: JwtAuthenticatorSpec['userValidationRules'][number][] = [];
  const seenUserExpressions = new Set<string>();
  jwt.userValidationRules.forEach((rule, i) => {
    const expressionAt = child(index(child(at, 'userValidationRules'), i), 'expression');
    if (rule.expression === '') {
      causes.push(required(expressionAt));
      return;
    }
    if (seenUserExpressions.has(rule.expression)) {
      causes.push(duplicate(expressionAt, rule.expression));
      return;
    }
    seenUserExpressions.add(rule.expression);
    const { compiled, cause } = compileExpression(rule.expression, 'user', true, expressionAt);
    if (cause !== undefined) causes.push(cause);
    else userValidationRules.push({ ...compiled!, message: rule.message });
  });

  if (causes.length > 0 || username.mapped === undefined) return { causes };
  const spec: JwtAuthenticatorSpec = {
    issuer: { url: jwt.issuer.url, audiences: jwt.issuer.audiences, ...(jwt.issuer.discoveryURL ? { discoveryURL: jwt.issuer.discoveryURL } : {}) },
    requiredClaims, claimValidationRules, username: username.mapped, extra, userValidationRules,
    ...(groups.mapped !== undefined ? { groups: groups.mapped } : {}),
    ...(uid !== undefined ? { uid } : {}),
  };
  return { spec, causes };
}

export interface LoadedAuthenticationConfiguration {
  jwt: JwtEntry[];
  anonymous?: AnonymousConfig;
  /** The file's text, to tell whether it changed. */
  data: string;
}

/**
 * The configuration decoded, validated and compiled. Errors are upstream's texts: a file that
 * does not decode is `failed to load…`; an invalid one `invalid authentication configuration: …`.
 */
export async function parseAuthenticationConfiguration(data: string, disallowedIssuers: readonly string[]): Promise<LoadedAuthenticationConfiguration> {
  const config = await decodeAuthenticationConfiguration(data);
  const usesCel = config.jwt.some((jwt) => jwt.claimValidationRules.some((r) => r.expression !== '') || jwt.userValidationRules.length > 0
    || jwt.claimMappings.username.expression !== '' || jwt.claimMappings.groups.expression !== '' || jwt.claimMappings.uid.expression !== ''
    || jwt.claimMappings.extra.length > 0);
  if (usesCel) await loadCel();
  const causes: StatusCause[] = [];
  const entries: JwtEntry[] = [];
  if (config.jwt.length > 64) {
    causes.push(tooMany('jwt', config.jwt.length, 64));
  } else {
    const seenIssuers = new Set<string>();
    const seenDiscovery = new Set<string>();
    config.jwt.forEach((jwt, i) => {
      const at = index('jwt', i);
      const { spec, causes: found } = validateJwt(jwt, disallowedIssuers, at);
      causes.push(...found);
      if (seenIssuers.has(jwt.issuer.url)) causes.push(duplicate(child(at, 'issuer', 'url'), jwt.issuer.url));
      seenIssuers.add(jwt.issuer.url);
      const discovery = jwt.issuer.discoveryURL ?? '';
      if (discovery !== '') {
        if (seenDiscovery.has(discovery)) causes.push(duplicate(child(at, 'issuer', 'discoveryURL'), discovery));
        seenDiscovery.add(discovery);
      }
      if (spec !== undefined) entries.push({ spec, ...(jwt.issuer.certificateAuthority !== '' ? { certificateAuthority: jwt.issuer.certificateAuthority } : {}) });
    });
  }
  if (config.anonymous !== undefined && !config.anonymous.enabled && config.anonymous.conditions.length > 0) {
    // The internal []apiserver.AnonymousAuthCondition, json.Marshal'd: Go field names.
    const conditions = goJson(config.anonymous.conditions.map((c) => ({ Path: c.path })));
    causes.push(invalid('anonymous.conditions', conditions, 'enabled should be set to true when conditions are defined'));
  }
  if (causes.length > 0) throw new InvalidConfiguration(fieldErrorsText(causes));
  return { jwt: entries, ...(config.anonymous !== undefined ? { anonymous: config.anonymous } : {}), data };
}

export class InvalidConfiguration extends Error {
  constructor(detail: string) {
    super(`invalid authentication configuration: ${detail}`);
  }
}

/** The file read and parsed, its errors worded as kube-apiserver's start-up words them. */
export async function loadAuthenticationConfiguration(file: string, disallowedIssuers: readonly string[]): Promise<LoadedAuthenticationConfiguration> {
  let data: string;
  try {
    data = await readFile(file, 'utf8');
  } catch (err) {
    throw new Error(`failed to load authentication configuration from file ${JSON.stringify(file)}: ${(err as Error).message}`);
  }
  try {
    return await parseAuthenticationConfiguration(data, disallowedIssuers);
  } catch (err) {
    if (err instanceof DecodeError) throw new Error(`failed to load authentication configuration from file ${JSON.stringify(file)}: ${err.message}`);
    throw err;
  }
}

/** Whether a later configuration's anonymous settings are the first one's (upstream refuses a reload that changes them). */
export function sameAnonymous(a: AnonymousConfig | undefined, b: AnonymousConfig | undefined): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}
