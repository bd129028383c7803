// Webhook token authentication (`--authentication-token-webhook-config-file`), as upstream's
// plugin/pkg/authenticator/token/webhook: a bearer token no other authenticator knows is
// sent in a TokenReview with the audiences it must be good for; the webhook's answer names
// the user. Answers (authenticated or not, but no errors) are cached by token and audiences.
// The HTTP call, with its retries, arrives as a function.
import { createHash } from 'node:crypto';
import { AuthenticationFailure, type TokenAuthenticator } from './authenticate.ts';
import type { UserInfo } from './user.ts';

export interface TokenWebhookOptions {
  /** The TokenReview version sent and expected (upstream's default: v1beta1). */
  version: 'v1' | 'v1beta1';
  /** POSTs the review and answers its decoded response; throws an Error whose message says why it could not. */
  call(review: Record<string, unknown>): Promise<unknown>;
  /** The API server's audiences: what a token is for when the request names none, and when the webhook's answer names none. */
  implicitAudiences: readonly string[];
  /** How long an answer is reused (`--authentication-token-webhook-cache-ttl`); 0 for not at all. */
  cacheTtlMs: number;
  now?(): number;
}

interface ReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  audiences?: string[];
  error?: string;
}

/** Expired answers are swept out once the cache holds this many. */
const sweepSize = 4096;

export function tokenWebhookAuthenticator(opts: TokenWebhookOptions): TokenAuthenticator {
  const now = opts.now ?? (() => Date.now());
  const cache = new Map<string, { status: ReviewStatus; expires: number }>();

  const answer = (status: ReviewStatus, wanted: readonly string[]) => {
    let audiences: string[] | undefined;
    if (wanted.length > 0) {
      const granted = status.audiences !== undefined && status.audiences.length > 0 ? status.audiences : opts.implicitAudiences;
      audiences = wanted.filter((a) => granted.includes(a));
      // A token the webhook says is for other audiences is not this server's: nobody, without an error.
      if (audiences.length === 0) return undefined;
    }
    if (status.authenticated !== true) {
      if (typeof status.error === 'string' && status.error !== '') throw new AuthenticationFailure(status.error);
      return undefined;
    }
    const reviewed = status.user ?? {};
    const user: UserInfo = { name: reviewed.username ?? '', uid: reviewed.uid ?? '', groups: [...(reviewed.groups ?? [])] };
    if (reviewed.extra !== undefined && Object.keys(reviewed.extra).length > 0) user.extra = reviewed.extra;
    return { user, ...(audiences !== undefined ? { audiences } : {}) };
  };

  return (token, requested) => {
    const wanted = requested ?? opts.implicitAudiences;
    // The token itself is not kept: the key is a digest of it and the audiences.
    const key = createHash('sha256').update(JSON.stringify([token, wanted])).digest('base64');
    const cached = cache.get(key);
    if (cached !== undefined && cached.expires > now()) return answer(cached.status, wanted);
    return (async () => {
      const review = {
        apiVersion: `authentication.k8s.io/${opts.version}`, kind: 'TokenReview', metadata: { creationTimestamp: null },
        spec: { token, ...(wanted.length > 0 ? { audiences: [...wanted] } : {}) }, status: { user: {} },
      };
      let status: ReviewStatus;
      try {
        const response = await opts.call(review);
        const found = (response as { status?: unknown } | null)?.status;
        status = found !== null && typeof found === 'object' ? (found as ReviewStatus) : {};
      } catch (err) {
        throw new AuthenticationFailure((err as Error).message);
      }
      const failed = status.authenticated !== true && typeof status.error === 'string' && status.error !== '';
      if (opts.cacheTtlMs > 0 && !failed) {
        if (cache.size >= sweepSize) for (const [k, entry] of cache) if (entry.expires <= now()) cache.delete(k);
        cache.set(key, { status, expires: now() + opts.cacheTtlMs });
      }
      return answer(status, wanted);
    })();
  };
}
