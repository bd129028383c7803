// Auditing as kube-apiserver does it: `--audit-policy-file` (an audit.k8s.io/v1 Policy:
// rules matched in order by user, group, verb, resource, namespace and non-resource URL,
// each giving a level None, Metadata, Request or RequestResponse, and stages to omit) and
// `--audit-log-path` (audit.k8s.io/v1 Events as JSON lines, or upstream's one-line legacy
// text, the file rotated by size as upstream's --audit-log-maxsize, --audit-log-maxbackup and
// --audit-log-maxage say), events too large truncated as upstream's truncate backend does.

import { appendFileSync, createReadStream, createWriteStream, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import { child, goQuote, index, invalid, notSupported, required } from '../api/field-errors.ts';
import { isDNS1123Subdomain } from '../api/labels.ts';
import type { StatusCause } from '../api/types.ts';
import { replaceLoneSurrogateEscapes } from '../api/lone-surrogates.ts';
import { loadedYaml, loadYaml } from '../api/yaml.ts';
import type { AuthorizationAttributes } from '../auth/authorize.ts';

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

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

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

/**
 * Reads and checks a policy file (YAML or JSON) as upstream's LoadPolicyFromFile: an
 * audit.k8s.io/v1 Policy, validated with upstream's field paths and words (several errors
 * as apimachinery's aggregate shows them), at least one rule.
 */
export async function loadAuditPolicy(file: string): Promise<AuditPolicy> {
  const doc = (await loadYaml()).parse(await readFile(file, 'utf8')) as Record<string, unknown> | null;
  const fail = (message: string) => new Error(`${message}: from file ${file}`);
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw fail('failed decoding: not an audit Policy object');
  if (doc.apiVersion !== 'audit.k8s.io/v1' || doc.kind !== 'Policy') {
    throw fail(`failed decoding: no kind ${JSON.stringify(String(doc.kind ?? ''))} is registered for version ${JSON.stringify(String(doc.apiVersion ?? ''))}`);
  }
  const rawRules = (Array.isArray(doc.rules) ? doc.rules : []).map((r) => (r !== null && typeof r === 'object' ? r as Record<string, unknown> : {}));
  const causes = [...omitStagesCauses(strings(doc.omitStages), 'omitStages'), ...rawRules.flatMap((raw, i) => ruleCauses(raw, index('rules', i)))];
  if (causes.length > 0) {
    const messages = causes.map((c) => `${c.field}: ${c.message}`);
    throw fail(messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`);
  }
  if (rawRules.length === 0) throw fail('loaded illegal policy with 0 rules');
  const rules = rawRules.map((raw): PolicyRule => ({
    level: raw.level as AuditLevel, users: strings(raw.users), userGroups: strings(raw.userGroups), verbs: strings(raw.verbs),
    resources: (Array.isArray(raw.resources) ? raw.resources : []).map((r: Record<string, unknown>) => ({
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
  const size = (event: object) => Buffer.byteLength(JSON.stringify(event)) + 1;
  return {
    write(event) {
      let e = event as Record<string, unknown>;
      if (size(e) > truncation.maxEventSize && (e.level === 'Request' || e.level === 'RequestResponse')) {
        const { requestObject: _request, responseObject: _response, ...rest } = e;
        e = { ...rest, annotations: { ...(e.annotations as Record<string, string> | undefined), 'audit.k8s.io/truncated': 'true' } };
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
    this.#pending.push(`${this.#opts.format === 'legacy' ? legacyEventString(event) : JSON.stringify(event)}\n`);
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
  setHeader(name: string, value: string): unknown;
  getHeader(name: string): unknown;
  write(...args: any[]): boolean;
  end(...args: any[]): unknown;
  once(event: 'close', listener: () => void): unknown;
}

export interface AuditRequest {
  url: string;
  verb: string;
  userAgent: string | undefined;
  sourceIP: string | undefined;
  /** The authenticated user: the event's, and the one the policy's rules match (before any impersonation, as upstream's filter runs). */
  user: { name: string; uid: string; groups: readonly string[]; extra?: Readonly<Record<string, readonly string[]>> };
  attributes: AuditAttributes;
  apiVersion: string;
}

/** Bytes of an answer kept for its event (its Status on failure, its object at RequestResponse). */
const responseCaptureLimit = 1024 * 1024;

/** MicroTime, as audit events carry their timestamps. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function userInfo(user: { name: string; uid: string; groups: readonly string[]; extra?: Readonly<Record<string, readonly string[]>> }): Record<string, unknown> {
  return {
    username: user.name, ...(user.uid !== '' ? { uid: user.uid } : {}), ...(user.groups.length > 0 ? { groups: [...user.groups] } : {}),
    ...(user.extra !== undefined && Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
  };
}

function withoutManagedFields(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  if (Array.isArray(o.items)) return { ...o, items: (o.items as unknown[]).map(withoutManagedFields) };
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
  /** Adds an annotation to the event. */
  annotate(key: string, value: string): void;
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
  const auditID = crypto.randomUUID();
  res.setHeader('Audit-Id', auditID);
  const now = microTime(Date.now());
  void log.write({
    kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: decision.level, auditID, stage: 'ResponseStarted', requestURI: request.url, verb: request.verb,
    user: {}, sourceIPs: request.sourceIP === undefined ? [] : [request.sourceIP.replace(/^::ffff:/, '')],
    ...(request.userAgent !== undefined ? { userAgent: request.userAgent } : {}), ...(request.attributes.resourceRequest ? { objectRef: objectReference(request) } : {}),
    responseStatus: { metadata: {}, message: methods.length > 0 ? `Authentication failed, attempted: ${methods.join(', ')}` : 'Authentication failed, no credentials provided', code: 401 },
    requestReceivedTimestamp: now, stageTimestamp: now,
    ...(annotations !== undefined && Object.keys(annotations).length > 0 ? { annotations: { ...annotations } } : {}),
  });
}

export function beginAudit(policy: AuditPolicy, log: AuditSink, request: AuditRequest, res: AuditedResponse): AuditHooks | undefined {
  const decision = auditDecision(policy, request.attributes);
  if (decision.level === 'None') return undefined;
  const annotations: Record<string, string> = {};
  const received = Date.now();
  const auditID = crypto.randomUUID();
  res.setHeader('Audit-Id', auditID);
  const a = request.attributes;
  const reference = (meta?: Record<string, unknown>) => objectReference(request, meta);
  let objectRef = a.resourceRequest ? reference() : undefined;
  let impersonatedUser: AuditRequest['user'] | undefined;
  let impersonationConstraint = '';
  // audit.k8s.io/v1's Event, its fields in order.
  const emit = (stage: AuditStage, extra: { responseStatus?: unknown; requestObject?: unknown; responseObject?: unknown }): boolean | Promise<boolean> => {
    if (decision.omitStages.includes(stage)) return true;
    return log.write({
      kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: decision.level, auditID, stage, requestURI: request.url, verb: request.verb,
      user: userInfo(request.user), ...(impersonatedUser !== undefined ? { impersonatedUser: userInfo(impersonatedUser) } : {}),
      sourceIPs: request.sourceIP === undefined ? [] : [request.sourceIP.replace(/^::ffff:/, '')],
      ...(request.userAgent !== undefined ? { userAgent: request.userAgent } : {}), ...(objectRef !== undefined ? { objectRef } : {}),
      ...extra, requestReceivedTimestamp: microTime(received), stageTimestamp: microTime(Date.now()),
      ...(Object.keys(annotations).length > 0 ? { annotations: { ...annotations } } : {}),
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
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  res.write = (...args: any[]) => {
    capture(args[0]);
    return write(...args);
  };
  res.end = (...args: any[]) => {
    capture(args[0]);
    return end(...args);
  };
  const stored = emit('RequestReceived', {});
  res.once('close', () => {
    const code = res.statusCode;
    const encoded = res.getHeader('content-encoding') !== undefined;
    // The answer is read for a failure's Status, or for the response object at RequestResponse.
    const wanted = code >= 400 || decision.level === 'RequestResponse';
    const answer = !wanted || encoded || captured > responseCaptureLimit ? undefined : decodeJsonBody(Buffer.concat(chunks), String(res.getHeader('content-type') ?? ''));
    const status = answer !== null && typeof answer === 'object' && (answer as Record<string, unknown>).kind === 'Status' ? answer as Record<string, unknown> : undefined;
    const responseStatus = {
      metadata: {}, ...(status?.status === 'Failure' ? { status: 'Failure', message: status.message, reason: status.reason } : {}), code,
    };
    const trim = (v: unknown) => (decision.omitManagedFields ? withoutManagedFields(v) : v);
    void emit('ResponseComplete', {
      responseStatus,
      ...(decision.level !== 'Metadata' && requestObject !== undefined ? { requestObject: trim(requestObject) } : {}),
      ...(decision.level === 'RequestResponse' && answer !== undefined ? { responseObject: trim(answer) } : {}),
    });
  });
  const annotate = (key: string, value: string) => void (annotations[key] = value);
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
