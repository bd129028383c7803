// A webhook's clientConfig as upstream's webhook.ValidateWebhookURL and
// ValidateWebhookService check it, and the review versions it speaks: admission webhooks'
// and CRD conversion webhooks'.

import type { StatusCause } from '../../api/index.ts';
import type { JsonObject } from '../../api/json.ts';
import { goQuote, invalid, required } from './field.ts';
import { isDNS1035Label, isDNS1123Subdomain, isValidPortNum } from './names.ts';

function stringOf(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** webhook.ValidateWebhookURL with https required. */
export function validateWebhookURL(raw: string, path: string): StatusCause[] {
  const form = '; desired format: https://host[/path]';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [required(path, `url must be a valid URL: parse ${goQuote(raw)}: invalid URI for request${form}`)];
  }
  const causes: StatusCause[] = [];
  const scheme = url.protocol.replace(/:$/, '');
  if (scheme !== 'https') causes.push(invalid(path, scheme, `'https' is the only allowed URL scheme${form}`));
  if (url.host === '') causes.push(invalid(path, url.host, `host must be specified${form}`));
  if (url.username !== '' || url.password !== '') {
    causes.push(invalid(path, url.password === '' ? url.username : `${url.username}:${url.password}`, 'user information is not permitted in the URL'));
  }
  if (url.hash !== '') causes.push(invalid(path, url.hash.slice(1), 'fragments are not permitted in the URL'));
  if (url.search !== '') causes.push(invalid(path, url.search.slice(1), 'query parameters are not permitted in the URL'));
  return causes;
}

/** webhook.ValidateWebhookService. */
export function validateWebhookService(service: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (stringOf(service.name) === '') causes.push(required(`${path}.name`, 'service name is required'));
  if (stringOf(service.namespace) === '') causes.push(required(`${path}.namespace`, 'service namespace is required'));
  const port = typeof service.port === 'number' ? service.port : 443;
  const portErrs = isValidPortNum(port);
  if (portErrs.length > 0) causes.push(invalid(`${path}.port`, port, `port is not valid: ${portErrs.join(', ')}`));
  if (typeof service.path !== 'string') return causes;
  const urlPath = service.path;
  if (urlPath === '/' || urlPath === '') return causes;
  if (urlPath === '//') return [...causes, invalid(`${path}.path`, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) causes.push(invalid(`${path}.path`, urlPath, "must start with a '/'"));
  let toCheck = urlPath.slice(1);
  if (toCheck.endsWith('/')) toCheck = toCheck.slice(0, -1);
  toCheck.split('/').forEach((step, i) => {
    if (step === '') {
      causes.push(invalid(`${path}.path`, urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const failure of isDNS1123Subdomain(step)) causes.push(invalid(`${path}.path`, urlPath, `segment[${i}]: ${failure}`));
  });
  return causes;
}

/** The review versions of a webhook (at least one given): each a unique DNS label, one of them known. */
export function validateReviewVersionList(list: string[], path: string, accepted: string[], requireRecognized = true): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  let recognized = false;
  list.forEach((v, i) => {
    if (seen.has(v)) {
      causes.push(invalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) causes.push(invalid(`${path}[${i}]`, v, msg));
    if (accepted.includes(v)) recognized = true;
  });
  if (requireRecognized && !recognized) causes.push(invalid(path, list, `must include at least one of ${accepted.join(', ')}`));
  return causes;
}
