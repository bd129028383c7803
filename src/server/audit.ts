// Auditing as kube-apiserver does it: `--audit-policy-file` (an audit.k8s.io/v1 Policy:
// rules matched in order by user, group, verb, resource, namespace and non-resource URL,
// each giving a level None, Metadata, Request or RequestResponse, and stages to omit) and
// `--audit-log-path` (audit.k8s.io/v1 Events as JSON lines, or upstream's one-line legacy
// text, the file rotated by size as upstream's --audit-log-maxsize, --audit-log-maxbackup and
// --audit-log-maxage say), events too large truncated as upstream's truncate backend does.

import { appendFileSync, createReadStream, createWriteStream, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { readFile, unlink } from 'node:fs/promises';
import { isIPv4, isIPv6 } from 'node:net';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { child, goEscaped, goQuote, index, invalid, notSupported, required } from '../api/field-errors.ts';
import { goFieldTypeError, goJsonKind, isObject } from '../api/json.ts';
import { isDNS1123Subdomain } from '../api/labels.ts';
import type { StatusCause } from '../api/types.ts';
import type { AnnotationLevel } from '../api/request-context.ts';
import { replaceLoneSurrogateEscapes } from '../api/lone-surrogates.ts';
import { loadedYaml, loadYaml } from '../api/yaml.ts';
import type { AuthorizationAttributes } from '../auth/authorize.ts';
import { guardResponse, type Deadline } from './request-deadlines.ts';

export type AuditLevel = 'None' | 'Metadata' | 'Request' | 'RequestResponse';
export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

const levels: AuditLevel[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
const auditStages: AuditStage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

interface GroupResources {
  group: string;
  resources: string[];
  resourceNames: string[];
}

interface PolicyRule {
  level: AuditLevel;
  users: string[];
  userGroups: string[];
  verbs: string[];
  resources: GroupResources[];
  namespaces: string[];
  nonResourceURLs: string[];
  omitStages: AuditStage[];
  omitManagedFields?: boolean;
}

export interface AuditPolicy {
  rules: PolicyRule[];
  omitStages: AuditStage[];
  omitManagedFields: boolean;
}

/** What a rule is matched against: what authorization was asked, and by whom. */
export interface AuditAttributes extends AuthorizationAttributes {
  user: { name: string; groups: readonly string[] };
  resourceRequest: boolean;
}

export interface AuditDecision {
  level: AuditLevel;
  omitStages: AuditStage[];
  omitManagedFields: boolean;
}

/** A list of strings as Go decodes it (null elements are ""). */
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => (x === null ? '' : String(x))) : []);

/** validateOmitStages: each stage one of upstream's, in its words. */
function omitStagesCauses(stages: string[], path: string): StatusCause[] {
  return stages.flatMap((stage, i) => (auditStages.includes(stage as AuditStage) ? [] : [invalid(index(path, i), stage, `allowed stages are ${auditStages.join(',')}`)]));
}

/** upstream's ValidatePolicy for one rule: the level, non-resource URLs, resource groups and names, omitted stages. */
function ruleCauses(raw: Record<string, unknown>, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const level = typeof raw.level === 'string' ? raw.level : '';
  if (level === '') causes.push(required(child(path, 'level')));
  else if (!levels.includes(level as AuditLevel)) causes.push(notSupported(child(path, 'level'), level, levels));
  const urls = strings(raw.nonResourceURLs);
  urls.forEach((url, i) => {
    if (url === '*') return;
    if (!url.startsWith('/')) causes.push(invalid(index(child(path, 'nonResourceURLs'), i), url, "non-resource URL rules must begin with a '/' character"));
    if (url !== '' && url.slice(0, -1).includes('*')) causes.push(invalid(index(child(path, 'nonResourceURLs'), i), url, "non-resource URL wildcards '*' must be the final character of the rule"));
  });
  const resources = Array.isArray(raw.resources) ? raw.resources : [];
  for (const gr of resources as Record<string, unknown>[]) {
    const group = typeof gr?.group === 'string' ? gr.group : '';
    if (group !== '') {
      const msgs = isDNS1123Subdomain(group);
      if (msgs.length > 0) causes.push(invalid(child(path, 'resources', 'group'), group, msgs.join(',')));
    }
    const names = strings(gr?.resourceNames);
    if (names.length > 0 && strings(gr?.resources).length === 0) causes.push(invalid(child(path, 'resources', 'resourceNames'), names, 'using resourceNames requires at least one resource'));
  }
  causes.push(...omitStagesCauses(strings(raw.omitStages), child(path, 'omitStages')));
  if (urls.length > 0 && (resources.length > 0 || strings(raw.namespaces).length > 0)) {
    causes.push(invalid(child(path, 'nonResourceURLs'), urls, 'rules cannot apply to both regular resources and non-resource URLs'));
  }
  return causes;
}

/** The scheme upstream's policy decoder names in its errors (k8s.io/apiserver/pkg/audit/scheme.go). */
const auditScheme = 'pkg/audit/scheme.go:31';

/** The fields of audit.k8s.io/v1's Policy, PolicyRule and GroupResources, with the Go types its decoder names. */
type FieldType = 'string' | 'bool' | 'strings' | 'stages' | 'level' | 'rules' | 'resources' | 'object';
const policyFields: Record<string, FieldType> = { apiVersion: 'string', kind: 'string', metadata: 'object', rules: 'rules', omitStages: 'stages', omitManagedFields: 'bool' };
const ruleFields: Record<string, FieldType> = {
  level: 'level', users: 'strings', userGroups: 'strings', verbs: 'strings', resources: 'resources', namespaces: 'strings', nonResourceURLs: 'strings',
  omitStages: 'stages', omitManagedFields: 'bool',
};
const groupResourcesFields: Record<string, FieldType> = { group: 'string', resources: 'strings', resourceNames: 'strings' };

/**
 * What upstream's strict decoding says of a policy: the first value its field cannot hold
 * (a json error: the policy does not load), and the fields it does not know (the policy
 * loads leniently, with a warning), as sigs.k8s.io/json names them.
 */
