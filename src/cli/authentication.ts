// Authentication set up from the flags: JWT authenticators from `--authentication-config`
// (followed as the file changes) or the `--oidc-*` flags, a TokenReview webhook
// (`--authentication-token-webhook-*`), and anonymous access from the file's `anonymous` or
// `--anonymous-auth`, as kube-apiserver's ToAuthenticationConfig and ApplyTo decide between them.
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { AgentPool } from '../admission/webhook-client.ts';
import { tokenWebhookAuthenticator } from '../auth/token-webhook.ts';
import type { Authenticator, TokenAuthenticator } from '../auth/authenticate.ts';
import { requestHeaderAuthenticator } from '../auth/request-header.ts';
import { allSigningAlgs, specOfFlags } from '../auth/oidc.ts';
import { InvalidConfiguration, loadAuthenticationConfiguration, parseAuthenticationConfiguration, sameAnonymous, type LoadedAuthenticationConfiguration } from './authentication-config.ts';
import { UsageError, type Config, type RequestHeaderFlags } from './config.ts';
import { JwtAuthenticators, type JwtMetrics } from './jwt-authenticators.ts';
import { watchFile } from './watch-file.ts';
import { readCaBundle } from './client-ca.ts';
import { webhookCaller } from './webhook-caller.ts';
import { loadWebhookKubeconfig } from './webhook-kubeconfig.ts';

/** What authentication reports: the JWT authenticators' series and the configuration's reloads. */
export interface AuthenticationMetrics extends JwtMetrics {
  authenticationConfig(data: string, status?: 'success' | 'failure'): void;
}

export interface AuthenticationSetup {
  /** The JWT authenticators' tokens, when any are configured (or may be, by a reload of the file). */
  jwt?: TokenAuthenticator;
  /** `--authentication-token-webhook-config-file`'s TokenReview webhook, asked last. */
  tokenWebhook?: TokenAuthenticator;
  /** `--requestheader-*`: authenticating proxies' CA and their authenticator, asked first. */
  requestHeader?: { caPem: string; authenticator: Authenticator };
  /** What kube-system/extension-apiserver-authentication tells extension API servers. */
  authenticationTrust: Record<string, string>;
  /** Who may be system:anonymous: everyone without credentials, nobody, or only requests for some paths. */
  anonymous: boolean | { paths: ReadonlySet<string> };
  /**
   * `--anonymous-auth` with AlwaysAllow among the modes: upstream turns anonymous access off
   * (it would be allowed everything); Plinth keeps it for the public paths only.
   */
  anonymousOnlyPublicPaths: boolean;
  /** Starts reading the issuers' keys and following the file. */
  start(): void;
  close(): void;
}

/**
 * `--requestheader-*`: the proxies' CA read (it must not share a certificate with the client
 * CA unless names are listed, as upstream checks) and their authenticator.
 */
async function requestHeaderSetup(flags: RequestHeaderFlags, clientCaPem: string): Promise<{ caPem: string; authenticator: Authenticator }> {
  let caPem: string;
  try {
    caPem = await readFile(flags.clientCaFile, 'utf8');
  } catch (err) {
    throw new UsageError(`--requestheader-client-ca-file: ${(err as Error).message}`);
  }
  const fingerprints = (pem: string) => (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? []).map((block) => new X509Certificate(block).fingerprint256);
  let proxyCas: string[];
  try {
    proxyCas = fingerprints(caPem);
  } catch (err) {
    throw new UsageError(`--requestheader-client-ca-file: ${(err as Error).message}`);
  }
  if (proxyCas.length === 0) throw new UsageError('--requestheader-client-ca-file: data does not contain any valid RSA or ECDSA certificates');
  if (flags.allowedNames.length === 0 && fingerprints(clientCaPem).some((f) => proxyCas.includes(f))) {
    throw new UsageError('--requestheader-client-ca-file and --client-ca-file contain overlapping certificates; --requestheader-allowed-names must be specified to ensure regular client certificates cannot set authenticating proxy headers for arbitrary users');
  }
  return {
    caPem,
    authenticator: requestHeaderAuthenticator({
      allowedNames: flags.allowedNames, usernameHeaders: flags.usernameHeaders, uidHeaders: flags.uidHeaders,
      groupHeaders: flags.groupHeaders, extraHeaderPrefixes: flags.extraHeadersPrefix,
    }),
  };
}

/** kube-system/extension-apiserver-authentication's data, as upstream's cluster authentication trust controller writes it. */
export function authenticationTrustOf(clientCaPem: string, flags: RequestHeaderFlags | undefined, requestHeaderCaPem: string | undefined): Record<string, string> {
  const data: Record<string, string> = { 'client-ca-file': clientCaPem };
  if (flags === undefined || requestHeaderCaPem === undefined) return data;
  // Go's json.Marshal of a nil slice: null.
  const list = (values: readonly string[]) => (values.length === 0 ? 'null' : JSON.stringify(values));
  return {
    ...data,
    'requestheader-client-ca-file': requestHeaderCaPem,
    'requestheader-username-headers': list(flags.usernameHeaders),
    'requestheader-uid-headers': list(flags.uidHeaders),
    'requestheader-group-headers': list(flags.groupHeaders),
    'requestheader-extra-headers-prefix': list(flags.extraHeadersPrefix),
    'requestheader-allowed-names': list(flags.allowedNames),
  };
}

