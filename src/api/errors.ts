// StatusError and its named constructors: every error a client sees, as a Kubernetes Status.
import type { GroupResource, ListMeta, Status, StatusCause, StatusDetails } from './types.ts';
import { groupResourceString } from './types.ts';

/**
 * The one error type of Plinth. Endpoints turn it into a `Status`; anything else
 * thrown is a bug and becomes a 500.
 */
export class StatusError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details: StatusDetails | undefined;
  /** Extra response headers (Retry-After). */
  readonly headers: Record<string, string>;
  /** The Status's list metadata: an expired continue's token to go on with (upstream's inconsistent continue). */
  listMeta: ListMeta | undefined;
  /**
   * Answered as this text instead of a Status, as Go's http.Error writes it (text/plain,
   * nosniff): for answers upstream gives from net/http rather than from its Status writer.
   */
  plainText: string | undefined;

  constructor(code: number, reason: string, message: string, details?: StatusDetails, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'StatusError';
    this.code = code;
    this.reason = reason;
    this.details = details;
    this.headers = headers;
    this.listMeta = undefined;
    this.plainText = undefined;
  }

  toStatus(): Status {
    // In metav1.Status's field order, which its JSON keeps: reason and details before code.
    // Upstream leaves reason out when it has none (kubectl then prints "Error from server: <message>").
    const status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: this.listMeta === undefined ? {} : { ...this.listMeta },
      status: 'Failure',
      message: this.message,
    } as Status;
    if (this.reason !== '') status.reason = this.reason;
    if (this.details !== undefined) status.details = detailsInFieldOrder(this.details);
    status.code = this.code;
    return status;
  }
}

/**
 * Status details in metav1.StatusDetails' field order, which its JSON keeps (name, group,
 * kind, uid, causes, retryAfterSeconds), each cause in StatusCause's (reason, message, field):
 * the places that make them build them in whatever order reads best.
 */
export function detailsInFieldOrder(details: StatusDetails): StatusDetails {
  const { name, group, kind, uid, causes, retryAfterSeconds, ...rest } = details;
  const ordered: StatusDetails = {};
  if (name !== undefined) ordered.name = name;
  if (group !== undefined) ordered.group = group;
  if (kind !== undefined) ordered.kind = kind;
  if (uid !== undefined) ordered.uid = uid;
  if (causes !== undefined) {
    ordered.causes = causes.map(({ reason, message, field, ...others }) => {
      const cause: StatusCause = {};
      if (reason !== undefined) cause.reason = reason;
      if (message !== undefined) cause.message = message;
      if (field !== undefined) cause.field = field;
      return Object.assign(cause, others);
    });
  }
  if (retryAfterSeconds !== undefined) ordered.retryAfterSeconds = retryAfterSeconds;
  return Object.assign(ordered, rest);
}

export function isStatusError(err: unknown): err is StatusError {
  return err instanceof StatusError;
}

function qualified(gr: GroupResource, name: string): string {
  return `${groupResourceString(gr)} "${name}"`;
}

function detailsOf(gr: GroupResource, name: string | undefined): StatusDetails {
  const details: StatusDetails = { kind: gr.resource };
  if (name !== undefined && name !== '') details.name = name;
  if (gr.group !== '') details.group = gr.group;
  return details;
}

export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${qualified(gr, name)} not found`, detailsOf(gr, name));
}

export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${qualified(gr, name)} already exists`, detailsOf(gr, name));
}

/** A generated name that was taken on every attempt: AlreadyExists with a retry delay, as upstream. */
export function generateNameConflict(gr: GroupResource, name: string, retryAfterSeconds: number): StatusError {
  const message = `${qualified(gr, name)} already exists, the server was not able to generate a unique name for the object`;
  return new StatusError(409, 'AlreadyExists', message, { ...detailsOf(gr, name), retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });
}

