// The call to an authentication or authorization webhook described by a kubeconfig, as
// upstream's generic webhook makes it: a POST of the review to the exact server URL (with
// `?timeout=30s`, client-go's request timeout), the kubeconfig's TLS and credentials, and
// upstream's retries (DefaultShouldRetry with DefaultAuthWebhookRetryBackoff: up to 5
// attempts, 500 ms growing 1.5× with 20% jitter, for a reset connection, a 5xx but 503, a
// 504 or a 429).
import { AgentPool, callURL, postJSON, WebhookCallError } from '../admission/webhook-client.ts';
import type { WebhookConnection } from './webhook-kubeconfig.ts';

export interface Backoff {
  steps: number;
  initialMs: number;
  factor: number;
  jitter: number;
}

export const defaultBackoff: Backoff = { steps: 5, initialMs: 500, factor: 1.5, jitter: 0.2 };

/** How one attempt ended, as upstream's webhook metrics label it. */
export type AttemptResult = 'success' | 'timeout' | 'error';

function attemptResult(err: unknown): AttemptResult {
  if (err instanceof WebhookCallError && (err.statusCode === 504 || (err.statusCode === undefined && err.message.endsWith('context deadline exceeded')))) return 'timeout';
  return 'error';
}

function retryable(err: unknown): boolean {
  if (!(err instanceof WebhookCallError)) return false;
  if (err.connectionReset) return true;
  const code = err.statusCode;
  return code !== undefined && (code === 429 || (code >= 500 && code !== 503));
}

/** A function that POSTs a review to the webhook and answers its decoded response. */
export function webhookCaller(
  connection: WebhookConnection, agents: AgentPool, opts: { timeoutMs?: number; backoff?: Backoff; onAttempt?(result: AttemptResult, seconds: number): void } = {},
): (review: Record<string, unknown>) => Promise<unknown> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const backoff = opts.backoff ?? defaultBackoff;
  const url = callURL(connection.server, Math.round(timeoutMs / 1000));
  const callOptions = {
    timeoutMs,
    ...(connection.caPem !== undefined ? { caPem: connection.caPem } : {}),
    ...(connection.certPem !== undefined ? { certPem: connection.certPem } : {}),
    ...(connection.keyPem !== undefined ? { keyPem: connection.keyPem } : {}),
    ...(connection.token !== undefined ? { token: connection.token } : {}),
    ...(connection.serverName !== undefined ? { serverName: connection.serverName } : {}),
    ...(connection.insecureSkipTLSVerify ? { insecureSkipTLSVerify: true } : {}),
  };
  return async (review) => {
    let delay = backoff.initialMs;
    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      try {
        const answer = await postJSON(url, review, callOptions, agents);
        opts.onAttempt?.('success', (performance.now() - started) / 1000);
        return answer;
      } catch (err) {
        const result = attemptResult(err);
        opts.onAttempt?.(result, (performance.now() - started) / 1000);
        if (attempt >= backoff.steps || !retryable(err)) throw Object.assign(err as Error, { attemptResult: result });
      }
      await new Promise((resolve) => setTimeout(resolve, delay * (1 + Math.random() * backoff.jitter)));
      delay *= backoff.factor;
    }
  };
}