export async function authenticationSetup(
  config: Config, apiAudiences: readonly string[], log: (message: string) => void, clientCaPem: string, metrics?: AuthenticationMetrics,
): Promise<AuthenticationSetup> {
  const requestHeader = config.requestHeader === undefined ? undefined : await requestHeaderSetup(config.requestHeader, clientCaPem);
  const authenticationTrust = authenticationTrustOf(clientCaPem, config.requestHeader, requestHeader?.caPem);
  let loaded: LoadedAuthenticationConfiguration | undefined;
  if (config.authenticationConfig !== undefined) {
    try {
      loaded = await loadAuthenticationConfiguration(config.authenticationConfig, config.serviceAccountIssuers);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    if (loaded.anonymous !== undefined && config.anonymousAuthFlagSet === true) {
      throw new UsageError('anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file');
    }
  }
  const fileAnonymous = loaded?.anonymous;
  const anonymous = fileAnonymous === undefined ? config.anonymousAuth
    : fileAnonymous.enabled ? { paths: new Set(fileAnonymous.conditions.map((c) => c.path)) } : false;
  const anonymousOnlyPublicPaths = fileAnonymous === undefined && config.authorizationModes.includes('AlwaysAllow');

  const agents = new AgentPool();
  let tokenWebhook: TokenAuthenticator | undefined;
  if (config.tokenWebhook !== undefined) {
    let connection;
    try {
      connection = await loadWebhookKubeconfig(config.tokenWebhook.configFile);
    } catch (err) {
      throw new UsageError(`--authentication-token-webhook-config-file: ${(err as Error).message}`);
    }
    tokenWebhook = tokenWebhookAuthenticator({
      version: config.tokenWebhook.version, call: webhookCaller(connection, agents), implicitAudiences: apiAudiences, cacheTtlMs: config.tokenWebhook.cacheTtlMs,
    });
  }
  if (loaded === undefined && config.oidc === undefined) {
    return {
      anonymous, anonymousOnlyPublicPaths, authenticationTrust, ...(tokenWebhook !== undefined ? { tokenWebhook } : {}), ...(requestHeader !== undefined ? { requestHeader } : {}),
      start() {}, close: () => agents.close(),
    };
  }
  const oidc = config.oidc;
  // Read and checked now, as upstream's dynamic CA content from file: a bundle with no certificate fails the start.
  const ca = oidc?.caFile === undefined ? undefined : await readCaBundle(oidc.caFile).catch((err: unknown) => {
    throw new UsageError(`--oidc-ca-file: ${(err as Error).message}`);
  });
  // With a configuration file every algorithm upstream knows is allowed; the flags name theirs.
  const jwt = new JwtAuthenticators({ apiAudiences, signingAlgs: loaded !== undefined || oidc === undefined ? allSigningAlgs : oidc.signingAlgs, log, ...(metrics !== undefined ? { metrics } : {}) });
  let following: { close(): void } | undefined;
  return {
    jwt: jwt.authenticate,
    ...(tokenWebhook !== undefined ? { tokenWebhook } : {}),
    ...(requestHeader !== undefined ? { requestHeader } : {}),
    authenticationTrust,
    anonymous,
    anonymousOnlyPublicPaths,
    start() {
      if (loaded === undefined) {
        jwt.start([{ spec: specOfFlags(oidc!), ...(ca !== undefined ? { certificateAuthority: ca } : {}) }]);
        return;
      }
      jwt.start(loaded.jwt);
      metrics?.authenticationConfig(loaded.data);
      following = followFile(config.authenticationConfig!, loaded, jwt, config.serviceAccountIssuers, log, metrics);
    },
    close() {
      following?.close();
      jwt.close();
      agents.close();
    },
  };
}

/**
 * Reloads the configuration when the file changes, as upstream's WatchUntil callback: a file
 * that cannot be read is tried again; one that does not decode, is invalid or changes
 * `anonymous` is logged and skipped until it changes again; the new authenticators replace
 * the old once their issuers' keys are read, else it is tried again.
 */
function followFile(
  file: string, initial: LoadedAuthenticationConfiguration, jwt: JwtAuthenticators, disallowedIssuers: readonly string[], log: (message: string) => void,
  metrics: AuthenticationMetrics | undefined,
): { close(): void } {
  let tracked = initial.data;
  const reload = async (): Promise<void> => {
    let data: string;
    try {
      data = await readFile(file, 'utf8');
    } catch (err) {
      log(`failed to read authentication config file: ${(err as Error).message}`);
      metrics?.authenticationConfig('', 'failure');
      return;
    }
    if (data === tracked) return;
    let next: LoadedAuthenticationConfiguration;
    try {
      next = await parseAuthenticationConfiguration(data, disallowedIssuers);
      if (!sameAnonymous(initial.anonymous, next.anonymous)) throw new InvalidConfiguration('anonymous: Forbidden: changed from initial configuration file');
    } catch (err) {
      log(`${err instanceof InvalidConfiguration ? 'failed to validate' : 'failed to load'} authentication config: ${(err as Error).message}`);
      metrics?.authenticationConfig(data, 'failure');
      tracked = data;
      return;
    }
    try {
      await jwt.replace(next.jwt);
    } catch (err) {
      log(`failed to update authentication config: ${(err as Error).message}`);
      metrics?.authenticationConfig(data, 'failure');
      return;
    }
    tracked = data;
    log('reloaded authentication config');
    metrics?.authenticationConfig(data, 'success');
  };
  return watchFile(file, reload);
}
