import type { Negotiated } from '../../encoding/negotiate.ts';
import type { ServedResource } from '../../registry/registry.ts';
import type { ResourceRequestInfo } from '../../server/request-info.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';

/** Everything a verb handler needs about one request. */
export interface RequestScope {
  req: HttpRequest;
  res: HttpResponse;
  info: ResourceRequestInfo;
  query: URLSearchParams;
  served: ServedResource;
  negotiated: Negotiated;
}
