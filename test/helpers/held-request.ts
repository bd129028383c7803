// A request held in flight: a create whose body is sent only when `finish` is called.
import https from 'node:https';
import type { TestServer } from './server.ts';

export function heldCreate(server: TestServer, opts: { token?: string; name?: string } = {}): { answered: Promise<number>; finish(): void } {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: opts.name ?? 'held' } });
  let finish = () => {};
  const answered = new Promise<number>((resolve, reject) => {
    const req = https.request(new URL('/api/v1/namespaces/default/configmaps', server.url), {
      method: 'POST', ca: server.caPem, agent: false,
      headers: { authorization: `Bearer ${opts.token ?? server.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.write(body.slice(0, 10));
    finish = () => req.end(body.slice(10));
  });
  return { answered, finish: () => finish() };
}
