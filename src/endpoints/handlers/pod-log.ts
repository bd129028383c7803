// pods/{name}/log as kube-apiserver serves it: the query read as PodLogOptions (Go's query
// conversion, then upstream's validation), the container checked, and the log streamed from
// the kubelet of the pod's node (`GET https://<node>:<port>/containerLogs/<ns>/<pod>/<container>`
// with the options upstream passes on); a kubelet's refusal answered as upstream's response
// checker words it. A pod not scheduled yet has an empty log; a simulated node writes one line.
import { badRequest, genericServerResponse, internalError, invalid, StatusError, unclassifiedError, type StatusCause } from '../../api/index.ts';
import { canonicalGoTime } from '../../api/go-time.ts';
import { forbidden, invalid as invalidField } from '../../api/field-errors.ts';
import { objectAt, stringAt } from '../../registry/builtin/object.ts';
import { simulatedLogLine, simulatedNodeAnnotation } from '../../registry/builtin/nodes.ts';
import type { ResourceRegistry } from '../../registry/registry.ts';
import { writeBytes } from '../http.ts';
import { isCertificateRejected } from '../kubelet-client.ts';
import { streamAnswer } from '../proxy-stream.ts';
import { parseInteger } from '../query.ts';
import { queryBool } from '../request-info.ts';
import { containerOf, noKubeletClient, realKubeletAddress } from './connect.ts';
import type { RequestScope } from './scope.ts';

/** What a log request asks (core/v1 PodLogOptions). */
export interface PodLogOptions {
  container: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds?: number;
  /** RFC 3339, as the kubelet is told it. */
  sinceTime?: string;
  tailLines?: number;
  limitBytes?: number;
  insecureSkipTLSVerifyBackend: boolean;
  /** The integer options in decimal, exactly as given (an int64 may not fit a number). */
  integers: Partial<Record<'sinceSeconds' | 'tailLines' | 'limitBytes', string>>;
  /** `stream` as given (the first value, empty included), which only the PodLogsQuerySplitStreams gate lets through. */
  stream?: string;
}

/**
 * The query as upstream's parameter codec decodes PodLogOptions (a number Go cannot parse,
 * a time that is not RFC 3339: 400), then ValidatePodLogOptions (422 PodLogOptions).
 */
export function podLogOptions(query: URLSearchParams, name: string): PodLogOptions {
  const options = decodePodLogOptions(query);
  validatePodLogOptions(options, name);
  return options;
}

/** The query as upstream's parameter codec decodes PodLogOptions: 400 for a number Go cannot parse or a time that is not RFC 3339. */
export function decodePodLogOptions(query: URLSearchParams): PodLogOptions {
  const options: PodLogOptions = {
    container: query.get('container') ?? '',
    follow: queryBool(query.get('follow')) === true,
    previous: queryBool(query.get('previous')) === true,
    timestamps: queryBool(query.get('timestamps')) === true,
    insecureSkipTLSVerifyBackend: queryBool(query.get('insecureSkipTLSVerifyBackend')) === true,
    integers: {},
  };
  for (const key of ['sinceSeconds', 'tailLines', 'limitBytes'] as const) {
    const value = parseInteger(query, key);
    if (value === undefined) continue;
    options[key] = value;
    // Passed on as Go's FormatInt writes the int64 it parsed: exact past 2^53, without a sign or leading zeros.
    options.integers[key] = BigInt(query.get(key)!).toString();
  }
  const stream = query.get('stream');
  if (stream !== null) options.stream = stream;
  const sinceTime = query.get('sinceTime');
  if (sinceTime !== null) {
    // metav1.Time's query form: empty or "null" is the zero time.
    if (sinceTime === '' || sinceTime === 'null') options.sinceTime = '0001-01-01T00:00:00Z';
    else {
      const parsed = canonicalGoTime(sinceTime);
      if (parsed.error !== undefined) throw badRequest(parsed.error);
      options.sinceTime = parsed.value ?? '0001-01-01T00:00:00Z';
    }
  }
  return options;
}

/**
 * Upstream's ValidatePodLogOptions: 422 PodLogOptions with each field's error. A `stream` is
 * refused whatever its value: stream selection is the PodLogsQuerySplitStreams gate's (alpha,
 * off), and with it off upstream neither defaults nor accepts one.
 */
