// What deep layers (admission, the Store) may know about the request they serve, the
// way upstream passes a context.Context: who is asking, and where warnings go
// (apiserver/pkg/warning.AddWarning). The server sets it around each request; code
// running outside a request (in-process controllers, tests) sees none.

import { AsyncLocalStorage } from 'node:async_hooks';

/** The requesting user, as authentication.k8s.io's UserInfo names it. */
export interface RequestUser {
  name: string;
  uid: string;
  groups: string[];
  /** Further attributes (a service account token's pod, a credential id), as upstream's user.Info Extra. */
  extra?: Readonly<Record<string, readonly string[]>>;
}

/**
 * The lowest audit level whose events keep an admission plugin's annotation (upstream's
 * AddAnnotationWithLevel): Metadata, every audited request's; Request, those audited at
 * level Request or RequestResponse (a mutating webhook's patch, which shows the request's body).
 */
export type AnnotationLevel = 'Metadata' | 'Request';

export interface RequestContext {
  user: RequestUser;
  /**
   * When the request's deadline passes (performance.now() time; `--request-timeout` or its
   * `timeout` parameter): it has been answered 504 by then, and what it would still do goes nowhere.
   */
  deadline?: number;
  /** Adds a `Warning: 299 - "text"` header to the answer (deduplicated). */
  addWarning(text: string): void;
  /**
   * Adds an annotation to the request's audit event, kept at `level` (Metadata when not
   * given) and above; a key already set keeps its first value. Absent when the request is not audited.
   */
  addAuditAnnotation?(key: string, value: string, level?: AnnotationLevel): void;
  /** Told the request's body once read, when the request is audited at level Request or above. */
  auditRequestBody?(body: Uint8Array, contentType: string | undefined): void;
  /** Told an object body once decoded (JSON, YAML, Protobuf or CBOR), as upstream's LogRequestObject is, when the request is audited. */
  auditRequestObject?(object: Readonly<Record<string, unknown>>): void;
  /** False under `--allow-privileged=false` (upstream's default): privileged containers are refused as the cluster's policy. */
  allowPrivileged?: boolean;
  /** The API group and resource the request names (upstream's RequestInfo), empty for a request of no resource. */
  group?: string;
  resource?: string;
  /** The request's verb as authorization names it (get, create, update, patch, …). */
  verb?: string;
  /**
   * The request names a deprecated API (`removedRelease`: the release that removes it, or
   * empty): counted and audited as upstream's MonitorRequest does.
   */
  deprecatedApiRequested?(removedRelease: string): void;
  /** A watch's handler says its watch is established (upstream's WatchInitialized): the seats it took are given back. */
  watchInitialized?(): void;
}

// Per-request state lives in the async context, not in a global: each request sees its own.
const storage = new AsyncLocalStorage<RequestContext>();

export function runInRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

/**
 * Runs `fn` outside any request: for work a request sets going that outlives it and serves
 * every request (a watch cache loading on first use), whose asynchronous continuations
 * would otherwise carry that one request's user, warnings and resource for ever.
 */
export function outsideRequest<T>(fn: () => T): T {
  return storage.exit(fn);
}

/** Milliseconds until the request's deadline (none left: 0 or less); undefined outside a request or for one without a deadline (a watch). */
export function requestTimeLeft(): number | undefined {
  const deadline = storage.getStore()?.deadline;
  return deadline === undefined ? undefined : deadline - performance.now();
}

/** The context of the request being served, or undefined outside a request. */
export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}

/**
 * Whether the cluster's policy allows privileged containers (upstream's capabilities
 * AllowPrivileged, `--allow-privileged`): as the request's server says; the server's own
 * writes, outside any request, are allowed.
 */
export function privilegedContainersAllowed(): boolean {
  return storage.getStore()?.allowPrivileged !== false;
}

/**
 * The resource of the request being served as upstream's GroupResource prints it (`secrets`,
 * `deployments.apps`): empty outside a request or for a request of no resource.
 */
export function requestGroupResource(): string {
  const context = storage.getStore();
  const resource = context?.resource ?? '';
  const group = context?.group ?? '';
  return group === '' ? resource : `${resource}.${group}`;
}

/** Upstream's warning.AddWarning: a no-op outside a request. */
export function addWarning(text: string): void {
  storage.getStore()?.addWarning(text);
}

/** The request being served names a deprecated API; a no-op outside a request. */
export function deprecatedApiRequested(removedRelease = ''): void {
  storage.getStore()?.deprecatedApiRequested?.(removedRelease);
}

/** Upstream's audit.AddAuditAnnotation: a no-op outside an audited request. */
export function addAuditAnnotation(key: string, value: string, level?: AnnotationLevel): void {
  storage.getStore()?.addAuditAnnotation?.(key, value, level);
}

/** Whether the request being served is audited: what only its audit event would show need not be composed otherwise. */
export function auditedRequest(): boolean {
  return storage.getStore()?.addAuditAnnotation !== undefined;
}

/** Upstream's flowcontrol.WatchInitialized: the request's watch is established; a no-op outside a watch. */
export function watchInitialized(): void {
  storage.getStore()?.watchInitialized?.();
}