function decodeProblems(doc: Record<string, unknown>): { typeError?: string; unknown: string[] } {
  const unknown: string[] = [];
  let typeError: string | undefined;
  const fail = (value: unknown, struct: string, path: string, goType: string) => void (typeError ??= goFieldTypeError(value, struct, path, goType));
  const walk = (obj: Record<string, unknown>, fields: Record<string, FieldType>, struct: string, goPath: string, jsonPath: string) => {
    for (const [key, value] of Object.entries(obj)) {
      const type = fields[key];
      const at = goPath === '' ? key : `${goPath}.${key}`;
      if (type === undefined) {
        unknown.push(`unknown field ${JSON.stringify(jsonPath === '' ? key : `${jsonPath}.${key}`)}`);
        continue;
      }
      // null leaves any field as it is.
      if (value === null) continue;
      const list = (elementType: string, each?: (element: Record<string, unknown>, i: number) => void) => {
        if (!Array.isArray(value)) return fail(value, struct, at, `[]${elementType}`);
        value.forEach((element, i) => {
          if (element === null) return;
          if (each === undefined) {
            if (typeof element !== 'string') fail(element, struct, at, elementType);
          } else if (!isObject(element)) fail(element, struct, at, elementType);
          else each(element, i);
        });
      };
      switch (type) {
        case 'string': if (typeof value !== 'string') fail(value, struct, at, 'string'); break;
        case 'level': if (typeof value !== 'string') fail(value, struct, at, 'v1.Level'); break;
        case 'bool': if (typeof value !== 'boolean') fail(value, struct, at, 'bool'); break;
        case 'object': if (!isObject(value)) fail(value, struct, at, 'v1.ObjectMeta'); break;
        case 'strings': list('string'); break;
        case 'stages': list('v1.Stage'); break;
        case 'rules': list('v1.PolicyRule', (rule, i) => walk(rule, ruleFields, 'PolicyRule', at, `rules[${i}]`)); break;
        case 'resources': list('v1.GroupResources', (gr, i) => walk(gr, groupResourcesFields, 'GroupResources', at, `${jsonPath}.resources[${i}]`)); break;
      }
    }
  };
  walk(doc, policyFields, 'Policy', '', '');
  return { ...(typeError !== undefined ? { typeError } : {}), unknown };
}

/**
 * The group, version and kind upstream's decoder reads a policy as: the document's, what it
 * leaves out defaulted from the internal Policy it decodes into (json serializer's
 * gvkWithDefaults); an error in its words when the document cannot be one.
 */
function policyKind(doc: unknown): { group: string; version: string; kind: string } {
  const goStruct = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';
  if (doc !== null && doc !== undefined && !isObject(doc)) throw new Error(`couldn't get version/kind; json parse error: json: cannot unmarshal ${goJsonKind(doc)} into Go value of type ${goStruct}`);
  const meta = (doc ?? {}) as Record<string, unknown>;
  for (const field of ['apiVersion', 'kind']) {
    const value = meta[field];
    if (value !== undefined && value !== null && typeof value !== 'string') {
      throw new Error(`couldn't get version/kind; json parse error: json: cannot unmarshal ${goJsonKind(value)} into Go struct field .${field} of type string`);
    }
  }
  const apiVersion = typeof meta.apiVersion === 'string' ? meta.apiVersion : '';
  let kind = typeof meta.kind === 'string' ? meta.kind : '';
  // schema.ParseGroupVersion: "v1" is the core group's; more than one slash parses as nothing.
  const slashes = apiVersion.split('/').length - 1;
  let [group, version] = slashes === 0 ? ['', apiVersion] : slashes === 1 ? apiVersion.split('/') as [string, string] : ['', ''];
  if (kind === '') kind = 'Policy';
  if (version === '' && group === '') [group, version] = ['audit.k8s.io', '__internal'];
  if (version === '' && group === 'audit.k8s.io') version = '__internal';
  return { group, version, kind };
}

/**
 * Reads and checks a policy file (YAML or JSON) as upstream's LoadPolicyFromFile: an
 * audit.k8s.io/v1 Policy (its kind may be left out, not its apiVersion), validated with
 * upstream's field paths and words (several errors as apimachinery's aggregate shows
 * them), at least one rule. Fields it does not know are dropped, and `warn` told of them in
 * upstream's words (its strict decoding failed, the lenient one did not).
 */
