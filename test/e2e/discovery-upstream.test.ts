// Plinth's discovery beside kube-apiserver's (v1.36.2, ../shared/upstream/discovery): every
// resource and subresource upstream serves by default is served, or listed in the README
// under "Not served yet" (a listed resource with its subresources); nothing is served that
// upstream does not serve, and nothing the README lists as not served is served.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { promisify } from 'node:util';
import path from 'node:path';
import { repoRoot, startServer, type TestServer } from '../helpers/server.ts';

// The data lives beside the repository, not in it; PLINTH_UPSTREAM may point elsewhere.
const upstreamDir = path.join(process.env.PLINTH_UPSTREAM ?? path.resolve(repoRoot, '../shared/upstream'), 'discovery');
const missingData = existsSync(upstreamDir) ? false : `upstream's discovery documents are not at ${upstreamDir}`;

const aggregated = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

interface DiscoveryList {
  items: {
    metadata: { name?: string };
    versions: { version: string; resources: { resource: string; subresources?: { subresource: string }[] }[] }[];
  }[];
}

/** `group/version/resource` and `group/version/resource/subresource` (core group: empty). */
function entries(list: DiscoveryList): Set<string> {
  const out = new Set<string>();
  for (const group of list.items) {
    for (const version of group.versions) {
      for (const resource of version.resources) {
        const key = `${group.metadata.name ?? ''}/${version.version}/${resource.resource}`;
        out.add(key);
        for (const sub of resource.subresources ?? []) out.add(`${key}/${sub.subresource}`);
      }
    }
  }
  return out;
}

/** The README's "Not served yet" list: lines "- `group/version`: `resource`, `resource/sub`". */
function notServedInReadme(readme: string): Set<string> {
  const section = /### Not served yet\n([\s\S]*?)(\n#|$)/.exec(readme)?.[1] ?? '';
  const out = new Set<string>();
  for (const line of section.split('\n')) {
    const match = /^- `([^`]+)`: (.*)$/.exec(line);
    if (match === null) continue;
    const groupVersion = match[1]!;
    const prefix = groupVersion.includes('/') ? groupVersion : `/${groupVersion}`;
    for (const name of match[2]!.matchAll(/`([^`]+)`/g)) out.add(`${prefix}/${name[1]}`);
  }
  return out;
}

test('the README list is read as group/version/resource', () => {
  const readme = '### Not served yet\n\nintro\n\n- `v1`: `bindings`, `pods/log`\n- `apps/v1`: `replicasets`\n\n## Next\n- `v1`: `x`\n';
  assert.deepEqual([...notServedInReadme(readme)], ['/v1/bindings', '/v1/pods/log', 'apps/v1/replicasets']);
});

let server: TestServer;
before(async () => {
  if (missingData === false) server = await startServer();
});
after(async () => {
  await server?.stop();
});

test('every upstream resource is served or listed in the README as not served', { skip: missingData }, async () => {
  const upstream = new Set<string>();
  for (const file of ['aggregated-api.json', 'aggregated-apis.json']) {
    for (const entry of entries(JSON.parse(readFileSync(path.join(upstreamDir, file), 'utf8')) as DiscoveryList)) upstream.add(entry);
  }
  const served = new Set<string>();
  for (const urlPath of ['/api', '/apis']) {
    const res = await server.request('GET', urlPath, { headers: { accept: aggregated } });
    assert.equal(res.status, 200, res.text);
    for (const entry of entries(res.json as DiscoveryList)) served.add(entry);
  }
  const listed = notServedInReadme(readFileSync(path.join(repoRoot, 'README.md'), 'utf8'));

  // A resource not served takes its subresources with it.
  const resourceOf = (entry: string) => entry.split('/').slice(0, 3).join('/');
  const unaccounted = [...upstream].filter((e) => !served.has(e) && !listed.has(e) && !listed.has(resourceOf(e)));
  assert.deepEqual(unaccounted, [], 'served by upstream, neither served by Plinth nor listed in the README');
  const listedButServed = [...listed].filter((e) => served.has(e));
  assert.deepEqual(listedButServed, [], 'listed in the README as not served, but served: take them off the list');
  const listedButUnknown = [...listed].filter((e) => !upstream.has(e));
  assert.deepEqual(listedButUnknown, [], 'listed in the README, but upstream does not serve them');
  const invented = [...served].filter((e) => !upstream.has(e));
  assert.deepEqual(invented, [], 'served by Plinth but not by upstream');
});

