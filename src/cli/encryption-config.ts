// --encryption-provider-config: upstream's EncryptionConfiguration (apiserver.config.k8s.io/v1),
// read and validated as kube-apiserver does, turned into the transformer of each storage key.
import { readFile } from 'node:fs/promises';
import { goJson } from '../api/field-errors.ts';
import { isObject } from '../api/json.ts';
import { loadYaml } from '../api/yaml.ts';
import { KmsV2Provider, type KmsMetrics, type KmsService } from '../storage/kms-v2.ts';
import {
  identityTransformer, keyedProvider, prefixTransformers, type PrefixedTransformer, type ProviderKind, type TransformationObserver, type ValueTransformer,
} from '../storage/value-transformers.ts';
import { goDuration, parseSignedDuration, UsageError } from './config.ts';

interface KeyConfig { name?: unknown; secret?: unknown }
interface KmsConfig { apiVersion?: unknown; name?: unknown; cachesize?: unknown; endpoint?: unknown; timeout?: unknown }
interface ProviderConfig { aescbc?: { keys?: KeyConfig[] }; aesgcm?: { keys?: KeyConfig[] }; secretbox?: { keys?: KeyConfig[] }; identity?: object; kms?: KmsConfig }
interface ResourceConfig { resources?: unknown[]; providers?: ProviderConfig[] }

/** A KMS provider after v1's defaults (apiVersion v1, a 3 s timeout, v1's cache of 1000), its timeout in milliseconds. */
interface KmsSettings { apiVersion: string; name: string; cachesize: number | undefined; endpoint: string; timeoutMs: number }

export type ProviderSettings =
  | { kind: Exclude<ProviderKind, 'identity'>; keys: Array<{ name: string; secret: Uint8Array }> }
  | { kind: 'identity' }
  | ({ kind: 'kms' } & KmsSettings);

export interface EncryptionConfiguration {
  resources: Array<{ resources: string[]; providers: ProviderSettings[] }>;
}

export interface GroupResource { group: string; resource: string }

const aesKeySizes = [16, 24, 32];
const secretboxKeySizes = [32];
const providerKinds = ['aescbc', 'aesgcm', 'secretbox', 'identity'] as const;

/** Go's schema.ParseGroupResource: "deployments.apps" → apps/deployments, "*." → core/*. */
function parseGroupResource(text: string): GroupResource {
  const dot = text.indexOf('.');
  return dot < 0 ? { group: '', resource: text } : { group: text.slice(dot + 1), resource: text.slice(0, dot) };
}

