// AdmissionReview requests and responses (admission.k8s.io/v1 and v1beta1), after
// apiserver/pkg/admission/plugin/webhook/request/admissionreview.go and errors/statuserror.go.

import { StatusError, type StatusDetails } from '../api/index.ts';
import { goEscaped } from '../api/field-errors.ts';
import { isObject } from '../api/json.ts';
import type { RequestUser } from '../api/request-context.ts';
import type { AdmissionAttributes } from './chain.ts';

/** The versions this server sends, in its order of preference. */
const knownReviewVersions = ['v1', 'v1beta1'];

/** The first version in the webhook's list this server knows, or undefined. */
export function reviewVersionFor(accepted: string[]): string | undefined {
  return accepted.find((v) => knownReviewVersions.includes(v));
}

/** Operation options as upstream passes them: CreateOptions, UpdateOptions or DeleteOptions. */
function optionsOf(attrs: AdmissionAttributes): Record<string, unknown> | null {
  const kind = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions' }[attrs.operation];
  if (kind === undefined) return null;
  const options: Record<string, unknown> = { kind, apiVersion: 'meta.k8s.io/v1' };
  if (attrs.dryRun) options.dryRun = ['All'];
  return options;
}

export function admissionReview(version: string, uid: string, attrs: AdmissionAttributes, user: RequestUser): Record<string, unknown> {
  const kindOf = (a: Pick<AdmissionAttributes, 'group' | 'version' | 'kind' | 'kindGroupVersion'>) => {
    const gv = a.kindGroupVersion ?? { group: a.group, version: a.version };
    return { group: gv.group, version: gv.version, kind: a.kind };
  };
  const kind = kindOf(attrs);
  const resource = { group: attrs.group, version: attrs.version, resource: attrs.resource };
  const asked = attrs.requestedAs;
  const userInfo: Record<string, unknown> = { username: user.name };
  if (user.uid !== '') userInfo.uid = user.uid;
  if (user.groups.length > 0) userInfo.groups = user.groups;
  const request: Record<string, unknown> = { uid, kind, resource };
  if (attrs.subresource !== '') request.subResource = attrs.subresource;
  request.requestKind = asked === undefined ? kind : kindOf(asked);
  request.requestResource = asked === undefined ? resource : { group: asked.group, version: asked.version, resource: asked.resource };
  if (attrs.subresource !== '') request.requestSubResource = attrs.subresource;
  if (attrs.name !== '') request.name = attrs.name;
  if (attrs.namespace !== '') request.namespace = attrs.namespace;
  request.operation = attrs.operation;
  request.userInfo = userInfo;
  request.object = attrs.object ?? null;
  request.oldObject = attrs.oldObject ?? null;
  request.dryRun = attrs.dryRun;
  request.options = optionsOf(attrs);
  return { kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request };
}

export interface AdmissionResult {
  allowed: boolean;
  /** Decoded JSON Patch operations, when a mutating webhook sent some. */
  patch?: unknown;
  /** The patch's JSON text as sent, for its audit annotation. */
  patchText?: string;
  result?: Record<string, unknown>;
  warnings: string[];
  /** response.auditAnnotations: what the webhook asks to be noted in the request's audit event, under `<webhook>/<key>`. */
  auditAnnotations: Record<string, string>;
}

/** A response that breaks the protocol: the call counts as failed (failurePolicy decides). */
export class InvalidResponseError extends Error {}

/** The reason upstream gives for a response VerifyAdmissionResponse refuses. */
function invalidResponse(why: string): InvalidResponseError {
  return new InvalidResponseError(`received invalid webhook response: ${why}`);
}

/** GroupVersionKind.String(): "group/version, Kind=kind" (the group part absent for the core group). */
function gvkString(apiVersion: unknown, kind: unknown): string {
  const av = typeof apiVersion === 'string' ? apiVersion : '';
  const slash = av.indexOf('/');
  const group = slash < 0 ? '' : av.slice(0, slash);
  const version = slash < 0 ? av : av.slice(slash + 1);
  return `${group}/${version}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

/** VerifyAdmissionResponse. */
export function verifyResponse(version: string, uid: string, mutating: boolean, body: unknown): AdmissionResult {
  if (!isObject(body)) throw invalidResponse('webhook response was absent');
  const response = body.response;
  if (!isObject(response)) throw invalidResponse('webhook response was absent');
  let patch: { ops: unknown; text: string } | undefined;
  if (version === 'v1') {
    if (response.uid !== uid) throw invalidResponse(`expected response.uid="${uid}", got "${typeof response.uid === 'string' ? response.uid : ''}"`);
    if (body.apiVersion !== 'admission.k8s.io/v1' || body.kind !== 'AdmissionReview') {
      throw invalidResponse(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${gvkString(body.apiVersion, body.kind)}`);
    }
    const hasPatch = typeof response.patch === 'string' && response.patch !== '';
    const hasPatchType = response.patchType !== undefined && response.patchType !== null;
    if (mutating) {
      if (hasPatch && !hasPatchType) throw invalidResponse('webhook returned response.patch but not response.patchType');
      if (!hasPatch && hasPatchType) throw invalidResponse('webhook returned response.patchType but not response.patch');
      if (hasPatchType && response.patchType !== 'JSONPatch') {
        throw response.patchType === '' ? invalidResponse('webhook returned invalid response.patchType of ""') : new InvalidResponseError(`unsupported patch type "${String(response.patchType)}"`);
      }
    } else {
      if (hasPatch) throw invalidResponse('validating webhook may not return response.patch');
      if (hasPatchType) throw invalidResponse('validating webhook may not return response.patchType');
    }
    if (mutating && hasPatch) patch = decodePatch(response.patch as string);
  } else if (mutating && typeof response.patch === 'string' && response.patch !== '') {
    // v1beta1 checked neither uid nor patch type; the patch is a JSON Patch.
    patch = decodePatch(response.patch);
  }
  const warnings = Array.isArray(response.warnings) ? response.warnings.filter((w): w is string => typeof w === 'string') : [];
  return {
    allowed: response.allowed === true,
    ...(patch !== undefined ? { patch: patch.ops, patchText: patch.text } : {}),
    result: isObject(response.status) ? response.status : undefined,
    warnings,
    auditAnnotations: auditAnnotationsOf(response.auditAnnotations),
  };
}

