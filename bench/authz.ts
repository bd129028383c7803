// Authorization's cost on the request path (issue 13), `BENCH_ONLY=authz`: a server process
// on SQLite with a token file of an admin (system:masters) and a limited user; as the admin,
// 200 ClusterRoles and 1,000 RoleBindings across 50 namespaces (naming other users, groups
// and service accounts, 20 of them in the namespace read) are created first; then gets of one
// ConfigMap by the limited user, whom one RoleBinding allows, with `--authorization-mode
// RBAC` beside `--authorization-mode AlwaysAllow` (and, with RBAC, gets it is refused: 403).
// A server that refuses RBAC mode at start is reported as "RBAC not available".
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startServerProcess, tempDir, type ServerProcess } from '../test/helpers/server.ts';
import { benchClient, load, type BenchClient } from './client.ts';

const GETS = Number(process.env.BENCH_AUTHZ_GETS ?? 20_000);
const BINDINGS = 1000;
const CLUSTER_ROLES = 200;
const NAMESPACES = 50;
const CONCURRENCY = 32;
const target = 'authz-target';

const adminToken = 'bench-admin-token';
const limitedToken = 'bench-limited-token';

async function must(c: BenchClient, method: string, urlPath: string, body: unknown, want = 201): Promise<void> {
  const res = await c.request(method, urlPath, body);
  if (res.status !== want) throw new Error(`${method} ${urlPath}: ${res.status} ${res.body}`);
}

/** Runs `work` over `items` with CONCURRENCY in flight. */
async function each<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

const resources = ['pods', 'services', 'secrets', 'deployments', 'jobs', 'events', 'leases', 'endpoints'];

/** The policy: ClusterRoles, namespaces, RoleBindings naming other subjects, and the one binding of the limited user. */
async function fill(admin: BenchClient): Promise<void> {
  const namespaces = [target, ...Array.from({ length: NAMESPACES - 1 }, (_, i) => `authz-${i}`)];
  await each(namespaces, (name) => must(admin, 'POST', '/api/v1/namespaces', { metadata: { name } }));
  await each(Array.from({ length: CLUSTER_ROLES }, (_, i) => i), (i) => must(admin, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    metadata: { name: `bench-role-${i}` },
    rules: [
      { apiGroups: [''], resources: [resources[i % resources.length]!, resources[(i + 3) % resources.length]!], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['apps', 'batch'], resources: ['*'], verbs: ['get'], resourceNames: [`name-${i}`] },
    ],
  }));
  await must(admin, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${target}/roles`, {
    metadata: { name: 'configmap-reader' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
  });
  // The limited user's one binding is made last of the target namespace's, so a linear scan pays for the others.
  await each(Array.from({ length: BINDINGS - 1 }, (_, i) => i), (i) => {
    const kind = i % 3;
    const subject = kind === 0 ? { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: `user-${i}` }
      : kind === 1 ? { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: `group-${i % 97}` }
        : { kind: 'ServiceAccount', name: `sa-${i}`, namespace: `authz-${i % (NAMESPACES - 1)}` };
    const namespace = i < 20 ? target : `authz-${i % (NAMESPACES - 1)}`;
    return must(admin, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/rolebindings`, {
      metadata: { name: `binding-${i}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `bench-role-${i % CLUSTER_ROLES}` },
      subjects: [subject],
    });
  });
  await must(admin, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${target}/rolebindings`, {
    metadata: { name: 'limited-reads-configmaps' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-reader' },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'limited' }],
  });
  await must(admin, 'POST', `/api/v1/namespaces/${target}/configmaps`, { metadata: { name: 'read-me' }, data: { key: 'value' } });
}

/** Until the limited user's get answers 200 (the authorizer's informers have seen the policy), at most 30 s. */
async function awaitAllowed(limited: BenchClient): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await limited.request('GET', `/api/v1/namespaces/${target}/configmaps/read-me`);
    if (res.status === 200) return;
    if (Date.now() > deadline) throw new Error(`the limited user is still refused: ${res.status} ${res.body}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

async function benchMode(mode: 'AlwaysAllow' | 'RBAC'): Promise<string[]> {
  const dataDir = tempDir(`plinth-bench-authz-`);
  const tokenFile = path.join(dataDir, 'bench-tokens.csv');
  writeFileSync(tokenFile, `${adminToken},admin,admin,"system:masters"\n${limitedToken},limited,limited-uid,"team-a"\n`, { mode: 0o600 });
  let server: ServerProcess;
  try {
    server = await startServerProcess(['--token-auth-file', tokenFile, '--authorization-mode', mode], { dataDir });
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    if (mode !== 'RBAC') throw err;
    // The last line the server wrote says why.
    const why = (err instanceof Error ? err.message : String(err)).trim().split('\n').at(-1);
    return [`  ${mode.padEnd(12)} RBAC not available (the server refused to start: ${why})`];
  }
  const admin = benchClient(server, CONCURRENCY, adminToken);
  const limited = benchClient(server, CONCURRENCY, limitedToken);
  try {
    const fillStarted = performance.now();
    await fill(admin);
    const fillMs = performance.now() - fillStarted;
    await awaitAllowed(limited);
    const allowed = await load(GETS, CONCURRENCY, async () => {
      const res = await limited.request('GET', `/api/v1/namespaces/${target}/configmaps/read-me`);
      if (res.status !== 200) throw new Error(`get: ${res.status} ${res.body}`);
    });
    const lines = [`  ${mode.padEnd(12)} get ${allowed.opsPerSecond} /s   p50 ${fmt(allowed.p50)}   p99 ${fmt(allowed.p99)}   (policy created in ${(fillMs / 1000).toFixed(1)} s)`];
    if (mode === 'RBAC') {
      const refused = await load(GETS / 4, CONCURRENCY, async () => {
        const res = await limited.request('GET', '/api/v1/namespaces/authz-1/configmaps/read-me');
        if (res.status !== 403) throw new Error(`refused get: ${res.status} ${res.body}`);
      });
      lines.push(`  ${''.padEnd(12)} 403 ${refused.opsPerSecond} /s   p50 ${fmt(refused.p50)}   p99 ${fmt(refused.p99)}   (a get in a namespace where no binding allows it)`);
    }
    return lines;
  } finally {
    admin.close();
    limited.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function authzBench(): Promise<string[]> {
  return [
    `authorization: gets of one ConfigMap by a user one RoleBinding allows, among ${BINDINGS} RoleBindings and ${CLUSTER_ROLES} ClusterRoles in ${NAMESPACES} namespaces; ${GETS} gets, ${CONCURRENCY} concurrent clients, SQLite`,
    ...await benchMode('AlwaysAllow'),
    ...await benchMode('RBAC'),
  ];
}