/** A field error as Go's field.Error prints it. */
function fieldError(field: string, type: 'Required value' | 'Invalid value', detail: string, value?: string): string {
  return type === 'Required value' ? `${field}: Required value: ${detail}` : `${field}: Invalid value: ${value}: ${detail}`;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A metav1.Duration as Go decodes it (a sign allowed), in milliseconds; throws Go's decoding error. */
function decodeDuration(value: unknown): number {
  return parseSignedDuration(typeof value === 'string' ? value : '');
}

/** A KMS provider's settings after v1's defaults, as upstream's internal type holds them. */
function kmsSettings(kms: KmsConfig): KmsSettings {
  const apiVersion = text(kms.apiVersion) || 'v1';
  const cachesize = typeof kms.cachesize === 'number' ? kms.cachesize : (apiVersion === 'v1' ? 1000 : undefined);
  return { apiVersion, name: text(kms.name), cachesize, endpoint: text(kms.endpoint), timeoutMs: kms.timeout == null ? 3000 : decodeDuration(kms.timeout) };
}

/**
 * A provider as the bad value upstream prints: the internal apiserver.ProviderConfiguration
 * json.Marshal'd after v1's defaults, Go field names and secrets as they are (Key's
 * redacting String method does not apply to JSON).
 */
function goProvider(provider: ProviderConfig | null | undefined): string {
  const p: Record<string, unknown> = isObject(provider) ? provider : {};
  const keys = (c: unknown) => (isObject(c)
    ? { Keys: Array.isArray(c.keys) ? c.keys.map((k) => ({ Name: text(isObject(k) ? k.name : ''), Secret: text(isObject(k) ? k.secret : '') })) : null }
    : null);
  const kms = isObject(p.kms) ? kmsSettings(p.kms) : undefined;
  return goJson({
    AESGCM: keys(p.aesgcm), AESCBC: keys(p.aescbc), Secretbox: keys(p.secretbox), Identity: p.identity != null ? {} : null,
    KMS: kms === undefined ? null : {
      APIVersion: kms.apiVersion, Name: kms.name, CacheSize: kms.cachesize ?? null, Endpoint: kms.endpoint, Timeout: goDuration(kms.timeoutMs),
    },
  }).text;
}

/** The scheme of an endpoint as Go's url.Parse reads it (lower case; none without one). */
function urlScheme(endpoint: string): string | { error: string } {
  if (endpoint.startsWith(':')) return { error: `parse ${JSON.stringify(endpoint)}: missing protocol scheme` };
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(endpoint);
  return match === null ? '' : match[1]!.toLowerCase();
}

/** Upstream's validateKMSConfiguration: name, timeout, endpoint, cache size, version, in that order. */
function validateKms(kms: KmsSettings, at: string, names: Set<string>, reload: boolean, errors: string[]): void {
  if (kms.name === '') errors.push(fieldError(`${at}.name`, 'Required value', 'name is a mandatory field for a provider'));
  if (kms.apiVersion !== 'v1' && kms.name.includes(':')) {
    errors.push(fieldError(`${at}.name`, 'Invalid value', `invalid KMS provider name ${kms.name}, must not contain ':'`, JSON.stringify(kms.name)));
  }
  if ((reload || kms.apiVersion !== 'v1') && names.has(kms.name)) {
    errors.push(fieldError(`${at}.name`, 'Invalid value', `duplicate KMS provider name ${kms.name}, names must be unique`, JSON.stringify(kms.name)));
  }
  names.add(kms.name);
  if (kms.timeoutMs <= 0) errors.push(fieldError(`${at}.timeout`, 'Invalid value', 'timeout should be a positive value', JSON.stringify(goDuration(kms.timeoutMs))));
  if (kms.endpoint === '') errors.push(fieldError(`${at}.endpoint`, 'Invalid value', 'endpoint is a mandatory field for a kms', '""'));
  else {
    const scheme = urlScheme(kms.endpoint);
    if (typeof scheme !== 'string') errors.push(fieldError(`${at}.endpoint`, 'Invalid value', `invalid endpoint for kms provider, error: ${scheme.error}`, JSON.stringify(kms.endpoint)));
    else if (scheme !== 'unix') errors.push(fieldError(`${at}.endpoint`, 'Invalid value', `unsupported scheme ${JSON.stringify(scheme)} for KMS provider, only unix is supported`, JSON.stringify(kms.endpoint)));
  }
  if (kms.apiVersion !== 'v1' && kms.cachesize !== undefined) errors.push(fieldError(`${at}.cachesize`, 'Invalid value', 'cachesize is not supported in v2', String(kms.cachesize)));
  if (kms.apiVersion === 'v1' && kms.cachesize === 0) errors.push(fieldError(`${at}.cachesize`, 'Invalid value', 'cachesize should be a positive value, or negative to disable', '0'));
  // Upstream's message names the field, not the value given.
  if (kms.apiVersion !== 'v1' && kms.apiVersion !== 'v2') {
    errors.push(fieldError(`${at}.apiVersion`, 'Invalid value', 'unsupported apiVersion apiVersion for KMS provider, only v1 and v2 are supported', JSON.stringify(kms.apiVersion)));
  }
}

function validateKeys(keys: KeyConfig[] | undefined, path: string, sizes: number[], errors: string[]): void {
  if (keys === undefined || keys.length === 0) {
    errors.push(fieldError(path, 'Required value', 'at least one keys is required'));
    return;
  }
  keys.forEach((key, i) => {
    const at = `${path}[${i}]`;
    if (typeof key.name !== 'string' || key.name === '') errors.push(fieldError(`${at}.name`, 'Required value', 'name is a mandatory field for a key'));
    if (typeof key.secret !== 'string' || key.secret === '') {
      errors.push(fieldError(`${at}.secret`, 'Required value', 'secret is a mandatory field for a key'));
      return;
    }
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(key.secret) || key.secret.length % 4 !== 0) {
      errors.push(fieldError(`${at}.secret`, 'Invalid value', 'secrets must be base64 encoded', '"REDACTED"'));
      return;
    }
    const length = Buffer.from(key.secret, 'base64').length;
    if (!sizes.includes(length)) {
      errors.push(fieldError(`${at}.secret`, 'Invalid value', `secret is not of the expected length, got ${length}, expected one of [${sizes.join(' ')}]`, '"REDACTED"'));
    }
  });
}