export async function loadAuditPolicy(file: string, warn?: (message: string) => void): Promise<AuditPolicy> {
  const text = await readFile(file, 'utf8');
  const fail = (message: string) => new Error(`${message}: from file ${file}`);
  let parsed: unknown;
  try {
    // Keys given twice: the last one, as sigs.k8s.io/yaml reads them.
    parsed = (await loadYaml()).parse(text, { uniqueKeys: false });
  } catch (err) {
    throw fail(`failed decoding: error converting YAML to JSON: yaml: ${String((err as Error).message).split('\n')[0]}`);
  }
  let gvk: { group: string; version: string; kind: string };
  try {
    gvk = policyKind(parsed);
  } catch (err) {
    throw fail(`failed decoding: ${(err as Error).message}`);
  }
  // Registered in upstream's audit scheme: Event, EventList, Policy and PolicyList of v1 and the internal version.
  const registered = gvk.group === 'audit.k8s.io' && (gvk.version === 'v1' || gvk.version === '__internal') && ['Event', 'EventList', 'Policy', 'PolicyList'].includes(gvk.kind);
  if (!registered) {
    const words = gvk.version === '__internal'
      ? `no kind ${goQuote(gvk.kind)} is registered for the internal version of group ${goQuote(gvk.group)}`
      : `no kind ${goQuote(gvk.kind)} is registered for version ${goQuote(gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`)}`;
    throw fail(`failed decoding: ${words} in scheme ${goQuote(auditScheme)}`);
  }
  if (gvk.kind !== 'Policy') throw fail(`failed decoding: converting (${gvk.version === 'v1' ? 'v1' : 'audit'}.${gvk.kind}) to (audit.Policy): unknown conversion`);
  const doc = (isObject(parsed) ? parsed : {}) as Record<string, unknown>;
  const problems = decodeProblems(doc);
  if (problems.typeError !== undefined) throw fail(`failed decoding: ${problems.typeError}`);
  if (problems.unknown.length > 0) warn?.(`Audit policy contains errors, falling back to lenient decoding: strict decoding error: ${problems.unknown.join(', ')}`);
  if (gvk.version !== 'v1') throw fail(`unknown group version field ${gvk.group}/${gvk.version}, Kind=${gvk.kind} in policy`);
  const rawRules = (Array.isArray(doc.rules) ? doc.rules : []).map((r) => (isObject(r) ? r : {}));
  const causes = [...omitStagesCauses(strings(doc.omitStages), 'omitStages'), ...rawRules.flatMap((raw, i) => ruleCauses(raw, index('rules', i)))];
  if (causes.length > 0) {
    const messages = causes.map((c) => `${c.field}: ${c.message}`);
    throw fail(messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`);
  }
  if (rawRules.length === 0) throw fail('loaded illegal policy with 0 rules');
  const rules = rawRules.map((raw): PolicyRule => ({
    level: raw.level as AuditLevel, users: strings(raw.users), userGroups: strings(raw.userGroups), verbs: strings(raw.verbs),
    resources: (Array.isArray(raw.resources) ? raw.resources : []).map((r: Record<string, unknown> | null) => ({
      group: typeof r?.group === 'string' ? r.group : '', resources: strings(r?.resources), resourceNames: strings(r?.resourceNames),
    })),
    namespaces: strings(raw.namespaces), nonResourceURLs: strings(raw.nonResourceURLs), omitStages: strings(raw.omitStages) as AuditStage[],
    ...(typeof raw.omitManagedFields === 'boolean' ? { omitManagedFields: raw.omitManagedFields } : {}),
  }));
  return { rules, omitStages: strings(doc.omitStages) as AuditStage[], omitManagedFields: doc.omitManagedFields === true };
}

function ruleMatches(rule: PolicyRule, a: AuditAttributes): boolean {
  if (rule.users.length > 0 && !rule.users.includes(a.user.name)) return false;
  if (rule.userGroups.length > 0 && !a.user.groups.some((g) => rule.userGroups.includes(g))) return false;
  if (rule.verbs.length > 0 && !rule.verbs.includes(a.verb)) return false;
  if (rule.namespaces.length > 0 || rule.resources.length > 0) {
    if (!a.resourceRequest) return false;
    if (rule.namespaces.length > 0 && !rule.namespaces.includes(a.namespace)) return false;
    if (rule.resources.length > 0 && !rule.resources.some((gr) => groupResourcesMatch(gr, a))) return false;
  }
  if (rule.nonResourceURLs.length > 0) {
    if (a.resourceRequest) return false;
    if (!rule.nonResourceURLs.some((u) => (u.endsWith('*') ? a.path.startsWith(u.slice(0, -1)) : a.path === u))) return false;
  }
  return true;
}

/** upstream's ruleMatchesResource for one group: its group exactly, then its resources (names only beside resources). */
function groupResourcesMatch(gr: GroupResources, a: AuditAttributes): boolean {
  if (gr.group !== a.group) return false;
  if (gr.resources.length === 0) return true;
  if (gr.resourceNames.length > 0 && !gr.resourceNames.includes(a.name)) return false;
  const combined = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  return gr.resources.some((r) => r === combined || r === '*' || (a.subresource !== '' && r.startsWith('*/') && r.slice(2) === a.subresource)
    || (r.endsWith('/*') && r.slice(0, -2) === a.resource));
}

/** The level and omitted stages for a request: the first rule that matches, else None. */
export function auditDecision(policy: AuditPolicy, a: AuditAttributes): AuditDecision {
  const rule = policy.rules.find((r) => ruleMatches(r, a));
  if (rule === undefined) return { level: 'None', omitStages: [], omitManagedFields: false };
  return { level: rule.level, omitStages: [...new Set([...policy.omitStages, ...rule.omitStages])], omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields };
}

export interface AuditLogOptions {
  /** The file, or '-' for standard output. */
  path: string;
  /** --audit-log-maxsize: megabytes before the file is rotated (0: never). */
  maxSizeMB: number;
  /** --audit-log-maxbackup: rotated files kept (0: all). */
  maxBackups: number;
  /** --audit-log-maxage: days a rotated file is kept (0: forever). */
  maxAgeDays: number;
  /** --audit-log-compress: rotated files are gzipped (`audit-<time>.log.gz`), as lumberjack compresses them. */
  compress?: boolean;
  /** --audit-log-format: JSON lines (the default) or upstream's one-line text. */
  format?: 'json' | 'legacy';
  /** Where a write that fails is reported (upstream's plugin error); the server goes on. */
  onError?: (message: string) => void;
  /** `--audit-log-mode blocking-strict`: each event written at once, and a failed write told to the request. */
  strict?: boolean;
}

/** Where audit events go (upstream's backends): the log file, a webhook, or both. */
export interface AuditSink {
  /**
   * Takes an event: whether it was stored (at once, or once a blocking backend has sent it).
   * Only a blocking-strict backend answers false; a request whose first event one did not
   * store is refused (upstream's "failed to store audit event").
   */
  write(event: object): boolean | Promise<boolean>;
  /** Sends or writes what is queued (at shutdown). */
  flush(): void;
}

/** Several backends, each given every event (upstream's union backend): stored when every one stored it. */
export function auditSinks(sinks: readonly AuditSink[]): AuditSink {
  if (sinks.length === 1) return sinks[0]!;
  return {
    write: (event) => {
      const results = sinks.map((sink) => sink.write(event));
      return results.some((r) => r instanceof Promise) ? Promise.all(results).then((all) => all.every(Boolean)) : results.every(Boolean);
    },
    flush: () => {
      for (const sink of sinks) sink.flush();
    },
  };
}

/** A Go %q of each string, joined by commas (upstream's auditStringSlice). */
const quotedList = (values: readonly unknown[]) => values.map((v) => goQuote(String(v))).join(',');

