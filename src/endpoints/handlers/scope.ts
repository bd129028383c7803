// What every verb handler is given: the request, its info, the served resource, negotiation.
import type { Negotiated } from '../../encoding/negotiate.ts';
import type { ServedResource } from '../../registry/registry.ts';
import type { ResourceRequestInfo } from '../request-info.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';

/** Everything a verb handler needs about one request. */
export interface RequestScope {
  req: HttpRequest;
  res: HttpResponse;
  info: ResourceRequestInfo;
  query: URLSearchParams;
  served: ServedResource;
  negotiated: Negotiated;
  /** Large answers may be gzip-compressed: the client takes it and APIResponseCompression is on. */
  gzip: boolean;
  /** The WatchList feature gate (sendInitialEvents). */
  watchList: boolean;
  /** Registers a long-running request's stop function (ended on shutdown); returns its unregister function. */
  trackLongRunning(stop: () => void): () => void;
  log(message: string): void;
}