function validateResourceNames(resources: string[], path: string, errors: string[]): void {
  resources.forEach((res, j) => {
    const at = `${path}[${j}]`;
    const invalid = (detail: string) => errors.push(fieldError(at, 'Invalid value', detail, JSON.stringify(res)));
    if (res.toLowerCase() !== res) return invalid('resource name should not contain capital letters');
    if (res === '*') return invalid("use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources");
    if (res === 'apiserveripinfo' || res === 'serviceipallocations' || res === 'servicenodeportallocations') {
      return invalid('resources which do not have REST API/s cannot be encrypted');
    }
    const gr = parseGroupResource(res);
    if (gr.group === 'events.k8s.io') {
      return invalid("'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file");
    }
    if (gr.group === 'extensions') return invalid("'extensions' group has been removed and cannot be used for encryption");
    if (gr.group === '*' && gr.resource !== '*') return invalid('encrypting the same resource across groups is not supported');
  });
}

function validateResourceOverlap(resources: string[], path: string, errors: string[]): void {
  if (resources.length < 2) return;
  const parsed = resources.map(parseGroupResource);
  let duplicate = false;
  let overlap = false;
  parsed.forEach((a, i) => parsed.forEach((b, j) => {
    if (i === j) return;
    if (a.group === b.group && a.resource === b.resource) {
      duplicate = true;
      return;
    }
    if ((a.group === '*' && a.resource === '*') || (a.group === b.group && (a.resource === '*' || b.resource === '*'))) overlap = true;
  }));
  if (duplicate) errors.push(fieldError(path, 'Invalid value', 'the same resource cannot be specified multiple times', goJson(resources).text));
  if (overlap) {
    errors.push(fieldError(path, 'Invalid value', "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked", goJson(resources).text));
  }
}

/**
 * Upstream's ValidateEncryptionConfiguration, its messages in its order. KMS provider names
 * are unique among v2 providers, and among all of them when the file is followed (`reload`).
 */
export function validateEncryptionConfiguration(config: { resources?: ResourceConfig[] }, reload = false): string[] {
  const errors: string[] = [];
  if (!Array.isArray(config.resources) || config.resources.length === 0) return [fieldError('resources', 'Required value', 'at least one resources is required')];
  const kmsNames = new Set<string>();
  config.resources.forEach((entry, i) => {
    const r = `resources[${i}].resources`;
    const p = `resources[${i}].providers`;
    const resources = Array.isArray(entry.resources) ? entry.resources.map(String) : [];
    if (resources.length === 0) errors.push(fieldError(r, 'Required value', `at least one ${r} is required`));
    validateResourceOverlap(resources, r, errors);
    validateResourceNames(resources, r, errors);
    const providers = Array.isArray(entry.providers) ? entry.providers : [];
    if (providers.length === 0) errors.push(fieldError(p, 'Required value', `at least one ${p} is required`));
    providers.forEach((provider, j) => {
      const at = `${p}[${j}]`;
      const present = ['kms', ...providerKinds].filter((kind) => provider?.[kind as keyof ProviderConfig] != null);
      if (present.length === 0) {
        errors.push(fieldError(at, 'Invalid value', 'provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity', goProvider(provider)));
        return;
      }
      if (present.length > 1) {
        errors.push(fieldError(at, 'Invalid value', 'more than one provider specified in a single element, should split into different list elements', goProvider(provider)));
        return;
      }
      const kind = present[0] as 'kms' | ProviderKind;
      if (kind === 'kms') validateKms(kmsSettings(provider.kms!), `${at}.kms`, kmsNames, reload, errors);
      else if (kind !== 'identity') validateKeys(provider[kind]?.keys, `${at}.${kind}.keys`, kind === 'secretbox' ? secretboxKeySizes : aesKeySizes, errors);
    });
  });
  return errors;
}