/** Optimistic-concurrency failure, with upstream's wording. */
export function conflict(gr: GroupResource, name: string, why: string): StatusError {
  return new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(gr, name)}: ${why}`, detailsOf(gr, name));
}

export function staleObject(gr: GroupResource, name: string): StatusError {
  return conflict(gr, name, 'the object has been modified; please apply your changes to the latest version and try again');
}

/** 422 with one cause per field error; the message lists them like upstream. */
export function invalid(kind: string, name: string, causes: StatusCause[], group = ''): StatusError {
  // The message lists each distinct error once (field.ErrorList.ToAggregate); the causes keep them all.
  const messages = [...new Set(causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message ?? '')))];
  const summary = messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
  const groupKind = group === '' ? kind : `${kind}.${group}`;
  const details: StatusDetails = { name, kind, causes };
  if (group !== '') details.group = group;
  return new StatusError(422, 'Invalid', `${groupKind} "${name}" is invalid: ${summary}`, details);
}

export function badRequest(message: string, causes?: StatusCause[]): StatusError {
  return new StatusError(400, 'BadRequest', message, causes ? { causes } : undefined);
}

export function unauthorized(message = 'Unauthorized'): StatusError {
  return new StatusError(401, 'Unauthorized', message);
}

export function forbidden(message: string): StatusError {
  return new StatusError(403, 'Forbidden', message);
}

/**
 * 405. Without arguments, go-restful's answer for a path it routes but not with that method,
 * as kube-apiserver's service error handler writes it (NewGenericServerResponse: that message,
 * empty details, no Allow header).
 */
export function methodNotAllowed(message = 'the server does not allow this method on the requested resource', details: StatusDetails = {}): StatusError {
  return new StatusError(405, 'MethodNotAllowed', message, details);
}

export function notAcceptable(message: string): StatusError {
  return new StatusError(406, 'NotAcceptable', message);
}

export function gone(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

export function requestEntityTooLarge(message = 'the request entity is too large'): StatusError {
  return new StatusError(413, 'RequestEntityTooLarge', message);
}

/** 415, worded like upstream's "unknown format" answer. */
export function unsupportedMediaType(contentType: string, supported: string[]): StatusError {
  const what = contentType === '' ? 'the body of the request was in an unknown format' : `the body of the request was in an unknown format (${contentType})`;
  return new StatusError(415, 'UnsupportedMediaType', `${what} - accepted media types include: ${supported.join(', ')}`);
}

export function internalError(message: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
}

/**
 * An error upstream's storage layer returns as a plain error, not a Status: the endpoint
 * answers 500 with the bare message and no reason (upstream's ErrorToAPIStatus).
 */
export function unclassifiedError(message: string): StatusError {
  return new StatusError(500, '', message);
}

/**
 * apimachinery's NewGenericServerResponse for an answer from another server that is no
 * Status (a webhook's, a kubelet's): the reason and message its code gives, before any
 * resource is named.
 */
export function genericServerResponse(code: number, body: string): { reason: string; message: string } {
  switch (code) {
    case 400: return { reason: 'BadRequest', message: 'the server rejected our request for an unknown reason' };
    case 401: return { reason: 'Unauthorized', message: 'the server has asked for the client to provide credentials' };
    case 403: return { reason: 'Forbidden', message: body };
    case 404: return { reason: 'NotFound', message: 'the server could not find the requested resource' };
    case 405: return { reason: 'MethodNotAllowed', message: 'the server does not allow this method on the requested resource' };
    case 409: return { reason: 'Conflict', message: 'the server reported a conflict' };
    case 422: return { reason: 'Invalid', message: 'the server rejected our request due to an error in our request' };
    case 429: return { reason: 'TooManyRequests', message: 'the server has received too many requests and has asked us to try again later' };
    case 503: return { reason: 'ServiceUnavailable', message: 'the server is currently unable to handle the request' };
    case 504: return { reason: 'Timeout', message: 'the server was unable to return a response in the time allotted, but may still be processing the request' };
    default:
      return code >= 500
        ? { reason: 'InternalError', message: `an error on the server (${JSON.stringify(body)}) has prevented the request from succeeding` }
        : { reason: '', message: `the server responded with the status code ${code} but did not return more information` };
  }
}

/** 503: what the server would reach (a kubelet, a service's endpoints) is not available. */
export function serviceUnavailable(message: string): StatusError {
  return new StatusError(503, 'ServiceUnavailable', message);
}

/**
 * upstream's NewServerTimeout, which its registry (storeerr.Interpret*Error) answers when
 * the storage is unreachable: 500 ServerTimeout naming the operation, with Retry-After.
 */
export function serverTimeout(gr: GroupResource, operation: string, retryAfterSeconds: number): StatusError {
  const details: StatusDetails = { name: operation, kind: gr.resource, retryAfterSeconds };
  if (gr.group !== '') details.group = gr.group;
  return new StatusError(
    500, 'ServerTimeout',
    `The ${operation} operation against ${groupResourceString(gr)} could not be completed at this time, please try again.`,
    details, { 'Retry-After': String(retryAfterSeconds) },
  );
}

/**
 * upstream's NewTimeoutError: 504 Timeout, the message after `Timeout: `, details always, a
 * retry after (when above zero) in them and as Retry-After (responsewriters' ErrorNegotiated).
 */
export function timeout(message: string, retryAfterSeconds = 0, causes?: StatusCause[]): StatusError {
  const details: StatusDetails = {};
  if (causes !== undefined) details.causes = causes;
  if (retryAfterSeconds > 0) details.retryAfterSeconds = retryAfterSeconds;
  return new StatusError(504, 'Timeout', `Timeout: ${message}`, details, retryAfterSeconds > 0 ? { 'Retry-After': String(retryAfterSeconds) } : {});
}

/** 404 for a path under one of go-restful's web services that no route of it matches: its Status, empty details. */
export function notFoundPath(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/**
 * 404 for a path no handler of the delegation chain takes (aggregator, kube-apiserver,
 * apiextensions): in v1.36 its notfoundhandler calls net/http's NotFound, a plain-text
 * `404 page not found` whatever the method, never negotiated nor compressed.
 */
export function notFoundAtChainEnd(): StatusError {
  const err = new StatusError(404, 'NotFound', '404 page not found');
  err.plainText = '404 page not found\n';
  return err;
}