/** A map[string]string as Go decodes it: a null value is "" (values of other types are left out here). */
function auditAnnotationsOf(raw: unknown): Record<string, string> {
  const annotations: Record<string, string> = {};
  if (!isObject(raw)) return annotations;
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value === 'string' || value === null) annotations[key] = value ?? '';
  }
  return annotations;
}

function decodePatch(base64: string): { ops: unknown; text: string } {
  const text = Buffer.from(base64, 'base64').toString('utf8');
  try {
    return { ops: JSON.parse(text), text };
  } catch (err) {
    throw new InvalidResponseError(`received undecodable patch in webhook response: ${(err as Error).message}`);
  }
}

const jsonSpace = new Set([' ', '\t', '\n', '\r']);

/** Where the JSON value starting at `i` of valid JSON `text` ends. */
function valueEnd(text: string, i: number): number {
  let depth = 0;
  let j = i;
  do {
    const c = text[j]!;
    if (c === '"') {
      j++;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (depth === 0 && !jsonSpace.has(c)) {
      // A number or a literal: up to the next delimiter.
      while (j + 1 < text.length && !jsonSpace.has(text[j + 1]!) && !',]}'.includes(text[j + 1]!)) j++;
    }
    j++;
  } while (depth > 0);
  return j;
}

/** A JSON text as Go's json.Marshal writes a json.RawMessage: compacted, with Go's HTML escapes. */
function goRawMessage(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '"') {
      const end = valueEnd(raw, i);
      out += raw.slice(i, end);
      i = end - 1;
    } else if (!jsonSpace.has(c)) out += c;
  }
  return goEscaped(out);
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && jsonSpace.has(text[i]!)) i++;
  return i;
}

/**
 * A webhook's JSON Patch (valid JSON text) as upstream's patch audit annotation writes it:
 * json.Marshal of the jsonpatch.Patch it decoded, a list of operations that are Go maps of
 * json.RawMessage, so each operation's keys are sorted (a key given twice: its last value)
 * and each value is written as the webhook sent it, compacted, with Go's HTML escapes.
 */
export function patchAnnotationJson(text: string): string {
  const ops: string[] = [];
  let i = skipSpace(text, 0);
  if (text[i] !== '[') return goRawMessage(text);
  i = skipSpace(text, i + 1);
  while (text[i] !== ']') {
    if (text[i] !== '{') {
      const end = valueEnd(text, i);
      ops.push(goRawMessage(text.slice(i, end)));
      i = end;
    } else {
      const members = new Map<string, string>();
      i = skipSpace(text, i + 1);
      while (text[i] !== '}') {
        const keyEnd = valueEnd(text, i);
        const key = JSON.parse(text.slice(i, keyEnd)) as string;
        const start = skipSpace(text, skipSpace(text, keyEnd) + 1);
        const end = valueEnd(text, start);
        members.set(key, goRawMessage(text.slice(start, end)));
        i = skipSpace(text, end);
        if (text[i] === ',') i = skipSpace(text, i + 1);
      }
      i++;
      // Go sorts a map's keys by their bytes.
      const keys = [...members.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      ops.push(`{${keys.map((k) => `${goRawMessage(JSON.stringify(k))}:${members.get(k)!}`).join(',')}}`);
    }
    i = skipSpace(text, i);
    if (text[i] === ',') i = skipSpace(text, i + 1);
  }
  return `[${ops.join(',')}]`;
}

/** webhookerrors.ToStatusErr: a webhook's refusal as the error the client gets. */
export function refusal(webhookName: string, result: Record<string, unknown> | undefined): StatusError {
  const deniedBy = `admission webhook "${webhookName}" denied the request`;
  const status = result ?? {};
  let code = typeof status.code === 'number' ? status.code : 0;
  // Never a success code along with a refusal.
  if (code < 400) code = 400;
  const reason = typeof status.reason === 'string' ? status.reason : '';
  const text = typeof status.message === 'string' ? status.message : '';
  const message = text !== '' ? `${deniedBy}: ${text}` : reason !== '' ? `${deniedBy}: ${reason}` : `${deniedBy} without explanation`;
  const details = isObject(status.details) ? (status.details as StatusDetails) : undefined;
  return new StatusError(code, reason, message, details);
}