/** MicroTime as Go's RFC3339Nano writes it: the fraction's trailing zeros dropped. */
function rfc3339Nano(time: unknown): string {
  return String(time ?? '').replace(/\.(\d*?)0*Z$/, (_, digits: string) => (digits === '' ? 'Z' : `.${digits}Z`));
}

/** An event as upstream's audit.EventString writes it for `--audit-log-format legacy`: one line of its main fields. */
export function legacyEventString(event: object): string {
  const e = event as Record<string, any>;
  const user = e.user ?? {};
  const hasName = typeof user.username === 'string' && user.username !== '';
  const groups = hasName && Array.isArray(user.groups) && user.groups.length > 0 ? quotedList(user.groups) : '<none>';
  const as = e.impersonatedUser;
  const asGroups = as !== undefined && Array.isArray(as.groups) ? quotedList(as.groups) : '<lookup>';
  const namespace = typeof e.objectRef?.namespace === 'string' && e.objectRef.namespace !== '' ? e.objectRef.namespace : '<none>';
  const response = typeof e.responseStatus?.code === 'number' ? String(e.responseStatus.code) : '<deferred>';
  const ip = Array.isArray(e.sourceIPs) && e.sourceIPs.length > 0 ? String(e.sourceIPs[0]) : '<unknown>';
  const q = (v: unknown) => goQuote(String(v ?? ''));
  return `${rfc3339Nano(e.requestReceivedTimestamp)} AUDIT: id=${q(e.auditID)} stage=${q(e.stage)} ip=${q(ip)} method=${q(e.verb)} user=${q(hasName ? user.username : '<none>')} `
    + `groups=${q(groups)} as=${q(as !== undefined ? as.username : '<self>')} asgroups=${q(asGroups)} user-agent=${q(e.userAgent)} namespace=${q(namespace)} `
    + `uri=${q(e.requestURI)} response="${response}"`;
}

/**
 * An event's JSON as upstream's log backend writes it (runtime.Encode, Go's json.Encoder):
 * compact, with Go's HTML escapes of `<`, `>` and `&` (and U+2028, U+2029), which occur in
 * JSON text only inside strings.
 */
export function eventJson(event: object): string {
  return goEscaped(JSON.stringify(event));
}

/** `--audit-<backend>-truncate-*`: events over the size limit lose their objects (upstream's truncate backend). */
export interface AuditTruncation {
  /** Bytes of an event's JSON. */
  maxEventSize: number;
  /** Bytes of a batch: validated as upstream's; each event goes on alone here. */
  maxBatchSize: number;
}

/**
 * A backend whose events over `maxEventSize` bytes of JSON are sent without their request
 * and response objects, annotated `audit.k8s.io/truncated: "true"` (events of the Request
 * levels only); one still too large is dropped with upstream's plugin error.
 */
export function truncatingSink(delegate: AuditSink, truncation: AuditTruncation, log: (message: string) => void): AuditSink {
  const size = (event: object) => Buffer.byteLength(eventJson(event)) + 1;
  return {
    write(event) {
      let e = event as Record<string, unknown>;
      if (size(e) > truncation.maxEventSize && (e.level === 'Request' || e.level === 'RequestResponse')) {
        const { requestObject: _request, responseObject: _response, annotations, authenticationMetadata, ...rest } = e;
        // The annotations in their place in the Event, their keys in order.
        e = {
          ...rest, annotations: sortedMap({ ...(annotations as Record<string, string> | undefined), 'audit.k8s.io/truncated': 'true' }),
          ...(authenticationMetadata !== undefined ? { authenticationMetadata } : {}),
        };
      }
      if (size(e) > truncation.maxEventSize) {
        log(`Error in audit plugin 'truncate' affecting 1 audit events: event is too large even after truncating\nImpacted events:\n${legacyEventString(e)}`);
        return true;
      }
      return delegate.write(e);
    },
    flush: () => delegate.flush(),
  };
}

/** Appends events to the log, rotating the file as lumberjack (upstream's writer) does. */
export class AuditLog implements AuditSink {
  readonly #opts: AuditLogOptions;
  #size: number;
  #pending: string[] = [];
  /** The queued events, for the report of a write that fails. */
  #pendingEvents: object[] = [];
  #scheduled = false;
  /** Rotated files being gzipped, one after the other. */
  #compressions: Promise<void> = Promise.resolve();

  constructor(opts: AuditLogOptions) {
    this.#opts = opts;
    this.#size = 0;
    if (opts.path !== '-') {
      try {
        this.#size = statSync(opts.path).size;
      } catch {
        this.#size = 0;
      }
    }
  }