/** Reads and validates the file, failing with kube-apiserver's wording. */
export async function loadEncryptionConfig(file: string, reload = false): Promise<EncryptionConfiguration> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`error opening encryption provider configuration file ${JSON.stringify(file)}: ${(err as Error).message}`);
  }
  if (text.trim() === '') throw new UsageError(`encryption provider configuration file ${JSON.stringify(file)} is empty`);
  let doc: unknown;
  try {
    doc = (await loadYaml()).parse(text);
  } catch (err) {
    throw new UsageError(`error decoding encryption provider configuration file ${JSON.stringify(file)}: ${(err as Error).message}`);
  }
  const obj = (doc ?? {}) as { kind?: unknown; apiVersion?: unknown; resources?: ResourceConfig[] };
  if (obj.kind !== 'EncryptionConfiguration' || obj.apiVersion !== 'apiserver.config.k8s.io/v1') {
    throw new UsageError(`error decoding encryption provider configuration file ${JSON.stringify(file)}: expected kind EncryptionConfiguration in apiVersion apiserver.config.k8s.io/v1, got kind ${JSON.stringify(obj.kind)} in apiVersion ${JSON.stringify(obj.apiVersion)}`);
  }
  // A KMS timeout is a metav1.Duration: one Go cannot parse fails the decoding.
  for (const entry of Array.isArray(obj.resources) ? obj.resources : []) {
    for (const provider of Array.isArray(entry?.providers) ? entry.providers : []) {
      const timeout = isObject(provider) && isObject(provider.kms) ? provider.kms.timeout : undefined;
      if (timeout == null) continue;
      try {
        if (typeof timeout !== 'string') throw new Error(`json: cannot unmarshal ${typeof timeout === 'number' ? 'number' : 'object'} into Go value of type string`);
        decodeDuration(timeout);
      } catch (err) {
        throw new UsageError(`error decoding encryption provider configuration file ${JSON.stringify(file)}: ${(err as Error).message}`);
      }
    }
  }
  const errors = [...new Set(validateEncryptionConfiguration(obj, reload))];
  if (errors.length > 0) throw new UsageError(`error while parsing file: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`);
  return {
    resources: obj.resources!.map((entry) => ({
      resources: entry.resources!.map(String),
      providers: entry.providers!.map((provider): ProviderSettings => {
        if (provider.kms != null) return { kind: 'kms', ...kmsSettings(provider.kms) };
        const kind = providerKinds.find((k) => provider[k] != null)!;
        if (kind === 'identity') return { kind };
        return { kind, keys: (provider[kind]!.keys ?? []).map((k) => ({ name: String(k.name), secret: new Uint8Array(Buffer.from(String(k.secret), 'base64')) })) };
      }),
    })),
  };
}

/** How a KMS provider's plugin is reached: its endpoint and call timeout (and the provider's name, for its metrics). */
export type KmsServiceFactory = (endpoint: string, timeoutMs: number, name: string) => Promise<KmsService>;

/** The configuration's KMS providers, started: their health, and their plugins' connections to close. */
export interface KmsProviders {
  /** By name (v2 names are unique). */
  byName: Map<string, KmsV2Provider>;
  /** Upstream's `kms-providers` check: every provider's, failures named `kms-provider-<i>`. */
  check(): Promise<void>;
  /** How long a replaced configuration's providers stay for the calls in flight (twice their timeouts). */
  closeGraceMs: number;
  close(): void;
}

/**
 * Connects and primes each KMS provider (a plugin that does not answer yet is polled in the
 * background, as upstream's). v1 providers are refused as upstream refuses them while the
 * deprecated KMSv1 gate is off; with it on, as Plinth does not build them.
 */
