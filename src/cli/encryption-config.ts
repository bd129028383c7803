// --encryption-provider-config: upstream's EncryptionConfiguration (apiserver.config.k8s.io/v1),
// read and validated as kube-apiserver does, turned into the transformer of each storage key.
import { readFile } from 'node:fs/promises';
import { goJson } from '../api/field-errors.ts';
import { isObject } from '../api/json.ts';
import { loadYaml } from '../api/yaml.ts';
import {
  identityTransformer, prefixTransformers, providerPrefix, providerTransformer, type PrefixedTransformer, type ProviderKind, type ValueTransformer,
} from '../storage/value-transformers.ts';
import { UsageError } from './config.ts';

interface KeyConfig { name?: unknown; secret?: unknown }
interface ProviderConfig { aescbc?: { keys?: KeyConfig[] }; aesgcm?: { keys?: KeyConfig[] }; secretbox?: { keys?: KeyConfig[] }; identity?: object; kms?: object }
interface ResourceConfig { resources?: unknown[]; providers?: ProviderConfig[] }

export interface EncryptionConfiguration {
  resources: Array<{ resources: string[]; providers: Array<{ kind: ProviderKind; keys: Array<{ name: string; secret: Uint8Array }> }> }>;
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

/**
 * A provider as the bad value upstream prints: the internal apiserver.ProviderConfiguration
 * json.Marshal'd after v1's defaults, Go field names and secrets as they are (Key's
 * redacting String method does not apply to JSON). A KMS timeout is shown as given, not
 * normalised as metav1.Duration would.
 */
function goProvider(provider: ProviderConfig | null | undefined): string {
  const p: Record<string, unknown> = isObject(provider) ? provider : {};
  const keys = (c: unknown) => (isObject(c)
    ? { Keys: Array.isArray(c.keys) ? c.keys.map((k) => ({ Name: text(isObject(k) ? k.name : ''), Secret: text(isObject(k) ? k.secret : '') })) : null }
    : null);
  const kms = isObject(p.kms) ? p.kms : undefined;
  const apiVersion = text(kms?.apiVersion) || 'v1';
  return goJson({
    AESGCM: keys(p.aesgcm), AESCBC: keys(p.aescbc), Secretbox: keys(p.secretbox), Identity: p.identity != null ? {} : null,
    KMS: kms === undefined ? null : {
      APIVersion: apiVersion, Name: text(kms.name), CacheSize: kms.cachesize ?? (apiVersion === 'v1' ? 1000 : null), Endpoint: text(kms.endpoint), Timeout: kms.timeout ?? '3s',
    },
  }).text;
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

/** Upstream's ValidateEncryptionConfiguration, its messages in its order (KMS is not offered). */
export function validateEncryptionConfiguration(config: { resources?: ResourceConfig[] }): string[] {
  const errors: string[] = [];
  if (!Array.isArray(config.resources) || config.resources.length === 0) return [fieldError('resources', 'Required value', 'at least one resources is required')];
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
      if (kind === 'kms') errors.push(fieldError(`${at}.kms`, 'Invalid value', 'KMS providers are not supported by Plinth', '{}'));
      else if (kind !== 'identity') validateKeys(provider[kind]?.keys, `${at}.${kind}.keys`, kind === 'secretbox' ? secretboxKeySizes : aesKeySizes, errors);
    });
  });
  return errors;
}

/** Reads and validates the file, failing with kube-apiserver's wording. */
export async function loadEncryptionConfig(file: string): Promise<EncryptionConfiguration> {
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
  const errors = [...new Set(validateEncryptionConfiguration(obj))];
  if (errors.length > 0) throw new UsageError(`error while parsing file: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`);
  return {
    resources: obj.resources!.map((entry) => ({
      resources: entry.resources!.map(String),
      providers: entry.providers!.map((provider) => {
        const kind = providerKinds.find((k) => provider[k] != null)!;
        const keys = kind === 'identity' ? [] : (provider[kind]!.keys ?? []).map((k) => ({ name: String(k.name), secret: new Uint8Array(Buffer.from(String(k.secret), 'base64')) }));
        return { kind, keys };
      }),
    })),
  };
}

/** The transformer of each configured group/resource: every key of every provider, in order; the first writes. */
export function resourceTransformers(config: EncryptionConfiguration): (gr: GroupResource) => ValueTransformer {
  const byResource = new Map<string, ValueTransformer>();
  for (const entry of config.resources) {
    const chain: PrefixedTransformer[] = [];
    for (const provider of entry.providers) {
      if (provider.kind === 'identity') chain.push({ prefix: providerPrefix('identity', ''), transformer: identityTransformer });
      else for (const key of provider.keys) chain.push({ prefix: providerPrefix(provider.kind, key.name), transformer: providerTransformer(provider.kind, key.secret) });
    }
    const transformer = prefixTransformers(chain);
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