export function validatePodLogOptions(options: PodLogOptions, name: string): void {
  const causes: StatusCause[] = [];
  if (options.tailLines !== undefined && options.tailLines < 0) causes.push(invalidField('tailLines', options.tailLines, 'must be greater than or equal to 0'));
  if (options.limitBytes !== undefined && options.limitBytes < 1) causes.push(invalidField('limitBytes', options.limitBytes, 'must be greater than 0'));
  if (options.sinceSeconds !== undefined && options.sinceTime !== undefined) causes.push(forbidden('[]', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  else if (options.sinceSeconds !== undefined && options.sinceSeconds < 1) causes.push(invalidField('sinceSeconds', options.sinceSeconds, 'must be greater than 0'));
  if (options.stream !== undefined) causes.push(forbidden('stream', 'may not be specified'));
  if (causes.length > 0) throw invalid('PodLogOptions', name, causes);
}

/** The query the kubelet is sent: upstream's parameters, in Go's url.Values order (by key). */
export function kubeletLogQuery(options: PodLogOptions): string {
  const params: Array<[string, string]> = [];
  if (options.follow) params.push(['follow', 'true']);
  if (options.integers.limitBytes !== undefined) params.push(['limitBytes', options.integers.limitBytes]);
  if (options.previous) params.push(['previous', 'true']);
  if (options.integers.sinceSeconds !== undefined) params.push(['sinceSeconds', options.integers.sinceSeconds]);
  if (options.sinceTime !== undefined) params.push(['sinceTime', options.sinceTime]);
  if (options.integers.tailLines !== undefined) params.push(['tailLines', options.integers.tailLines]);
  if (options.timestamps) params.push(['timestamps', 'true']);
  return params.length === 0 ? '' : `?${new URLSearchParams(params).toString()}`;
}

/** The most of a refusal's body that is read into the error, as upstream's response checker reads. */
const maxErrorBody = 50_000;

/** Upstream's GenericHttpResponseChecker: a 500's body is an internal error, a 400's a bad request, the rest a generic response. */
function kubeletRefusal(code: number, body: string, name: string): StatusError {
  if (code === 500) return internalError(body);
  if (code === 400) return badRequest(body);
  // No verb, the resource `pods/log`: hence the double space.
  const { reason, message } = genericServerResponse(code, body);
  return new StatusError(code, reason, `${message} ( pods/log ${name})`, { name, kind: 'pods/log' });
}

async function readLimited(stream: AsyncIterable<Buffer>, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    chunks.push(chunk);
    length += chunk.length;
    if (length >= limit) break;
  }
  return Buffer.concat(chunks).subarray(0, limit).toString();
}

export async function podLogHandler(scope: RequestScope, registry: ResourceRegistry): Promise<void> {
  const { info, res } = scope;
  const options = decodePodLogOptions(scope.query);
  // Counted before validation, as upstream's LogREST counts every request whose options decoded.
  scope.kubelet?.counters?.logRequest(options.insecureSkipTLSVerifyBackend ? 'skip_tls_allowed' : 'enforce_tls');
  validatePodLogOptions(options, info.name);
  const pod = await scope.served.store.get(info.namespace, info.name);
  const container = containerOf(pod, info.name, options.container);
  const nodeName = stringAt(objectAt(pod, 'spec'), 'nodeName');
  // Upstream streams an empty log for a pod not scheduled yet.
  if (nodeName === '') {
    writeBytes(res, 200, 'text/plain', '');
    return;
  }
  const node = await registry.lookup('', 'v1', 'nodes')!.store.get('', nodeName);
  if (node.metadata.annotations?.[simulatedNodeAnnotation] === 'true') {
    writeBytes(res, 200, 'text/plain', simulatedLogLine(info.namespace, info.name, container, nodeName));
    return;
  }
  const address = realKubeletAddress(node, scope.kubeletAddressTypes);
  const target = `/containerLogs/${info.namespace}/${info.name}/${container}${kubeletLogQuery(options)}`;
  const url = `https://${address}${target}`;
  const kubelet = scope.kubelet;
  if (kubelet === undefined) throw unclassifiedError(`Get ${JSON.stringify(url)}: ${noKubeletClient}`);
  let answer;
  try {
    answer = await kubelet.request({ address, method: 'GET', target, insecure: options.insecureSkipTLSVerifyBackend });
  } catch (err) {
    if (isCertificateRejected(err)) kubelet.counters?.logTlsFailure();
    // Go's client's error, as upstream answers it: 500 without a reason.
    throw unclassifiedError(`Get ${JSON.stringify(url)}: ${(err as Error).message}`);
  }
  const code = answer.statusCode ?? 500;
  if (code >= 300 && code < 400 && answer.headers.location !== undefined) {
    answer.resume();
    throw unclassifiedError(`Get ${JSON.stringify(url)}: redirects forbidden`);
  }
  if (code < 200 || code > 206) throw kubeletRefusal(code, await readLimited(answer, maxErrorBody), info.name);
  // Streamed as it comes (a followed log for as long as both ends stay).
  const untrack = scope.trackLongRunning(() => answer.destroy());
  try {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.flushHeaders?.();
    await streamAnswer(answer, res);
  } finally {
    untrack();
  }
}
