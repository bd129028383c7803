// PodSecurity's configuration from kube-apiserver's --admission-control-config-file
// (upstream's k8s.io/pod-security-admission/admission/api: types.go, v1*/defaults.go,
// helpers.go ToPolicy, validation/validation.go, load/load.go): the policy of modes a
// namespace's labels leave unset, and the users, namespaces and runtime classes exempt from
// evaluation. Read as kube-apiserver reads it: strictly decoded, defaulted, then checked by
// the plugin's ValidateInitialization (CompleteConfiguration's ToPolicy, then validation).
import type { StatusCause } from '../../api/index.ts';
import { duplicate, goQuote, index, invalid } from '../../api/field-errors.ts';
import { goFieldTypeError, goJsonKind, isObject } from '../../api/json.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../../api/labels.ts';
import { defaultPolicy, parseLevel, parseVersion, type LevelVersion, type Policy } from './levels.ts';

/** Who and what is allowed without evaluation (upstream's PodSecurityExemptions). */
export interface PodSecurityExemptions {
  /** Requesting users by name (the authenticated user, not a pod's service account). */
  readonly usernames: readonly string[];
  /** Namespaces by name: nothing created in them is evaluated. */
  readonly namespaces: readonly string[];
  /** A pod (or template) with one of these `spec.runtimeClassName`s is not evaluated. */
  readonly runtimeClasses: readonly string[];
}

/**
 * The plugin's configuration once loaded: `defaults` is upstream's PodSecurityDefaults as
 * ToPolicy parses it (the level and version of each mode a namespace's labels leave unset).
 */
export interface PodSecurityConfiguration {
  readonly defaults: Policy;
  readonly exemptions: PodSecurityExemptions;
}

/** kube-apiserver with no configuration for the plugin: every mode privileged:latest, nothing exempt. */
export const defaultPodSecurityConfiguration: PodSecurityConfiguration = {
  defaults: defaultPolicy,
  exemptions: { usernames: [], namespaces: [], runtimeClasses: [] },
};

const group = 'pod-security.admission.config.k8s.io';
const kind = 'PodSecurityConfiguration';
// Every served version has the same fields and defaults (v1, v1beta1, v1alpha1).
const versions = ['v1', 'v1beta1', 'v1alpha1'];
const pluginName = 'PodSecurity';
// runtime.NewScheme() names its scheme after the line that made it.
const schemeName = 'k8s.io/pod-security-admission/admission/api/scheme/scheme.go:31';

const modes = ['enforce', 'audit', 'warn'] as const;
const defaultsFields = ['enforce', 'enforce-version', 'audit', 'audit-version', 'warn', 'warn-version'];
const exemptionsFields = ['usernames', 'namespaces', 'runtimeClasses'];

/**
 * Upstream's loading of the plugin's configuration: `value` is the decoded YAML or JSON
 * object of the plugin's entry in the AdmissionConfiguration, undefined when there is none
 * (then the defaults). Throws an Error worded as kube-apiserver's admission plugin
 * initialization (k8s.io/apiserver admission.Plugins.InitPlugin) words it:
 * `couldn't init admission plugin "PodSecurity": <decoding error>`, or
 * `failed to initialize admission plugin "PodSecurity": PodSecurity configuration error: <ToPolicy's aggregate>`
 * (an unknown level or bad version in `defaults`), or
 * `failed to initialize admission plugin "PodSecurity": PodSecurity invalid: <field errors>`
 * (invalid or duplicate exemptions).
 */
export function parsePodSecurityConfiguration(value: unknown): PodSecurityConfiguration {
  if (value === undefined) return defaultPodSecurityConfiguration;
  const decoded = decode(value);
  if (typeof decoded === 'string') throw new Error(`couldn't init admission plugin ${goQuote(pluginName)}: ${decoded}`);
  const initialized = (message: string) => new Error(`failed to initialize admission plugin ${goQuote(pluginName)}: ${message}`);
  const policy = toPolicy(decoded.defaults);
  if (typeof policy === 'string') throw initialized(`${pluginName} configuration error: ${policy}`);
  const errors = validateExemptions(decoded.exemptions);
  if (errors.length > 0) throw initialized(`${pluginName} invalid: ${aggregate(errors.map((e) => `${e.field}: ${e.message}`))}`);
  return { defaults: policy, exemptions: decoded.exemptions };
}

interface Decoded {
  defaults: Record<string, string>;
  exemptions: { usernames: string[]; namespaces: string[]; runtimeClasses: string[] };
}

/**
 * runtime.Decode with the scheme's strict codecs: apiVersion and kind must name the type,
 * a field of the wrong type fails as Go's encoding/json does, unknown fields fail strictly,
 * and empty fields take the versions' defaults (privileged, latest). A string is the error.
 */