export async function startKmsProviders(
  config: EncryptionConfiguration, connect: KmsServiceFactory, log: (message: string) => void, metrics?: KmsMetrics, kmsV1Gate = false,
): Promise<KmsProviders> {
  const settings = config.resources.flatMap((entry) => entry.providers).filter((p): p is Extract<ProviderSettings, { kind: 'kms' }> => p.kind === 'kms');
  const started: KmsV2Provider[] = [];
  const close = () => started.forEach((provider) => provider.close());
  try {
    for (const kms of settings) {
      if (kms.apiVersion === 'v1' && kmsV1Gate) throw new UsageError(`error while building transformers: KMS v1 providers are not supported by Plinth (provider ${JSON.stringify(kms.name)}): use apiVersion v2`);
      if (kms.apiVersion === 'v1') {
        throw new UsageError('error while building transformers: KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 instead.  Set --feature-gates=KMSv1=true to use the deprecated KMSv1 feature.');
      }
      const provider = new KmsV2Provider({ name: kms.name, service: await connect(kms.endpoint, kms.timeoutMs, kms.name), log, ...(metrics !== undefined ? { metrics } : {}) });
      started.push(provider);
      await provider.start();
    }
  } catch (err) {
    close();
    throw err;
  }
  return {
    byName: new Map(started.map((provider) => [provider.name, provider])),
    async check() {
      const errors: string[] = [];
      for (const [i, provider] of started.entries()) {
        await provider.check().catch((err: unknown) => errors.push(`kms-provider-${i}: ${(err as Error).message}`));
      }
      if (errors.length > 0) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
    },
    closeGraceMs: 2 * settings.reduce((sum, kms) => sum + kms.timeoutMs, 0),
    close,
  };
}

/**
 * The transformer of each configured group/resource: its providers in order, the first
 * writing, each keyed provider a chain of its keys, as upstream nests them. KMS providers are
 * the started ones of the same configuration. Each chain tells `observe` what it did, as
 * upstream's transformation metrics count it.
 */
export function resourceTransformers(config: EncryptionConfiguration, kms?: KmsProviders, observe?: TransformationObserver): (gr: GroupResource) => ValueTransformer {
  const byResource = new Map<string, ValueTransformer>();
  for (const entry of config.resources) {
    const chain: PrefixedTransformer[] = [];
    for (const provider of entry.providers) {
      if (provider.kind === 'identity') chain.push({ prefix: new Uint8Array(0), transformer: identityTransformer });
      else if (provider.kind === 'kms') {
        const started = kms?.byName.get(provider.name);
        if (started === undefined) throw new Error(`KMS provider ${provider.name} was not started`);
        chain.push({ prefix: Buffer.from(`k8s:enc:kms:v2:${provider.name}:`), transformer: started.transformer });
      } else chain.push(keyedProvider(provider.kind, provider.keys, observe));
    }
    const transformer = prefixTransformers(chain, observe !== undefined ? { observe } : {});
    for (const res of entry.resources) {
      const { group, resource } = parseGroupResource(res);
      const id = `${group}/${resource}`;
      // The first entry that names a resource is the one it uses.
      if (!byResource.has(id)) byResource.set(id, transformer);
    }
  }
  // Resources the configuration leaves out are stored as they are, and read through the identity check, as upstream.
  return ({ group, resource }) => byResource.get(`${group}/${resource}`) ?? byResource.get(`${group}/*`) ?? byResource.get('*/*') ?? identityTransformer;
}

/**
 * The group and resource a storage key belongs to: the served types' prefixes first (a core
 * resource and a group without a dot, like apps, look alike), then for custom resources the
 * `/registry/{group}/{resource}/` layout, whose group always has a dot.
 */
export function keyResourceResolver(known: Array<{ prefix: string } & GroupResource>): (key: string) => GroupResource | undefined {
  const byPrefix = new Map(known.map(({ prefix, group, resource }) => [prefix, { group, resource }]));
  return (key) => {
    const parts = key.split('/');
    if (parts[1] !== 'registry' || parts.length < 4) return undefined;
    const two = `/registry/${parts[2]}/${parts[3]}/`;
    const one = `/registry/${parts[2]}/`;
    const found = byPrefix.get(two) ?? byPrefix.get(one);
    if (found !== undefined) return found;
    return parts[2]!.includes('.') ? { group: parts[2]!, resource: parts[3]! } : { group: '', resource: parts[2]! };
  };
}
