// A real HTTPS admission webhook server on 127.0.0.1 for end-to-end tests: its own CA
// and serving certificate, and per-path handlers that answer AdmissionReviews.
import { rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { ensureServingMaterial } from '../../src/server/tls-material.ts';
import { tempDir } from './server.ts';

export interface ReviewRequest {
  path: string;
  /** The query string, such as "timeout=10s". */
  query: string;
  review: any;
}

/** What a handler answers: a `response` (uid and apiVersion are filled in), or a whole raw body and status. */
export type WebhookAnswer =
  | { response: Record<string, unknown> }
  | { raw: string; status?: number };

export type WebhookHandler = (review: any) => WebhookAnswer | Promise<WebhookAnswer>;

export interface WebhookServer {
  url: string;
  port: number;
  /** Base64 PEM of the CA that issued the serving certificate, for clientConfig.caBundle. */
  caBundle: string;
  /** Every review received, in order. */
  requests: ReviewRequest[];
  /** Handles `path`; unknown paths allow everything. */
  handle(path: string, handler: WebhookHandler): void;
  /** Reviews received on `path`. */
  received(path: string): ReviewRequest[];
  close(): Promise<void>;
}

export function allow(extra: Record<string, unknown> = {}): WebhookAnswer {
  return { response: { allowed: true, ...extra } };
}

export function deny(message: string, code = 403, extra: Record<string, unknown> = {}): WebhookAnswer {
  return { response: { allowed: false, status: { code, message, ...extra } } };
}

/** A mutating answer carrying JSON Patch operations. */
export function patch(ops: unknown[], extra: Record<string, unknown> = {}): WebhookAnswer {
  return { response: { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64'), ...extra } };
}

/** `hosts`: names the serving certificate carries beyond localhost (a service's `name.namespace.svc`). */
export async function startWebhookServer(opts: { hosts?: string[] } = {}): Promise<WebhookServer> {
  const dir = tempDir('plinth-webhook-');
  const material = await ensureServingMaterial(dir, { hosts: opts.hosts ?? [] });
  const handlers = new Map<string, WebhookHandler>();
  const requests: ReviewRequest[] = [];
  const sockets = new Set<{ destroy(): void }>();
  const server = https.createServer({ cert: material.certPem, key: material.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'https://webhook.invalid');
      let review: any;
      try {
        review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end('not JSON');
        return;
      }
      requests.push({ path: url.pathname, query: url.search.slice(1), review });
      const handler = handlers.get(url.pathname) ?? (() => allow());
      const answer = await handler(review);
      if (res.destroyed) return;
      if ('raw' in answer) {
        res.writeHead(answer.status ?? 200, { 'Content-Type': 'application/json' }).end(answer.raw);
        return;
      }
      const body = { apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request?.uid, ...answer.response } };
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    caBundle: Buffer.from(material.caPem).toString('base64'),
    requests,
    handle: (path, handler) => void handlers.set(path, handler),
    received: (path) => requests.filter((r) => r.path === path),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
