// core/v1 Endpoints stored as upstream's endpointsStrategy.Canonicalize leaves them
// (kubernetes pkg/api/endpoints/util.go, RepackSubsets): subsets regrouped by the addresses
// offering the same ports, addresses merged by IP and targetRef uid, not ready winning over
// ready, subsets without ports kept, the order upstream's md5 sorting gives; on create,
// update, patch, apply and dry runs, before validating admission sees the object.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

/** The md5 of a text, as upstream's DeepHashObject takes it of the spew dump. */
const md5 = (text: string) => createHash('md5').update(text).digest();

/** Orders `items` by the md5 of their texts, as upstream's portsByHash and subsetsByHash. */
function byDigest<T>(items: [T, string][]): T[] {
  return items.sort((a, b) => Buffer.compare(md5(a[1]), md5(b[1]))).map(([item]) => item);
}

describe('Endpoints are repacked as upstream stores them', () => {
  let server: TestServer;
  let ns: string;
  let seq = 0;

  before(async () => {
    server = await startServer();
    ns = await server.newNamespace('repack');
  });
  after(() => server?.stop());

  const path = (name = '') => `/api/v1/namespaces/${ns}/endpoints${name === '' ? '' : `/${name}`}`;
  const endpoints = (name: string, subsets: unknown[]) => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name }, subsets });

  /** Creates the Endpoints and answers the subsets of the answer, which a GET answers too. */
  async function created(subsets: unknown[]): Promise<unknown> {
    const name = `ep-${++seq}`;
    const res = await server.request('POST', path(), { body: endpoints(name, subsets) });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual((await server.request('GET', path(name))).json.subsets, res.json.subsets);
    return res.json.subsets;
  }

  const http = { name: 'http', port: 80, protocol: 'TCP' };

  test('two subsets with the same ports become one, its addresses sorted by IP', async () => {
    assert.deepEqual(await created([
      { addresses: [{ ip: '10.0.0.2' }], ports: [{ name: 'http', port: 80 }] },
      { addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'http', port: 80 }] },
    ]), [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [http] }]);
  });

  test('an address both ready and not ready for a port is not ready (upstream: "not ready always trumps ready")', async () => {
    assert.deepEqual(await created([
      { addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ name: 'http', port: 80 }] },
      { notReadyAddresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'http', port: 80 }] },
    ]), [{ addresses: [{ ip: '10.0.0.2' }], notReadyAddresses: [{ ip: '10.0.0.1' }], ports: [http] }]);
  });

  test('duplicate addresses merge by IP and targetRef uid: the first listed stays, one without targetRef sorts first', async () => {
    const pod = (uid: string) => ({ kind: 'Pod', namespace: ns, name: `p-${uid}`, uid });
    assert.deepEqual(await created([{
      addresses: [
        { ip: '10.0.0.1', targetRef: pod('b') },
        { ip: '10.0.0.1', hostname: 'first' },
        { ip: '10.0.0.1', hostname: 'second' },
        { ip: '10.0.0.1', targetRef: pod('a') },
        { ip: '10.0.0.1', hostname: 'third', targetRef: pod('b') },
      ],
      ports: [{ name: 'http', port: 80 }, { name: 'http', port: 80 }],
    }]), [{
      addresses: [{ ip: '10.0.0.1', hostname: 'first' }, { ip: '10.0.0.1', targetRef: pod('a') }, { ip: '10.0.0.1', targetRef: pod('b') }],
      ports: [http],
    }]);
  });

  test('a subset without ports is kept; its addresses join a subset that offers ports when they are the same', async () => {
    // (core.EndpointSubset){Addresses:([]core.EndpointAddress)[{IP:(string)10.0.0.1 Hostname:(string) NodeName:(*string)<nil>
    //   TargetRef:(*core.ObjectReference)<nil>}] NotReadyAddresses:([]core.EndpointAddress)<nil> Ports:([]core.EndpointPort)[{Name:(string)
    //   Port:(int32)80 Protocol:(core.Protocol)TCP AppProtocol:(*string)<nil>}]}                      md5 4f86d534…
    // the same with IP 10.0.0.3 and Ports:([]core.EndpointPort)<nil>                                    md5 f947cbd8…
    assert.deepEqual(await created([
      { addresses: [{ ip: '10.0.0.3' }] },
      { addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] },
    ]), [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80, protocol: 'TCP' }] }, { addresses: [{ ip: '10.0.0.3' }] }]);
    assert.deepEqual(await created([
      { addresses: [{ ip: '10.0.0.1' }] },
      { addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] },
    ]), [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80, protocol: 'TCP' }] }]);
    assert.deepEqual(await created([{ notReadyAddresses: [{ ip: '10.0.0.4' }, { ip: '10.0.0.3' }] }]), [{ notReadyAddresses: [{ ip: '10.0.0.3' }, { ip: '10.0.0.4' }] }]);
  });

  test('ports and subsets are ordered by the md5 of the spew dump of upstream\'s internal types', async () => {
    // The texts spew's "%#v" writes of k8s.io/kubernetes/pkg/apis/core values (DeepHashObject).
    const address = (ip: string) => `{IP:(string)${ip} Hostname:(string) NodeName:(*string)<nil> TargetRef:(*core.ObjectReference)<nil>}`;
    const portHttp = '{Name:(string)http Port:(int32)80 Protocol:(core.Protocol)TCP AppProtocol:(*string)<nil>}';
    const portHttps = '{Name:(string)https Port:(int32)443 Protocol:(core.Protocol)TCP AppProtocol:(*string)<nil>}';
    const port8080 = '{Name:(string) Port:(int32)8080 Protocol:(core.Protocol)TCP AppProtocol:(*string)<nil>}';
    const port8081 = '{Name:(string) Port:(int32)8081 Protocol:(core.Protocol)TCP AppProtocol:(*string)<nil>}';
    const subset = (ip: string, port: string) =>
      `(core.EndpointSubset){Addresses:([]core.EndpointAddress)[${address(ip)}] NotReadyAddresses:([]core.EndpointAddress)<nil> Ports:([]core.EndpointPort)[${port}]}`;

    // md5 76747a3a… (http) sorts after 6206a1cd… (https): not the order given, nor by name or number.
    const ports = byDigest([[{ name: 'http', port: 80, protocol: 'TCP' }, `(core.EndpointPort)${portHttp}`], [{ name: 'https', port: 443, protocol: 'TCP' }, `(core.EndpointPort)${portHttps}`]]);
    assert.deepEqual(ports.map((p) => p.name), ['https', 'http']);
    assert.deepEqual(await created([{ addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }] }]), [{ addresses: [{ ip: '10.0.0.1' }], ports }]);

    // md5 c8de112c… (10.0.0.1:8080) sorts after 45472e20… (10.0.0.2:8081).
    const subsets = byDigest([
      [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 8080, protocol: 'TCP' }] }, subset('10.0.0.1', port8080)],
      [{ addresses: [{ ip: '10.0.0.2' }], ports: [{ port: 8081, protocol: 'TCP' }] }, subset('10.0.0.2', port8081)],
    ]);
    assert.deepEqual(subsets.map((s) => s.addresses[0]!.ip), ['10.0.0.2', '10.0.0.1']);
    assert.deepEqual(await created([
      { addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 8080 }] },
      { addresses: [{ ip: '10.0.0.2' }], ports: [{ port: 8081 }] },
    ]), subsets);
  });

  test('ports with an appProtocol are never the same port (a Go pointer in the map key): no merging by them', async () => {
    const grpc = { name: 'grpc', port: 9000, protocol: 'TCP', appProtocol: 'grpc' };
    // Each subset's text ends `Ports:([]core.EndpointPort)[{Name:(string)grpc Port:(int32)9000 Protocol:(core.Protocol)TCP
    // AppProtocol:(*string)grpc}]}` (a set pointer: its type, then the value): md5 16e2e45a… for 10.0.0.2, 96887123… for 10.0.0.1.
    assert.deepEqual(await created([
      { addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'grpc', port: 9000, appProtocol: 'grpc' }] },
      { addresses: [{ ip: '10.0.0.2' }], ports: [{ name: 'grpc', port: 9000, appProtocol: 'grpc' }] },
    ]), [{ addresses: [{ ip: '10.0.0.2' }], ports: [grpc] }, { addresses: [{ ip: '10.0.0.1' }], ports: [grpc] }]);
  });

  test('a dry run answers the repacked form and stores nothing', async () => {
    const body = endpoints('dry', [
      { addresses: [{ ip: '10.0.0.2' }], ports: [{ name: 'http', port: 80 }] },
      { addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'http', port: 80 }] },
    ]);
    const res = await server.request('POST', `${path()}?dryRun=All`, { body });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.json.subsets, [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [http] }]);
    assert.equal((await server.request('GET', path('dry'))).status, 404);
  });

  test('PUT and PATCH repack; a PUT of the stored object in another packing changes nothing', async () => {
    const name = `ep-${++seq}`;
    const first = await server.request('POST', path(), { body: endpoints(name, [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'http', port: 80 }] }]) });
    assert.equal(first.status, 201, first.text);
    const spread = [
      { addresses: [{ ip: '10.0.0.3' }], ports: [{ name: 'http', port: 80 }] },
      { addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'http', port: 80 }] },
    ];
    const put = await server.request('PUT', path(name), { body: endpoints(name, spread) });
    assert.equal(put.status, 200, put.text);
    const repacked = [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.3' }], ports: [http] }];
    assert.deepEqual(put.json.subsets, repacked);

    const again = await server.request('PUT', path(name), { body: endpoints(name, spread) });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.metadata.resourceVersion, put.json.metadata.resourceVersion);

    const patch = await server.request('PATCH', path(name), {
      raw: JSON.stringify({ subsets: [...spread, { notReadyAddresses: [{ ip: '10.0.0.2' }], ports: [{ name: 'http', port: 80 }] }] }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(patch.status, 200, patch.text);
    assert.deepEqual(patch.json.subsets, [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.3' }], notReadyAddresses: [{ ip: '10.0.0.2' }], ports: [http] }]);
  });

  test('server-side apply stores the repacked form; the same configuration again writes nothing', async () => {
    const name = `ep-${++seq}`;
    const apply = () => server.request('PATCH', `${path(name)}?fieldManager=applier`, {
      raw: JSON.stringify(endpoints(name, [
        { addresses: [{ ip: '10.0.0.2' }], ports: [{ name: 'http', port: 80 }] },
        { addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'http', port: 80 }] },
      ])),
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    const first = await apply();
    assert.equal(first.status, 201, first.text);
    assert.deepEqual(first.json.subsets, [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [http] }]);
    assert.deepEqual(first.json.metadata.managedFields.map((m: { manager: string; operation: string }) => [m.manager, m.operation]), [['applier', 'Apply']]);
    const second = await apply();
    assert.equal(second.status, 200, second.text);
    assert.equal(second.json.metadata.resourceVersion, first.json.metadata.resourceVersion);
  });

  test('a ValidatingAdmissionPolicy sees the repacked subsets', async () => {
    const policies = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
    const bindings = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
    const policy = await server.request('POST', policies, {
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'one-subset' },
        spec: {
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['endpoints'] }] },
          validations: [{ expression: 'size(object.subsets) == 1', message: 'one subset' }],
        },
      },
    });
    assert.equal(policy.status, 201, policy.text);
    const binding = await server.request('POST', bindings, {
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'one-subset' },
        spec: { policyName: 'one-subset', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } } },
      },
    });
    assert.equal(binding.status, 201, binding.text);
    const twoSubsets = [
      { addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'http', port: 80 }] },
      { addresses: [{ ip: '10.0.0.2' }], ports: [{ name: 'https', port: 443 }] },
    ];
    await eventually(async () => {
      const res = await server.request('POST', path(), { body: endpoints(`vap-${++seq}`, twoSubsets) });
      assert.equal(res.status, 422, res.text);
    });
    const mergeable = [
      { addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'http', port: 80 }] },
      { addresses: [{ ip: '10.0.0.2' }], ports: [{ name: 'http', port: 80 }] },
    ];
    const res = await server.request('POST', path(), { body: endpoints(`vap-${++seq}`, mergeable) });
    assert.equal(res.status, 201, res.text);
    await server.request('DELETE', `${bindings}/one-subset`);
    await server.request('DELETE', `${policies}/one-subset`);
  });
});