function decode(value: unknown): Decoded | string {
  if (!isObject(value)) {
    return `couldn't get version/kind; json parse error: json: cannot unmarshal ${goJsonKind(value)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`;
  }
  const apiVersion = value.apiVersion;
  const kindText = value.kind;
  if (apiVersion !== undefined && apiVersion !== null && typeof apiVersion !== 'string') return typeMetaError(apiVersion, 'apiVersion');
  if (kindText !== undefined && kindText !== null && typeof kindText !== 'string') return typeMetaError(kindText, 'kind');
  if (typeof kindText !== 'string' || kindText === '') return `Object 'Kind' is missing in '${JSON.stringify(value)}'`;
  if (typeof apiVersion !== 'string' || apiVersion === '') return `Object 'apiVersion' is missing in '${JSON.stringify(value)}'`;
  const slash = apiVersion.indexOf('/');
  const [apiGroup, version] = slash === -1 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  if (apiGroup !== group || !versions.includes(version) || kindText !== kind) {
    return `no kind ${goQuote(kindText)} is registered for version ${goQuote(apiVersion)} in scheme ${goQuote(schemeName)}`;
  }

  const unknown: string[] = [];
  const defaults: Record<string, string> = {};
  const exemptions: Decoded['exemptions'] = { usernames: [], namespaces: [], runtimeClasses: [] };
  for (const [name, field] of Object.entries(value)) {
    if (name === 'apiVersion' || name === 'kind' || field === undefined) continue;
    if (name === 'defaults') {
      if (field === null) continue;
      if (!isObject(field)) return goFieldTypeError(field, kind, 'defaults', `${version}.PodSecurityDefaults`);
      for (const [mode, text] of Object.entries(field)) {
        if (!defaultsFields.includes(mode)) {
          unknown.push(`defaults.${mode}`);
          continue;
        }
        if (text === null || text === undefined) continue;
        if (typeof text !== 'string') return goFieldTypeError(text, 'PodSecurityDefaults', `defaults.${mode}`, 'string');
        defaults[mode] = text;
      }
    } else if (name === 'exemptions') {
      if (field === null) continue;
      if (!isObject(field)) return goFieldTypeError(field, kind, 'exemptions', `${version}.PodSecurityExemptions`);
      for (const [list, items] of Object.entries(field)) {
        if (!exemptionsFields.includes(list)) {
          unknown.push(`exemptions.${list}`);
          continue;
        }
        if (items === null || items === undefined) continue;
        if (!Array.isArray(items)) return goFieldTypeError(items, 'PodSecurityExemptions', `exemptions.${list}`, '[]string');
        const strings: string[] = [];
        for (const item of items) {
          if (item === null) strings.push('');
          else if (typeof item !== 'string') return goFieldTypeError(item, 'PodSecurityExemptions', `exemptions.${list}`, 'string');
          else strings.push(item);
        }
        exemptions[list as keyof Decoded['exemptions']] = strings;
      }
    } else {
      unknown.push(name);
    }
  }
  if (unknown.length > 0) return `strict decoding error: ${unknown.map((name) => `unknown field ${goQuote(name)}`).join(', ')}`;
  // SetDefaults_PodSecurityDefaults: an empty level is privileged, an empty version latest.
  for (const mode of modes) {
    if ((defaults[mode] ?? '') === '') defaults[mode] = 'privileged';
    if ((defaults[`${mode}-version`] ?? '') === '') defaults[`${mode}-version`] = 'latest';
  }
  return { defaults, exemptions };
}

/** The error reading apiVersion or kind of the wrong JSON type (the serializer's meta interpretation). */
function typeMetaError(value: unknown, field: string): string {
  return `couldn't get version/kind; json parse error: ${goFieldTypeError(value, '', field, 'string')}`;
}

/** Upstream's ToPolicy: each mode's level and version, or the aggregate of what fails to parse. */
function toPolicy(defaults: Record<string, string>): Policy | string {
  const errors: string[] = [];
  const policy: Partial<Record<(typeof modes)[number], LevelVersion>> = {};
  for (const mode of modes) {
    const level = parseLevel(defaults[mode]!);
    if (level.error !== undefined) errors.push(`${mode}: ${level.error}`);
    const version = parseVersion(defaults[`${mode}-version`]!);
    if (version.error !== undefined) errors.push(`${mode}-version: ${version.error}`);
    policy[mode] = { level: level.value, version: version.value };
  }
  if (errors.length > 0) return aggregate(errors);
  return { enforce: policy.enforce!, audit: policy.audit!, warn: policy.warn! };
}

/** Upstream's ValidatePodSecurityConfiguration of the exemptions: each list valid and without duplicates. */
function validateExemptions(exemptions: Decoded['exemptions']): StatusCause[] {
  return [
    // ValidateNamespaceName: a DNS-1123 label.
    ...validateList('exemptions.namespaces', exemptions.namespaces, (ns) => isDNS1123Label(ns).join(', ')),
    // NameIsDNSSubdomain.
    ...validateList('exemptions.runtimeClasses', exemptions.runtimeClasses, (rc) => isDNS1123Subdomain(rc).join(', ')),
    ...validateList('exemptions.usernames', exemptions.usernames, (name) => (name === '' ? 'username must not be empty' : '')),
  ];
}

function validateList(path: string, items: readonly string[], problem: (item: string) => string): StatusCause[] {
  const errors: StatusCause[] = [];
  const valid = new Set<string>();
  for (const [i, item] of items.entries()) {
    const detail = problem(item);
    if (detail !== '') errors.push(invalid(index(path, i), item, detail));
    else if (valid.has(item)) errors.push(duplicate(index(path, i), item));
    else valid.add(item);
  }
  return errors;
}

/** Go's utilerrors aggregate: one message alone, several distinct ones in brackets. */
function aggregate(messages: readonly string[]): string {
  const distinct = [...new Set(messages)];
  return distinct.length === 1 ? distinct[0]! : `[${distinct.join(', ')}]`;
}
