// The server's JWT authenticators, from `--authentication-config` or the `--oidc-*` flags:
// each reads its issuer's discovery document and keys over HTTPS (trusting its own CA when
// given, else the system's), in the background, retried until the issuer answers. A new
// configuration replaces the set once all its authenticators are ready, as upstream's
// authenticationConfigUpdater swaps them; until then the old set keeps answering.
import { audienceAgnostic, unionTokenAuthenticator, type TokenAuthenticator } from '../auth/authenticate.ts';
import { jwtAuthenticator, type JwtAuthenticator, type JwtAuthenticatorSpec } from '../auth/oidc.ts';

/** One entry of the configuration: the authenticator and the CA (PEM) its issuer's certificate chains to. */
export interface JwtEntry {
  spec: JwtAuthenticatorSpec;
  certificateAuthority?: string;
}

/** A GET of `url` parsed as JSON; a status other than 200, or no JSON, is an error. */
function getJson(url: string, ca: string | undefined): Promise<unknown> {
  return new Promise((resolve, reject) => {
    // node:https loads with the first issuer read, not at every start.
    const req = process.getBuiltinModule('node:https').get(url, { ...(ca !== undefined ? { ca } : {}), timeout: 10_000, headers: { accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) {
          reject(new Error(`${url}: ${res.statusCode} ${res.statusMessage ?? ''}: ${body.slice(0, 200)}`));
          return;
        }
        try {
          resolve(JSON.parse(body));
        } catch {
          reject(new Error(`${url}: the answer is not JSON`));
        }
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${url}: no answer in 10 s`)));
    req.on('error', reject);
  });
}

/** A distributed claim's JWT: a GET of its endpoint with the access token, the body as text (upstream's getClaimJWT). */
function getClaimToken(url: string, accessToken: string | undefined, ca: string | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const headers = accessToken === undefined ? {} : { authorization: `Bearer ${accessToken}` };
    const req = process.getBuiltinModule('node:https').get(url, { ...(ca !== undefined ? { ca } : {}), timeout: 30_000, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 226) reject(new Error(`error while getting distributed claim JWT: ${status} ${res.statusMessage ?? ''}`.trimEnd()));
        else resolve(Buffer.concat(chunks).toString('utf8').trim());
      });
      res.on('error', (err) => reject(new Error(`Get ${JSON.stringify(url)}: ${err.message}`)));
    });
    req.on('timeout', () => req.destroy(new Error('context deadline exceeded')));
    req.on('error', (err) => reject(new Error(`Get ${JSON.stringify(url)}: ${err.message}`)));
  });
}

/** How long a new configuration's authenticators may take to become ready (upstream's UpdateAuthenticationConfigTimeout). */
const readyTimeoutMs = 60_000;

/** What the authenticators report (ApiMetrics' upstream series). */
export interface JwtMetrics {
  jwtAuthentication(issuer: string, result: 'success' | 'failure', seconds: number): void;
  jwksFetch(issuer: string, result: 'success' | 'failure', keySet?: unknown): void;
}

export class JwtAuthenticators {
  #current: JwtAuthenticator[] = [];
  #union: TokenAuthenticator = () => undefined;
  readonly #apiAudiences: readonly string[];
  readonly #signingAlgs: readonly string[];
  readonly #log: (message: string) => void;
  readonly #metrics: JwtMetrics | undefined;

  /** Tokens are meant for the API server's own audiences (upstream wraps the union audience-agnostic). */
  readonly authenticate: TokenAuthenticator = (token, audiences) => this.#union(token, audiences);

  constructor(opts: { apiAudiences: readonly string[]; signingAlgs: readonly string[]; log: (message: string) => void; metrics?: JwtMetrics }) {
    this.#apiAudiences = opts.apiAudiences;
    this.#signingAlgs = opts.signingAlgs;
    this.#log = opts.log;
    this.#metrics = opts.metrics;
  }

  /** The issuers served now. */
  get issuers(): string[] {
    return this.#current.map((a) => a.issuer);
  }

  #build(entries: readonly JwtEntry[]): JwtAuthenticator[] {
    return entries.map(({ spec, certificateAuthority }) => jwtAuthenticator(spec, {
      signingAlgs: this.#signingAlgs,
      fetchJson: (url) => getJson(url, certificateAuthority),
      fetchClaimToken: (url, accessToken) => getClaimToken(url, accessToken, certificateAuthority),
      log: this.#log,
      observe: (result, seconds) => this.#metrics?.jwtAuthentication(spec.issuer.url, result, seconds),
      keysFetched: (result, keySet) => this.#metrics?.jwksFetch(spec.issuer.url, result, keySet),
    }));
  }

  #install(authenticators: JwtAuthenticator[]): void {
    const old = this.#current;
    this.#current = authenticators;
    this.#union = audienceAgnostic(this.#apiAudiences, unionTokenAuthenticator(authenticators.map((a) => a.authenticate)));
    for (const a of old) a.close();
  }

  /** The first configuration: serves at once, each issuer's keys read in the background. */
  start(entries: readonly JwtEntry[]): void {
    const authenticators = this.#build(entries);
    this.#install(authenticators);
    for (const a of authenticators) void a.start();
  }

  /**
   * A later configuration: its authenticators replace the current ones once every one of
   * them has read its issuer's keys; an error (the old set stays) when they have not within
   * the timeout.
   */
  async replace(entries: readonly JwtEntry[], timeoutMs = readyTimeoutMs): Promise<void> {
    const authenticators = this.#build(entries);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const outcome = await Promise.race([Promise.all(authenticators.map((a) => a.start())), timedOut]);
    clearTimeout(timer);
    const waiting = authenticators.filter((a) => !a.ready());
    if (outcome === 'timeout' || waiting.length > 0) {
      for (const a of authenticators) a.close();
      throw new Error(`the issuers' keys could not be read: ${waiting.map((a) => a.issuer).join(', ')}`);
    }
    this.#install(authenticators);
  }

  close(): void {
    for (const a of this.#current) a.close();
    this.#current = [];
  }
}
