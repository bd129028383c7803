// Some 150,000 invalid items of one list in a body a client may send (under 3 MB): the
// write is refused with a cause per problem, in upstream's words, as for a short list. Each
// row once took seconds to minutes (duplicates searched for in the rest of the list, every
// cause compared with every other when the type's causes and the schema's were merged).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError, type KubeObject, type StatusCause } from '../../../src/api/index.ts';
import { builtinType, memoryStore } from '../../helpers/store.ts';

const many = 150_000;
const list = <T>(n: number, item: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => item(i));

interface Row {
  name: string;
  resource: string;
  obj: KubeObject;
  /** How many causes the 422 has. */
  count: number;
  /** Its first causes, exactly. */
  first: StatusCause[];
  /** Causes further on, exactly, by their index. */
  at?: Record<number, StatusCause>;
  messageStart: string;
}

const cause = (reason: string, field: string, message: string): StatusCause => ({ reason, message, field });
const portRange = 'must be between 1 and 65535, inclusive';
const validUsages = '"any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", '
  + '"digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", '
  + '"key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"';

const rows: Row[] = [
  {
    name: 'a Service with 150k ports of port 0',
    resource: 'services',
    obj: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { ports: list(many, () => ({ port: 0 })) } },
    count: 4 * many - 1,
    first: [
      cause('FieldValueRequired', 'spec.ports[0].name', 'Required value'),
      cause('FieldValueInvalid', 'spec.ports[0].port', `Invalid value: 0: ${portRange}`),
      cause('FieldValueInvalid', 'spec.ports[0].targetPort', `Invalid value: 0: ${portRange}`),
    ],
    at: {
      [4 * many - 2]: cause('FieldValueDuplicate', `spec.ports[${many - 1}]`,
        'Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":0,"TargetPort":0,"NodePort":0}'),
    },
    messageStart: 'Service "web" is invalid: [spec.ports[0].name: Required value, spec.ports[0].port: Invalid value: 0: must be between',
  },
  {
    name: 'a ValidatingWebhookConfiguration with 150k webhooks named x',
    resource: 'validatingwebhookconfigurations',
    obj: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'hooks' }, webhooks: list(many, () => ({ name: 'x' })) },
    count: 5 * many - 1,
    first: [
      cause('FieldValueInvalid', 'webhooks[0].name', 'Invalid value: "x": should be a domain with at least three segments separated by dots'),
      cause('FieldValueRequired', 'webhooks[0].sideEffects', 'Required value: must specify one of None, NoneOnDryRun'),
      cause('FieldValueRequired', 'webhooks[0].clientConfig', 'Required value: exactly one of url or service is required'),
      cause('FieldValueRequired', 'webhooks[0].admissionReviewVersions', 'Required value: must specify one of v1, v1beta1'),
    ],
    at: { [5 * many - 2]: cause('FieldValueDuplicate', `webhooks[${many - 1}].name`, 'Duplicate value: "x"') },
    messageStart: 'ValidatingWebhookConfiguration.admissionregistration.k8s.io "hooks" is invalid: [webhooks[0].name: Invalid value: "x"',
  },
  {
    name: 'a CertificateSigningRequest with 150k unsupported usages',
    resource: 'certificatesigningrequests',
    obj: {
      apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'csr' },
      spec: { request: '', signerName: 'example.com/signer', usages: list(many, (i) => (i % 2 === 0 ? 'bad' : 'worse')) },
    },
    count: 2 * many - 1,
    first: [
      cause('FieldValueInvalid', 'spec.request', 'Invalid value: "": PEM block type must be CERTIFICATE REQUEST'),
      cause('FieldValueNotSupported', 'spec.usages[0]', `Unsupported value: "bad": supported values: ${validUsages}`),
      cause('FieldValueNotSupported', 'spec.usages[1]', `Unsupported value: "worse": supported values: ${validUsages}`),
    ],
    at: {
      [many]: cause('FieldValueNotSupported', `spec.usages[${many - 1}]`, `Unsupported value: "worse": supported values: ${validUsages}`),
      [many + 1]: cause('FieldValueDuplicate', 'spec.usages[2]', 'Duplicate value: "bad"'),
    },
    messageStart: 'CertificateSigningRequest.certificates.k8s.io "csr" is invalid: [spec.request: Invalid value: "": PEM block type',
  },
  {
    name: 'a LimitRange with 150k limits of an unknown type',
    resource: 'limitranges',
    obj: { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'limits', namespace: 'default' }, spec: { limits: list(many, () => ({ type: 'a<b' })) } },
    count: 2 * many - 1,
    first: [
      cause('FieldValueInvalid', 'spec.limits[0].type', String.raw`Invalid value: "a\u003cb": name part must consist of alphanumeric characters, '-', '_' or '.', `
        + "and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
      cause('FieldValueInvalid', 'spec.limits[1].type', String.raw`Invalid value: "a\u003cb": name part must consist of alphanumeric characters, '-', '_' or '.', `
        + "and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
      cause('FieldValueDuplicate', 'spec.limits[1].type', String.raw`Duplicate value: "a\u003cb"`),
    ],
    messageStart: String.raw`LimitRange "limits" is invalid: [spec.limits[0].type: Invalid value: "a\u003cb": name part must consist`,
  },
  {
    name: 'a Pod with 150k topology spread constraints, all of one kind',
    resource: 'pods',
    obj: {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'spread', namespace: 'default' },
      spec: { containers: [{ name: 'app', image: 'nginx' }], topologySpreadConstraints: list(many, () => ({ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' })) },
    },
    count: many - 1,
    first: [cause('FieldValueDuplicate', 'spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}', 'Duplicate value: "{zone, DoNotSchedule}"')],
    at: { [many - 2]: cause('FieldValueDuplicate', `spec.topologySpreadConstraints[${many - 2}].{topologyKey, whenUnsatisfiable}`, 'Duplicate value: "{zone, DoNotSchedule}"') },
    messageStart: 'Pod "spread" is invalid: [spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value',
  },
  {
    // The type forbids each second source; the schema's required path of each hostPath is
    // under a forbidden field, so it goes unsaid.
    name: 'a Pod with 60k volumes of two sources each',
    resource: 'pods',
    obj: {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'volumes', namespace: 'default' },
      spec: { containers: [{ name: 'app', image: 'nginx' }], volumes: list(60_000, (i) => ({ name: `v${i}`, hostPath: {}, emptyDir: {} })) },
    },
    count: 60_000,
    first: [cause('FieldValueForbidden', 'spec.volumes[0].hostPath', 'Forbidden: may not specify more than 1 volume type')],
    at: { 59_999: cause('FieldValueForbidden', 'spec.volumes[59999].hostPath', 'Forbidden: may not specify more than 1 volume type') },
    messageStart: 'Pod "volumes" is invalid: [spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type, spec.volumes[1].hostPath',
  },
];

for (const row of rows) {
  test(`${row.name} is refused with a cause per problem`, async () => {
    const { store } = memoryStore(builtinType(row.resource));
    const err = await store.create(row.obj.metadata.namespace ?? '', row.obj).then(() => undefined, (e: unknown) => e);
    assert.ok(isStatusError(err), String(err));
    assert.equal(err.code, 422);
    assert.ok(err.message.startsWith(row.messageStart), err.message.slice(0, 300));
    const causes = err.details?.causes ?? [];
    assert.equal(causes.length, row.count);
    assert.deepEqual(causes.slice(0, row.first.length), row.first);
    for (const [i, expected] of Object.entries(row.at ?? {})) assert.deepEqual(causes[Number(i)], expected, `cause ${i}`);
  });
}