/** `kubectl api-resources -o wide` rows as `apiVersion/name` → the row's columns joined by one space. */
function apiResourceRows(text: string): Map<string, string> {
  const [header, ...lines] = text.trimEnd().split('\n');
  const starts = [...header!.matchAll(/\S+/g)].map((m) => m.index);
  const rows = new Map<string, string>();
  for (const line of lines) {
    const cells = starts.map((start, i) => line.slice(start, starts[i + 1]).trim());
    const [name, , apiVersion] = cells;
    rows.set(`${apiVersion}/${name}`, cells.join(' '));
  }
  return rows;
}

const kubectl = '/usr/bin/kubectl';
test('kubectl api-resources shows upstream\'s rows, but for the resources the README lists as not served', { skip: missingData || (existsSync(kubectl) ? false : `kubectl is not installed at ${kubectl}`) }, async () => {
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'kubectl-cache-'));
  try {
    const { stdout } = await promisify(execFile)(kubectl, ['--kubeconfig', server.kubeconfigPath, '--cache-dir', cacheDir, 'api-resources', '-o', 'wide'], { timeout: 30_000 });
    const ours = apiResourceRows(stdout);
    const upstream = apiResourceRows(readFileSync(path.join(upstreamDir, 'api-resources.txt'), 'utf8'));
    const listed = notServedInReadme(readFileSync(path.join(repoRoot, 'README.md'), 'utf8'));
    // README entries are group/version/resource with an empty group for core; rows name the apiVersion.
    const notServed = new Set([...listed].map((e) => e.replace(/^\//, '')));
    for (const [key, row] of upstream) {
      if (notServed.has(key)) assert.equal(ours.get(key), undefined, `${key} is listed as not served`);
      else assert.equal(ours.get(key), row, key);
    }
    assert.deepEqual([...ours.keys()].filter((key) => !upstream.has(key)), [], 'rows upstream does not show');
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
});

/** Each resource's and subresource's responseKind and verbs, by `group/version/resource[/subresource]`. */
function subresourceDetails(list: DiscoveryList): Map<string, string> {
  const out = new Map<string, string>();
  for (const group of list.items) {
    for (const version of group.versions) {
      for (const resource of version.resources as { resource: string; responseKind?: unknown; verbs?: string[]; subresources?: { subresource: string; responseKind?: unknown; verbs?: string[] }[] }[]) {
        out.set(`${group.metadata.name ?? ''}/${version.version}/${resource.resource}`, JSON.stringify([resource.responseKind, [...(resource.verbs ?? [])].sort()]));
        for (const sub of resource.subresources ?? []) {
          out.set(`${group.metadata.name ?? ''}/${version.version}/${resource.resource}/${sub.subresource}`, JSON.stringify([sub.responseKind, [...(sub.verbs ?? [])].sort()]));
        }
      }
    }
  }
  return out;
}

test('every served resource and subresource has upstream\'s kind and verbs in aggregated discovery', { skip: missingData }, async () => {
  const upstream = new Map<string, string>();
  for (const file of ['aggregated-api.json', 'aggregated-apis.json']) {
    for (const [key, value] of subresourceDetails(JSON.parse(readFileSync(path.join(upstreamDir, file), 'utf8')) as DiscoveryList)) upstream.set(key, value);
  }
  let compared = 0;
  for (const urlPath of ['/api', '/apis']) {
    const res = await server.request('GET', urlPath, { headers: { accept: aggregated } });
    for (const [key, value] of subresourceDetails(res.json as DiscoveryList)) {
      if (!upstream.has(key)) continue;
      compared++;
      assert.equal(value, upstream.get(key), key);
    }
  }
  assert.ok(compared > 100, `${compared} resources and subresources compared`);
});
