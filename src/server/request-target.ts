// The request target (`:path` or the request line's URI) split strictly into path and query.
import { badRequest, type StatusError } from '../api/index.ts';
import { goQuery } from '../endpoints/query.ts';

export interface RequestTarget {
  /** The path as sent, not decoded and not normalised (no dot-segment or slash merging). */
  path: string;
  query: URLSearchParams;
}

/** A `%` not followed by two hex digits: Go's URL parser refuses such a path. */
const badEscape = /%(?![0-9a-fA-F]{2})/;

/**
 * Parses a request target as Go's server does (url.ParseRequestURI): origin form
 * `/path?query`, absolute form `https://host/path?query`, or `*`. A path is taken as
 * it is: `//x/api/v1/namespaces` is the path `//x/api/v1/namespaces` (which nothing
 * serves), never host `x` and path `/api/v1/namespaces` as a browser URL parser reads it.
 * Anything else is 400, before authentication, as Go answers it before any handler.
 */
export function parseRequestTarget(target: string): RequestTarget {
  let rest = target;
  const absolute = /^https?:\/\/[^/?#]*/i.exec(rest);
  if (absolute !== null) {
    rest = rest.slice(absolute[0].length);
    if (rest === '' || rest.startsWith('?')) rest = `/${rest}`;
  }
  if (rest !== '*' && !rest.startsWith('/')) throw invalidTarget(target);
  const mark = rest.indexOf('?');
  const path = mark < 0 ? rest : rest.slice(0, mark);
  if (badEscape.test(path)) throw invalidTarget(target);
  return { path, query: goQuery(mark < 0 ? '' : rest.slice(mark + 1)) };
}

/**
 * A request's target by its method: CONNECT's is in authority form (`host:port`), which Go's
 * server reads as `http://` before it, then drops the scheme: a URL without path (its path
 * ""), unless a path follows the authority; a CONNECT target that begins with "/" is any
 * request's. Every other method's is parseRequestTarget's.
 */
export function requestTarget(method: string, target: string): RequestTarget {
  if (method !== 'CONNECT' || target.startsWith('/')) return parseRequestTarget(target);
  const authority = /^[^/?#]*/.exec(target)![0];
  const rest = target.slice(authority.length);
  if (rest === '' || rest.startsWith('?')) return { path: '', query: goQuery(rest.slice(1)) };
  return parseRequestTarget(rest);
}

function invalidTarget(target: string): StatusError {
  return badRequest(`invalid request URI ${JSON.stringify(target.length > 200 ? `${target.slice(0, 200)}...` : target)}`);
}