  /**
   * Queues an event; queued events are written together once the current work is done
   * (one write per batch, not per event: a synchronous write each would stall requests).
   * Blocking-strict (`strict`): written at once, answering whether it was.
   */
  write(event: object): boolean {
    this.#pending.push(`${this.#opts.format === 'legacy' ? legacyEventString(event) : eventJson(event)}\n`);
    this.#pendingEvents.push(event);
    if (this.#opts.strict === true) return this.flush();
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.flush());
    }
    return true;
  }

  /**
   * Writes what is queued now; false when the write failed. A write that fails (the disk
   * full, the directory gone and not made again) is reported with upstream's plugin error
   * and the events dropped, as upstream's log backend does: auditing never stops the server.
   */
  flush(): boolean {
    this.#scheduled = false;
    if (this.#pending.length === 0) return true;
    const lines = this.#pending.join('');
    const events = this.#pendingEvents;
    this.#pending = [];
    this.#pendingEvents = [];
    if (this.#opts.path === '-') {
      process.stdout.write(lines);
      return true;
    }
    try {
      const bytes = Buffer.byteLength(lines);
      if (this.#opts.maxSizeMB > 0 && this.#size > 0 && this.#size + bytes > this.#opts.maxSizeMB * 1024 * 1024) this.#rotate();
      this.#append(lines);
      this.#size += bytes;
      return true;
    } catch (err) {
      const report = this.#opts.onError ?? ((message: string) => console.error(message));
      report(`Error in audit plugin 'log' affecting ${events.length} audit events: ${(err as Error).message}\nImpacted events:\n${events.map(legacyEventString).join('\n')}`);
      return false;
    }
  }

  /** Appends to the file, making its directory again if it went (lumberjack makes it for a new file). */
  #append(lines: string): void {
    try {
      appendFileSync(this.#opts.path, lines, { mode: 0o600 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      mkdirSync(path.dirname(this.#opts.path), { recursive: true, mode: 0o700 });
      appendFileSync(this.#opts.path, lines, { mode: 0o600 });
    }
  }

  /**
   * `audit.log` becomes `audit-2026-11-28T13-45-00.123.log` (gzipped to `….log.gz` with
   * `compress`, off the event loop); the oldest backups past the limits go.
   */
  #rotate(): void {
    const file = this.#opts.path;
    const ext = path.extname(file);
    const base = file.slice(0, file.length - ext.length);
    const stamp = new Date().toISOString().replace(/:/g, '-').replace(/Z$/, '');
    const backup = `${base}-${stamp}${ext}`;
    try {
      renameSync(file, backup);
    } catch {
      return;
    }
    this.#size = 0;
    if (this.#opts.compress === true) this.#compressions = this.#compressions.then(() => compressBackup(backup));
    const dir = path.dirname(file);
    const prefix = `${path.basename(base)}-`;
    // A backup is one file, or two while it is gzipped: counted once, removed in both forms.
    const names = readdirSync(dir).filter((f) => f.startsWith(prefix) && (f.endsWith(ext) || f.endsWith(`${ext}.gz`)));
    const backups = [...new Set(names.map((f) => (f.endsWith('.gz') ? f.slice(0, -'.gz'.length) : f)))].sort().reverse();
    const now = Date.now();
    backups.forEach((f, i) => {
      const forms = [f, `${f}.gz`].filter((name) => names.includes(name)).map((name) => path.join(dir, name));
      // A gzip finishing meanwhile removes the uncompressed form: a file already gone is no error.
      try {
        const tooMany = this.#opts.maxBackups > 0 && i >= this.#opts.maxBackups;
        const tooOld = this.#opts.maxAgeDays > 0 && now - statSync(forms[forms.length - 1]!).mtimeMs > this.#opts.maxAgeDays * 86_400_000;
        if (tooMany || tooOld) for (const form of forms) rmSync(form, { force: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    });
  }
}

/** Gzips a rotated log beside it (`.gz`) and removes it; a failure leaves it as it is. */
async function compressBackup(file: string): Promise<void> {
  // Loaded on first use: a start does not need them.
  const [{ pipeline }, { createGzip }] = await Promise.all([import('node:stream/promises'), import('node:zlib')]);
  try {
    await pipeline(createReadStream(file), createGzip(), createWriteStream(`${file}.gz`, { mode: 0o600 }));
    await unlink(file);
  } catch {
    await unlink(`${file}.gz`).catch(() => {});
  }
}

/** What an audited request needs of the response: its status, headers, and the bytes written. */
export interface AuditedResponse {
  statusCode: number;
  readonly headersSent?: boolean;
  setHeader(name: string, value: string): unknown;
  getHeader(name: string): unknown;
  writeHead?(...args: any[]): unknown;
  flushHeaders?(): void;
  write(...args: any[]): boolean;
  end(...args: any[]): unknown;
  once(event: 'close', listener: () => void): unknown;
}

export interface AuditRequest {
  url: string;
  verb: string;
  userAgent: string | undefined;
  /** The connection's remote address. */
  sourceIP: string | undefined;
  /**
   * The request's headers as they came (name, value, name, value…): X-Forwarded-For and
   * X-Real-Ip name source IPs before the connection's, Audit-ID the event's ID.
   */
  rawHeaders?: readonly string[];
  /** The authenticated user: the event's, and the one the policy's rules match (before any impersonation, as upstream's filter runs). */
  user: { name: string; uid: string; groups: readonly string[]; extra?: Readonly<Record<string, readonly string[]>> };
  attributes: AuditAttributes;
  apiVersion: string;
  /** What annotates the event from its first stage: what authentication noted, before the audit filter ran. */
  annotations?: Readonly<Record<string, string>>;
  /** The ID the server gave the request on arrival (auditId); absent, the event takes one as auditId would. */
  auditID?: string;
}

/** Bytes of an answer kept for its event (its Status on failure, its object at RequestResponse). */
const responseCaptureLimit = 1024 * 1024;

/** MicroTime, as audit events carry their timestamps. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** A Go map's keys as encoding/json writes them: sorted. */
function sortedMap<T>(map: Readonly<Record<string, T>>): Record<string, T> {
  const sorted: Record<string, T> = {};
  for (const key of Object.keys(map).sort()) sorted[key] = map[key]!;
  return sorted;
}

function userInfo(user: { name: string; uid: string; groups: readonly string[]; extra?: Readonly<Record<string, readonly string[]>> }): Record<string, unknown> {
  return {
    ...(user.name !== '' ? { username: user.name } : {}), ...(user.uid !== '' ? { uid: user.uid } : {}), ...(user.groups.length > 0 ? { groups: [...user.groups] } : {}),
    ...(user.extra !== undefined && Object.keys(user.extra).length > 0 ? { extra: sortedMap(user.extra) } : {}),
  };
}

/** The first value of a header (Go's Header.Get), from Node's raw headers. */
function headerValue(rawHeaders: readonly string[] | undefined, name: string): string {
  for (let i = 0; i + 1 < (rawHeaders?.length ?? 0); i += 2) if (rawHeaders![i]!.toLowerCase() === name) return rawHeaders![i + 1]!;
  return '';
}

/** An IP address as Go's net.ParseIP reads it and net.IP's String writes it (an IPv4-mapped one as IPv4); undefined when it is none. */
function canonicalIP(text: string): string | undefined {
  if (isIPv4(text)) return text;
  if (!isIPv6(text) || text.includes('%')) return undefined;
  const canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (mapped === null) return canonical;
  const [high, low] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/**
 * The event's source IPs as upstream's utilnet.SourceIPs lists them: X-Forwarded-For's valid
 * IPs, then X-Real-Ip's unless already there, then the connection's address unless it is
 * the last one already.
 */
function sourceIPs(request: Pick<AuditRequest, 'sourceIP' | 'rawHeaders'>): string[] {
  const ips: string[] = [];
  const forwardedFor = headerValue(request.rawHeaders, 'x-forwarded-for');
  if (forwardedFor !== '') {
    for (const part of forwardedFor.split(',')) {
      const ip = canonicalIP(part.trim());
      if (ip !== undefined) ips.push(ip);
    }
  }
  const realIP = canonicalIP(headerValue(request.rawHeaders, 'x-real-ip'));
  if (realIP !== undefined && !ips.includes(realIP)) ips.push(realIP);
  const remote = request.sourceIP === undefined ? undefined : canonicalIP(request.sourceIP);
  if (remote !== undefined && ips.at(-1) !== remote) ips.push(remote);
  return ips;
}

/** Upstream's maybeTruncateUserAgent: at most 1024 bytes, then `...TRUNCATED`. */
const maxUserAgentLength = 1024;

/** The User-Agent as the event records it: its bytes read as UTF-8 (Node reads a header's bytes as Latin-1), cut as upstream cuts it. */
function eventUserAgent(agent: string | undefined): string | undefined {
  if (agent === undefined) return undefined;
  // ASCII is alike either way; a character past Latin-1 means the text was decoded already.
  const bytes = /^[\x00-\x7f]*$/.test(agent) || /[^\x00-\xff]/.test(agent) ? undefined : Buffer.from(agent, 'latin1');
  if (bytes === undefined) return agent.length > maxUserAgentLength ? `${agent.slice(0, maxUserAgentLength)}...TRUNCATED` : agent;
  const cut = bytes.length > maxUserAgentLength;
  return `${new TextDecoder().decode(cut ? bytes.subarray(0, maxUserAgentLength) : bytes)}${cut ? '...TRUNCATED' : ''}`;
}

/** The fields every event of a request starts with, in audit.k8s.io/v1 Event's order up to its user. */
function requestFields(request: Omit<AuditRequest, 'user'>): { sourceIPs?: string[]; userAgent?: string } {
  const ips = sourceIPs(request);
  const agent = eventUserAgent(request.userAgent);
  return { ...(ips.length > 0 ? { sourceIPs: ips } : {}), ...(agent !== undefined && agent !== '' ? { userAgent: agent } : {}) };
}

/**
 * A request's audit ID, as upstream's WithAuditInit gives every request one, audited or not:
 * the one its Audit-ID header gives, else a new one; sent back as the Audit-Id header (and
 * named in the request's log line).
 */
export function auditId(rawHeaders: readonly string[] | undefined, res: Pick<AuditedResponse, 'setHeader'>): string {
  const given = headerValue(rawHeaders, 'audit-id');
  const auditID = given !== '' ? given : crypto.randomUUID();
  res.setHeader('Audit-Id', auditID);
  return auditID;
}

function auditIdOf(request: Pick<AuditRequest, 'rawHeaders' | 'auditID'>, res: Pick<AuditedResponse, 'setHeader'>): string {
  return request.auditID ?? auditId(request.rawHeaders, res);
}

function withoutManagedFields(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  if (Array.isArray(o.items)) return { ...o, items: (o.items as unknown[]).map(withoutManagedFields) };
  // A Table's rows carry their objects (includeObject=Object), as upstream's copyWithoutManagedFields strips them.
  if (o.kind === 'Table' && Array.isArray(o.rows)) {
    return { ...o, rows: (o.rows as unknown[]).map((row) => (isObject(row) && row.object !== undefined ? { ...row, object: withoutManagedFields(row.object) } : row)) };
  }
  const meta = o.metadata as Record<string, unknown> | undefined;
  if (meta === undefined || meta === null || typeof meta !== 'object' || !('managedFields' in meta)) return value;
  const { managedFields: _omitted, ...rest } = meta;
  return { ...o, metadata: rest };
}

function decodeJsonBody(bytes: Uint8Array, contentType: string | undefined): unknown {
  const type = (contentType ?? '').split(';')[0]!.trim();
  if (type !== 'application/json' && !type.endsWith('+json') && type !== 'application/yaml' && type !== 'application/apply-patch+yaml') return undefined;
  try {
    const text = Buffer.from(bytes).toString('utf8');
    // The policy's reading loaded the YAML library: it is there whenever requests are audited.
    const yaml = loadedYaml();
    return type.includes('yaml') && yaml !== undefined ? yaml.parse(text) : JSON.parse(replaceLoneSurrogateEscapes(text));
  } catch {
    return undefined;
  }
}

/** What reads a Protobuf answer back into its object (the composition root hands the codec in). */
export type ProtobufDecoder = (bytes: Uint8Array) => unknown;

/**
 * An answer's object, as upstream's LogResponseObject has it before it is encoded: JSON and
 * YAML read, a Protobuf one decoded when a decoder is given, gzip undone; a stream of watch
 * events is none.
 */
function decodeAnswer(bytes: Buffer, contentType: string, contentEncoding: unknown, decodeProtobuf: ProtobufDecoder | undefined): unknown {
  if (/;\s*stream=watch/i.test(contentType)) return undefined;
  let body = bytes;
  if (contentEncoding !== undefined) {
    if (String(contentEncoding).toLowerCase() !== 'gzip') return undefined;
    try {
      body = gunzipSync(bytes, { maxOutputLength: 16 * responseCaptureLimit });
    } catch {
      return undefined;
    }
  }
  if (contentType.split(';')[0]!.trim().toLowerCase() === protobufType) {
    try {
      return decodeProtobuf?.(body);
    } catch {
      return undefined;
    }
  }
  return decodeJsonBody(body, contentType);
}

const protobufType = 'application/vnd.kubernetes.protobuf';

/**
 * The event's responseStatus as upstream's filter and LogResponseObject make it: the code
 * written, and from an answer that is a Status its status, message, reason and details.
 */
function responseStatusOf(code: number, answer: unknown): Record<string, unknown> {
  const status = isObject(answer) && answer.kind === 'Status' ? answer : undefined;
  const text = (field: string) => (typeof status?.[field] === 'string' && status[field] !== '' ? { [field]: status[field] } : {});
  return { metadata: {}, ...text('status'), ...text('message'), ...text('reason'), ...(isObject(status?.details) ? { details: status.details } : {}), code };
}

/** A request answered with nothing (the client gone first): upstream's filter fakes its status. */
const closedEarly = { metadata: {}, status: 'Success', message: 'Connection closed early', code: 200 };

/** Upstream's BasicLongRunningRequestCheck as kube-apiserver configures it: watch and proxy, and the streaming subresources. */
function isLongRunning(a: AuditAttributes): boolean {
  return a.verb === 'watch' || a.verb === 'proxy' || (a.resourceRequest && ['attach', 'exec', 'proxy', 'log', 'portforward'].includes(a.subresource));
}

/**
 * Begins auditing a request: the RequestReceived event now (unless omitted), the
 * ResponseComplete event when the answer is done. Answers the hook that hands it the
 * request body (undefined when the level is None).
 */
export interface AuditHooks {
  /** Hands the request body over (levels Request and RequestResponse). */
  requestBody?(body: Uint8Array, contentType: string | undefined): void;
  /**
   * Hands an object body over once decoded, whatever its encoding (upstream's LogRequestObject):
   * it names the object reference and, at the Request levels, is the event's request object.
   */
  requestObject?(object: Readonly<Record<string, unknown>>): void;
  /**
   * Adds an annotation to the event (a key already set keeps its first value, as upstream's).
   * One given level Request (an admission webhook's patch) is kept only by events of the
   * Request levels, as upstream's admission annotations are logged up to the event's level.
   */
  annotate(key: string, value: string, level?: AnnotationLevel): void;
  /**
   * The user the request impersonates, once granted: named in the events from then on (not
   * the RequestReceived one, as upstream's), with the constrained impersonation verb that
   * granted it ('' for the legacy `impersonate`) as authenticationMetadata.impersonationConstraint.
   */
  impersonated(user: { name: string; uid: string; groups: readonly string[]; extra?: Readonly<Record<string, readonly string[]>> }, constraint?: string): void;
  /** Whether the RequestReceived event was stored: false (a blocking-strict backend could not) refuses the request. */
  stored: boolean | Promise<boolean>;
}

/** audit.k8s.io/v1's ObjectReference of a request, its fields in order; a create's or update's body completes it (upstream's LogRequestObject). */
function objectReference(request: Pick<AuditRequest, 'attributes' | 'apiVersion'>, meta: Record<string, unknown> = {}): Record<string, unknown> {
  const a = request.attributes;
  const field = (name: string, given: string) => (given !== '' ? given : typeof meta[name] === 'string' ? meta[name] : '');
  const [namespace, name, uid, resourceVersion] = [field('namespace', a.namespace), field('name', a.name), field('uid', ''), field('resourceVersion', '')];
  return {
    resource: a.resource, ...(namespace !== '' ? { namespace } : {}), ...(name !== '' ? { name } : {}), ...(uid !== '' ? { uid } : {}),
    ...(a.group !== '' ? { apiGroup: a.group } : {}), apiVersion: request.apiVersion, ...(resourceVersion !== '' ? { resourceVersion } : {}),
    ...(a.subresource !== '' ? { subresource: a.subresource } : {}),
  };
}

/**
 * A request whose credentials name nobody (answered 401), as upstream's failed-authentication
 * audit logs it: the policy decides for a request without a user, and one event at
 * ResponseStarted names the kinds of credential tried.
 */
export function auditFailedAuthentication(
  policy: AuditPolicy, log: AuditSink, request: Omit<AuditRequest, 'user'>, methods: readonly string[], res: Pick<AuditedResponse, 'setHeader'>,
  annotations?: Readonly<Record<string, string>>,
): void {
  const decision = auditDecision(policy, request.attributes);
  if (decision.level === 'None' || decision.omitStages.includes('ResponseStarted')) return;
  const auditID = auditIdOf(request, res);
  const now = microTime(Date.now());
  void log.write({
    kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: decision.level, auditID, stage: 'ResponseStarted', requestURI: request.url, verb: request.verb,
    user: {}, ...requestFields(request), ...(request.attributes.resourceRequest ? { objectRef: objectReference(request) } : {}),
    responseStatus: { metadata: {}, message: methods.length > 0 ? `Authentication failed, attempted: ${methods.join(', ')}` : 'Authentication failed, no credentials provided', code: 401 },
    requestReceivedTimestamp: now, stageTimestamp: now,
    ...(annotations !== undefined && Object.keys(annotations).length > 0 ? { annotations: sortedMap(annotations) } : {}),
  });
}

/**
 * `decodeProtobuf` reads an answer written as Protobuf, for its Status and object (without
 * it such an event has its code alone). A short request's `deadline` puts the recorder above
 * the deadline's guard, as upstream's audit filter is inside its timeout filter: a request cut
 * off at its deadline is audited with what its handler went on to write, never the 504, its
 * ResponseComplete event once the handler returns.
 */
export function beginAudit(
  policy: AuditPolicy, log: AuditSink, request: AuditRequest, res: AuditedResponse, decodeProtobuf?: ProtobufDecoder, deadline?: Deadline,
): AuditHooks | undefined {
  const decision = auditDecision(policy, request.attributes);
  if (decision.level === 'None') return undefined;
  if (deadline !== undefined) guardResponse(deadline);
  const annotations: Record<string, string> = { ...request.annotations };
  const received = microTime(Date.now());
  const auditID = auditIdOf(request, res);
  const a = request.attributes;
  const reference = (meta?: Record<string, unknown>) => objectReference(request, meta);
  let objectRef = a.resourceRequest ? reference() : undefined;
  let impersonatedUser: AuditRequest['user'] | undefined;
  let impersonationConstraint = '';
  const fromRequest = requestFields(request);
  // audit.k8s.io/v1's Event, its fields in order.
  const emit = (stage: AuditStage, extra: { responseStatus?: unknown; requestObject?: unknown; responseObject?: unknown }): boolean | Promise<boolean> => {
    if (decision.omitStages.includes(stage)) return true;
    return log.write({
      kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: decision.level, auditID, stage, requestURI: request.url, verb: request.verb,
      user: userInfo(request.user), ...(impersonatedUser !== undefined ? { impersonatedUser: userInfo(impersonatedUser) } : {}),
      ...fromRequest, ...(objectRef !== undefined ? { objectRef } : {}),
      // A RequestReceived event's stage time is the request's (upstream's processAuditEvent).
      ...extra, requestReceivedTimestamp: received, stageTimestamp: stage === 'RequestReceived' ? received : microTime(Date.now()),
      ...(Object.keys(annotations).length > 0 ? { annotations: sortedMap(annotations) } : {}),
      ...(impersonationConstraint !== '' ? { authenticationMetadata: { impersonationConstraint } } : {}),
    });
  };
  let requestObject: unknown;
  const chunks: Buffer[] = [];
  let captured = 0;
  const capture = (chunk: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function' || captured > responseCaptureLimit) return;
    // Kept by reference (answers are not written into again); decoded only when needed.
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    captured += buf.length;
    if (captured <= responseCaptureLimit) chunks.push(buf);
  };
  const decodedAnswer = () => (captured > responseCaptureLimit ? undefined
    : decodeAnswer(Buffer.concat(chunks), String(res.getHeader('content-type') ?? ''), res.getHeader('content-encoding'), decodeProtobuf));
  // Upstream's auditResponseWriter: the code is taken when the answer starts (its headers
  // written, or its first bytes), and a long-running request's ResponseStarted event sent
  // then, with the Status of an answer written whole at once.
  const longRunning = isLongRunning(a);
  let code: number | undefined;
  let started = false;
  const start = (written: number, whole?: () => unknown) => {
    if (started) return;
    started = true;
    code = written;
    if (longRunning) void emit('ResponseStarted', { responseStatus: responseStatusOf(written, whole?.()) });
  };
  const writeHead = res.writeHead?.bind(res);
  if (writeHead !== undefined) {
    res.writeHead = (...args: any[]) => {
      // The code is the one the headers are written with; its event waits for the body, which may be a Status.
      if (!started && typeof args[0] === 'number') code = args[0];
      return writeHead(...args);
    };
  }
  const flushHeaders = res.flushHeaders?.bind(res);
  if (flushHeaders !== undefined) {
    res.flushHeaders = () => {
      start(code ?? res.statusCode);
      flushHeaders();
    };
  }
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  res.write = (...args: any[]) => {
    capture(args[0]);
    start(code ?? res.statusCode);
    return write(...args);
  };
  res.end = (...args: any[]) => {
    const first = chunks.length === 0 && captured === 0;
    capture(args[0]);
    start(code ?? res.statusCode, first ? decodedAnswer : undefined);
    return end(...args);
  };
  const stored = emit('RequestReceived', {});
  const complete = () => {
    // Nothing written: the client went away first (or the answer went out another way). Past
    // its deadline only what the handler wrote counts: the response itself carries the 504.
    const cutOff = deadline?.timedOut === true;
    const answered = started || code !== undefined || (!cutOff && (res.headersSent === true || res.statusCode !== 200));
    if (!answered) {
      if (longRunning) void emit('ResponseStarted', { responseStatus: closedEarly });
      void emit('ResponseComplete', { responseStatus: closedEarly });
      return;
    }
    if (!started) start(code ?? res.statusCode);
    // The answer is read for a Status, and for the response object at RequestResponse.
    const answer = decodedAnswer();
    const trim = (v: unknown) => (decision.omitManagedFields ? withoutManagedFields(v) : v);
    // Upstream logs a response object where it writes an API object (WriteObjectNegotiated): a
    // resource's, or a non-resource request's Status or discovery document; not a watch's events.
    const responseObject = decision.level === 'RequestResponse' && answer !== undefined && a.verb !== 'watch'
      && (a.resourceRequest || (isObject(answer) && typeof answer.kind === 'string'));
    void emit('ResponseComplete', {
      responseStatus: responseStatusOf(code ?? res.statusCode, answer),
      ...(decision.level !== 'Metadata' && requestObject !== undefined ? { requestObject: trim(requestObject) } : {}),
      ...(responseObject ? { responseObject: trim(answer) } : {}),
    });
  };
  // Answered 504 at its deadline, the event waits for the handler still running.
  res.once('close', () => {
    if (deadline?.timedOut === true && !deadline.ended) deadline.onEnd = complete;
    else complete();
  });
  // Upstream keeps an annotation's first value (and warns of a different second one).
  const annotate = (key: string, value: string, level?: AnnotationLevel) => {
    if (level === 'Request' && decision.level === 'Metadata') return;
    annotations[key] ??= value;
  };
  const impersonated = (user: AuditRequest['user'], constraint = '') => {
    impersonatedUser = user;
    impersonationConstraint = constraint;
  };
  const completesReference = objectRef !== undefined && (request.verb === 'create' || request.verb === 'update');
  if (decision.level === 'Metadata' && !completesReference) return { annotate, impersonated, stored };
  const take = (decoded: unknown) => {
    const meta = (decoded as { metadata?: unknown } | undefined)?.metadata;
    if (completesReference && meta !== null && typeof meta === 'object') objectRef = reference(meta as Record<string, unknown>);
    if (decision.level !== 'Metadata') requestObject = decoded;
  };
  // A copy: the request goes on to default and change the object it decoded.
  const requestObjectHook = (object: Readonly<Record<string, unknown>>) => take(decision.level === 'Metadata' ? object : JSON.parse(JSON.stringify(object)));
  // At Metadata only a create's or update's decoded object matters, for its name.
  if (decision.level === 'Metadata') return { annotate, impersonated, stored, requestObject: requestObjectHook };
  return {
    annotate,
    impersonated,
    stored,
    // The bytes serve bodies that are not objects (patches); an object body, decoded, replaces them.
    requestBody: (body, contentType) => take(decodeJsonBody(body, contentType)),
    requestObject: requestObjectHook,
  };
}
