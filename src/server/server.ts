// The listener: HTTPS with HTTP/1.1 and HTTP/2, and the filter chain before endpoints.
import type http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { notFoundPath, unauthorized } from '../api/index.ts';
import type { Authenticator, Authorizer, UserInfo } from '../auth/index.ts';
import { forbiddenError } from '../auth/index.ts';
import type { ApiHandler } from '../endpoints/api-handler.ts';
import type { HttpRequest, HttpResponse } from '../endpoints/http.ts';
import { warningRecorder } from '../endpoints/warnings.ts';
import { runInRequestContext } from '../api/request-context.ts';
import { requestInfo } from '../endpoints/request-info.ts';
import { parseRequestTarget } from './request-target.ts';
import { releaseUnreadBody } from './unread-body.ts';

export interface ApiServerOptions {
  bindAddress: string;
  /** 0 picks a free port. */
  port: number;
  certPem: string;
  keyPem: string;
  authenticator: Authenticator;
  authorizer: Authorizer;
  handler: ApiHandler;
  log: (message: string) => void;
  /** Detail worth logging only when asked (`-v 4` and up): clients going away mid-request. */
  debug?: (message: string) => void;
  /** HTTP/2: how long the rest of a body the answer left unread may take to arrive before the stream is reset (5 s). */
  unreadBodyGraceMs?: number;
}

type Request = http2.Http2ServerRequest | http.IncomingMessage;
type Response = http2.Http2ServerResponse | http.ServerResponse;

/** Error codes of a connection or stream the client closed, reset or cancelled. */
const disconnectCodes = new Set([
  'ECONNRESET', 'EPIPE', 'ECANCELED', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED',
  'ERR_HTTP2_STREAM_ERROR', 'ERR_HTTP2_STREAM_CANCEL', 'ERR_HTTP2_INVALID_STREAM',
]);

function isDisconnectError(err: unknown): boolean {
  return err instanceof Error && 'code' in err && disconnectCodes.has(String(err.code));
}

/** Whether the request's connection (HTTP/1.1) or stream (HTTP/2) is closed. */
function connectionGone(req: Request): boolean {
  if ('stream' in req) return req.stream.destroyed || req.stream.closed;
  return req.destroyed || req.socket.destroyed;
}

/**
 * Paths anyone may read without credentials: exactly those of upstream's
 * system:public-info-viewer role. Named checks (`/readyz/etcd`) are not among them.
 */
const publicPaths = new Set(['/healthz', '/livez', '/readyz', '/version', '/version/']);

const anonymous: UserInfo = { name: 'system:anonymous', uid: '', groups: ['system:unauthenticated'] };

/**
 * The HTTPS listener (HTTP/1.1 and HTTP/2 through ALPN) and the filter chain:
 * panic recovery → authentication → authorization → handler.
 */
export class ApiServer {
  private readonly opts: ApiServerOptions;
  private readonly server: http2.Http2SecureServer;
  private readonly sockets = new Set<Socket>();
  private readonly sessions = new Set<http2.ServerHttp2Session>();
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];
  private stopping = false;

  constructor(opts: ApiServerOptions) {
    this.opts = opts;
    this.server = http2.createSecureServer({
      cert: opts.certPem,
      key: opts.keyPem,
      allowHTTP1: true,
      settings: { maxConcurrentStreams: 1000 },
    });
    this.server.on('request', (req, res) => {
      releaseUnreadBody(req, res, opts.unreadBodyGraceMs);
      this.noteDisconnect(req, res);
      void this.serve(req, res);
    });
    this.server.on('secureConnection', (socket: TLSSocket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    this.server.on('session', (session) => {
      this.sessions.add(session);
      session.once('close', () => this.sessions.delete(session));
    });
    // A TLS handshake that fails (a client not trusting our CA) is the client's business.
    this.server.on('tlsClientError', () => {});
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  async start(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.opts.port, this.opts.bindAddress, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return (this.server.address() as AddressInfo).port;
  }

  /** Stop accepting, end watches, let in-flight requests finish (up to a grace period), then close connections. */
  async close(graceMs = 10_000): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.opts.handler.stopLongRunning();
    for (const session of this.sessions) session.close();
    await Promise.race([this.idle(), new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async serve(req: Request, res: Response): Promise<void> {
    this.inFlight++;
    try {
      await this.filterChain(req as HttpRequest, res as unknown as HttpResponse);
    } catch (err) {
      // A client that went away mid-request is no server error, and there is no one to answer (noteDisconnect logs it).
      if (isDisconnectError(err) && connectionGone(req)) return;
      await this.opts.handler.writeError(req as HttpRequest, res as unknown as HttpResponse, err);
    } finally {
      this.inFlight--;
      if (this.inFlight === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  /** Logs, at debug level, a request whose client left before the whole answer was written. */
  private noteDisconnect(req: Request, res: Response): void {
    const debug = this.opts.debug;
    if (debug === undefined) return;
    const closed = (finished: boolean) => {
      if (!finished) debug(`client went away before the answer was complete: ${req.method} ${req.url}`);
    };
    // HTTP/2: a stream reset with an error code (CANCEL from a client giving up) or closed before the answer ended.
    if ('stream' in req) req.stream.once('close', () => closed(req.stream.rstCode === http2.constants.NGHTTP2_NO_ERROR && res.writableEnded));
    else (res as http.ServerResponse).once('close', () => closed((res as http.ServerResponse).writableFinished));
  }

  private async filterChain(req: HttpRequest, res: HttpResponse): Promise<void> {
    if (this.stopping) res.setHeader('Connection', 'close');
    const { path, query } = parseRequestTarget(req.url ?? '/');
    const user = this.authenticate(req, path);
    const info = requestInfo(req.method ?? 'GET', path, query);
    const attributes = info.isResourceRequest
      ? { verb: info.verb, group: info.group, resource: info.resource, subresource: info.subresource, namespace: info.namespace, name: info.name, path: info.path }
      : { verb: info.verb, group: '', resource: '', subresource: '', namespace: '', name: '', path: info.path };
    const decision = await this.opts.authorizer.authorize(user, attributes);
    if (decision.decision !== 'Allow') throw forbiddenError(user, attributes, decision.reason);
    // An empty path segment (`//x/api/...`, `/api/v1//pods`) matches no route upstream: 404, never served as the path without it.
    if (path.includes('//')) throw notFoundPath();
    // Admission and the Store learn the user, and add warnings, through the request context.
    const context = { user, addWarning: warningRecorder(res) };
    await runInRequestContext(context, () => this.opts.handler.handle(req, res, info, query));
  }

  /** A valid bearer token, or anonymous on public paths; anything else is 401. */
  private authenticate(req: HttpRequest, path: string): UserInfo {
    const header = req.headers.authorization;
    if (header !== undefined && header !== '') {
      const user = this.opts.authenticator(header);
      if (user === undefined) throw unauthorized();
      return user;
    }
    if (publicPaths.has(path)) return anonymous;
    throw unauthorized();
  }
}
