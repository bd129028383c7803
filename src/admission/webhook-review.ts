// AdmissionReview requests and responses (admission.k8s.io/v1 and v1beta1), after
// apiserver/pkg/admission/plugin/webhook/request/admissionreview.go and errors/statuserror.go.

import { StatusError, type StatusDetails } from '../api/index.ts';
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
  result?: Record<string, unknown>;
  warnings: string[];
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
  let patch: unknown;
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
    patch,
    result: isObject(response.status) ? response.status : undefined,
    warnings,
  };
}

function decodePatch(base64: string): unknown {
  const text = Buffer.from(base64, 'base64').toString('utf8');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InvalidResponseError(`received undecodable patch in webhook response: ${(err as Error).message}`);
  }
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
