// CertificateSigningRequests against kube-apiserver v1.36's rules, case by case: the
// request's signature check (pkg/apis/certificates/validation), names, the requester
// recorded on create, what /status and /approval may change
// (pkg/registry/certificates/certificates/strategy.go), the certificate's PEM rules, and
// the signer checks of the certificate admission plugins through a server with RBAC.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { KubeObject } from '../../../src/api/index.ts';
import { runInRequestContext } from '../../../src/api/request-context.ts';
import { certificateApproval } from '../../../src/admission/certificates.ts';
import { csrSubject } from '../../../src/admission/csr-subject.ts';
import { certificateSigningRequestsType, validateCertificateSigningRequest } from '../../../src/registry/builtin/certificatesigningrequests.ts';
import { startServer, tempDir, type TestServer } from '../../helpers/server.ts';

// A small DER writer: enough to build PKCS #10 requests signed (or mis-signed) as a case needs.
function der(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const n = body.length;
  const length = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, body]);
}
const seq = (...parts: Buffer[]) => der(0x30, ...parts);
function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number) as [number, number, ...number[]];
  const bytes = [a * 40 + b];
  for (const arc of rest) {
    const groups = [arc & 0x7f];
    for (let v = arc >>> 7; v > 0; v >>>= 7) groups.unshift((v & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return der(0x06, Buffer.from(bytes));
}
const utf8 = (s: string) => der(0x0c, Buffer.from(s));
const nullParams = Buffer.from([0x05, 0x00]);

const algorithms = {
  sha256WithRSA: seq(oid('1.2.840.113549.1.1.11'), nullParams),
  sha384WithRSA: seq(oid('1.2.840.113549.1.1.12'), nullParams),
  md5WithRSA: seq(oid('1.2.840.113549.1.1.4'), nullParams),
  ecdsaWithSHA256: seq(oid('1.2.840.10045.4.3.2')),
  ed25519: seq(oid('1.3.101.112')),
  dsaWithSHA256: seq(oid('2.16.840.1.101.3.4.3.2')),
  unknown: seq(oid('1.2.3.4')),
};

interface RequestOptions {
  /** The key pair whose public half the request carries. */
  keys: { publicKey: KeyObject; privateKey: KeyObject };
  /** The AlgorithmIdentifier written; the signature is made with `hash` regardless. */
  algorithm: Buffer;
  hash?: string | null;
  /** Subject attributes: [OID, value]. */
  subject?: [string, string][];
  /** Flip a bit of the signature. */
  tamper?: boolean;
}

/** A PEM CERTIFICATE REQUEST, base64 as the API carries it. */
function request(opts: RequestOptions): string {
  const subject = seq(...(opts.subject ?? [['2.5.4.3', 'alice']]).map(([type, value]) => der(0x31, seq(oid(type), utf8(value)))));
  const info = seq(der(0x02, Buffer.from([0])), subject, opts.keys.publicKey.export({ type: 'spki', format: 'der' }), der(0xa0));
  const signature = sign(opts.hash === undefined ? 'sha256' : opts.hash, info, opts.keys.privateKey);
  if (opts.tamper) signature[signature.length - 1]! ^= 1;
  const body = seq(info, opts.algorithm, der(0x03, Buffer.from([0]), signature)).toString('base64').replace(/.{64}/g, '$&\n');
  return Buffer.from(`-----BEGIN CERTIFICATE REQUEST-----\n${body}\n-----END CERTIFICATE REQUEST-----\n`).toString('base64');
}

const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const goodRequest = request({ keys: ec, algorithm: algorithms.ecdsaWithSHA256 });

/** The messages of a create's causes, the request's value elided. */
function createMessages(spec: Record<string, unknown>): string[] {
  const csr = { metadata: { name: 'x' }, spec: { signerName: 'example.com/signer', usages: ['client auth'], ...spec } } as unknown as KubeObject;
  return validateCertificateSigningRequest(csr).map((c) => `${c.field}: ${(c.message ?? '').replace(/"[A-Za-z0-9+/=]{40,}"/, '<request>')}`);
}

describe('the request must be signed by its own key (upstream CheckSignature)', () => {
  const cases: [string, () => string, string[]][] = [
    ['an ECDSA P-256 request', () => goodRequest, []],
    ['an RSA request', () => request({ keys: rsa, algorithm: algorithms.sha256WithRSA }), []],
    ['an Ed25519 request', () => request({ keys: generateKeyPairSync('ed25519'), algorithm: algorithms.ed25519, hash: null }), []],
    ['a SHA-1 signature is still accepted for requests', () => request({ keys: rsa, algorithm: seq(oid('1.2.840.113549.1.1.5'), nullParams), hash: 'sha1' }), []],
    ['a tampered ECDSA signature', () => request({ keys: ec, algorithm: algorithms.ecdsaWithSHA256, tamper: true }), [
      'spec.request: Invalid value: <request>: x509: ECDSA verification failure',
    ]],
    ['an RSA signature over another hash than the one named', () => request({ keys: rsa, algorithm: algorithms.sha384WithRSA }), [
      'spec.request: Invalid value: <request>: crypto/rsa: verification error',
    ]],
    ['a tampered Ed25519 signature', () => request({ keys: generateKeyPairSync('ed25519'), algorithm: algorithms.ed25519, hash: null, tamper: true }), [
      'spec.request: Invalid value: <request>: x509: Ed25519 verification failure',
    ]],
    ['an MD5 signature is insecure', () => request({ keys: rsa, algorithm: algorithms.md5WithRSA }), [
      'spec.request: Invalid value: <request>: x509: cannot verify signature: insecure algorithm MD5-RSA',
    ]],
    ['an ECDSA algorithm over an RSA key', () => request({ keys: rsa, algorithm: algorithms.ecdsaWithSHA256 }), [
      'spec.request: Invalid value: <request>: x509: signature algorithm specifies an ECDSA public key, but have public key of type *rsa.PublicKey',
    ]],
    ['an unknown signature algorithm', () => request({ keys: ec, algorithm: algorithms.unknown }), [
      'spec.request: Invalid value: <request>: x509: cannot verify signature: algorithm unimplemented',
    ]],
    ['a DSA key cannot be verified', () => request({ keys: generateKeyPairSync('dsa', { modulusLength: 1024, divisorLength: 160 }), algorithm: algorithms.dsaWithSHA256 }), [
      'spec.request: Invalid value: <request>: x509: cannot verify signature: algorithm unimplemented',
    ]],
    ['a curve Go does not read', () => request({ keys: generateKeyPairSync('ec', { namedCurve: 'secp256k1' }), algorithm: algorithms.ecdsaWithSHA256 }), [
      'spec.request: Invalid value: <request>: x509: unsupported elliptic curve',
    ]],
    ['an RSA key under 1024 bits', () => request({ keys: generateKeyPairSync('rsa', { modulusLength: 512 }), algorithm: algorithms.sha256WithRSA }), [
      'spec.request: Invalid value: <request>: crypto/rsa: 512-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)',
    ]],
    ['a PEM block of another type', () => Buffer.from('-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n').toString('base64'), [
      'spec.request: Invalid value: <request>: PEM block type must be CERTIFICATE REQUEST',
    ]],
    ['a request that is not PKCS #10', () => Buffer.from('-----BEGIN CERTIFICATE REQUEST-----\nMAA=\n-----END CERTIFICATE REQUEST-----\n').toString('base64'), [
      'spec.request: Invalid value: <request>: x509: malformed certificate request',
    ]],
  ];
  for (const [name, make, expected] of cases) {
    test(name, () => assert.deepEqual(createMessages({ request: make() }), expected));
  }

  test('2.7 MB of BEGIN lines without their END is refused in linear time', () => {
    const started = performance.now();
    const junk = Buffer.from(`${'-----BEGIN A-----\n'.repeat(150_000)}-----END B-----\n`).toString('base64');
    assert.deepEqual(createMessages({ request: junk }), ['spec.request: Invalid value: <request>: PEM block type must be CERTIFICATE REQUEST']);
    assert.ok(performance.now() - started < 5000, `took ${performance.now() - started} ms`);
  });
});

describe('signer names (upstream ValidateSignerName)', () => {
  const subdomainRule = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  const cases: [string, string, string[]][] = [
    ['the path is checked as DNS subdomains', 'example.com/Signer', [`spec.signerName: Invalid value: "Signer": validating label "Signer": ${subdomainRule}`]],
    ['a path part may be as long as a resource name', `example.com/${'a'.repeat(200)}`, []],
    ['571 characters at most in all', `example.com/${'a'.repeat(253)}.${'b'.repeat(253)}.${'c'.repeat(100)}`, ['spec.signerName: Too long: may not be more than 571 bytes']],
  ];
  for (const [name, signerName, expected] of cases) {
    test(name, () => assert.deepEqual(createMessages({ request: goodRequest, signerName }), expected));
  }
});

describe('status.certificate PEM rules (upstream validateCertificate)', () => {
  const certificate = (text: string) => Buffer.from(text).toString('base64');
  // An approved request with `certificate` set through /status.
  function statusErrors(value: string): string[] {
    const csrs = certificateSigningRequestsType();
    const old = { metadata: { name: 'c' }, spec: { request: goodRequest, signerName: 'example.com/signer', usages: ['client auth'] }, status: {} } as unknown as KubeObject;
    const next = { ...structuredClone(old), status: { certificate: value } } as KubeObject;
    const status = csrs.strategy.subresources!.status!;
    status.prepareForUpdate!(next, old);
    return status.validateUpdate!(next, old).map((c) => `${c.field}: ${c.message}`);
  }
  const cases: [string, string, string[]][] = [
    ['PEM headers are refused', certificate('-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n\nMAA=\n-----END CERTIFICATE-----\n'), [
      'status.certificate: Invalid value: "<certificate data>": no PEM block headers are permitted',
    ]],
    ['an empty CERTIFICATE block holds no certificate', certificate('-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n'), [
      'status.certificate: Invalid value: "<certificate data>": found CERTIFICATE PEM block containing 0 certificates',
    ]],
    ['a block that is not a certificate', certificate('-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n'), [
      'status.certificate: Invalid value: "<certificate data>": x509: malformed certificate',
    ]],
    ['another block type', certificate('-----BEGIN PRIVATE KEY-----\nMAA=\n-----END PRIVATE KEY-----\n'), [
      'status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "PRIVATE KEY"',
    ]],
    ['text without PEM', certificate('hello'), [
      'status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block',
    ]],
  ];
  for (const [name, value, expected] of cases) test(name, () => assert.deepEqual(statusErrors(value), expected));
});

describe('update rules the stored object relaxes (upstream getValidationOptions)', () => {
  const csrs = certificateSigningRequestsType();
  const spec = { request: goodRequest, signerName: 'example.com/signer', usages: ['client auth'] };
  test('conditions the stored object already repeats are tolerated on approval', () => {
    const conditions = [{ type: 'Failed', status: 'True', lastUpdateTime: '2025-01-01T00:00:00Z', lastTransitionTime: '2025-01-01T00:00:00Z' }];
    const old = { metadata: { name: 'c' }, spec, status: { conditions: [...conditions, ...conditions] } } as unknown as KubeObject;
    const next = { metadata: { name: 'c' }, spec, status: { conditions: [...conditions, ...conditions, { type: 'Approved', status: 'True' }] } } as unknown as KubeObject;
    const approval = csrs.strategy.subresources!.approval!;
    approval.prepareForUpdate!(next, old);
    assert.deepEqual(approval.validateUpdate!(next, old), []);
  });
  test('a metadata update is validated once, not by both validate and validateUpdate', () => {
    const old = { metadata: { name: 'c' }, spec: { ...spec, usages: [] }, status: {} } as unknown as KubeObject;
    const next = structuredClone(old);
    csrs.strategy.prepareForUpdate!(next, old);
    const causes = [...(csrs.strategy.validate?.(next, old) ?? []), ...(csrs.strategy.validateUpdate?.(next, old) ?? [])];
    assert.deepEqual(causes.map((c) => `${c.field}: ${c.message}`), ['spec.usages: Required value']);
  });
});

test('the admission plugins read the subject from the first PEM block, in linear time', () => {
  const started = performance.now();
  assert.deepEqual(csrSubject('-----BEGIN CERTIFICATE REQUEST-----\n'.repeat(80_000)), { error: 'PEM block type must be CERTIFICATE REQUEST' });
  assert.ok(performance.now() - started < 5000, `took ${performance.now() - started} ms`);
  const pem = Buffer.from(goodRequest, 'base64').toString('latin1');
  assert.deepEqual(csrSubject(pem), { commonName: 'alice', organizations: [] });
  // Go's ParseCSR takes the first block only: a request after another block is not read.
  assert.deepEqual(csrSubject(`-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n${pem}`), { error: 'PEM block type must be CERTIFICATE REQUEST' });
});

test('CertificateApproval asks about the stored signer and quotes it as Go does', async () => {
  const asked: string[] = [];
  const plugin = certificateApproval(async (_user, verb, signer) => {
    asked.push(`${verb} ${signer}`);
    return false;
  });
  const csr = (signerName: string) => ({ apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'r' }, spec: { signerName } }) as unknown as KubeObject;
  const attrs = {
    operation: 'UPDATE', group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', subresource: 'approval', kind: 'CertificateSigningRequest',
    namespace: '', name: 'r', object: csr('example.com/body'), oldObject: csr('other.io/x\x7f'), dryRun: false, namespaced: false,
  } as const;
  const user = { name: 'alice', uid: '', groups: [] };
  await assert.rejects(runInRequestContext({ user, addWarning: () => {} }, async () => plugin.validate!(attrs)), {
    message: 'certificatesigningrequests.certificates.k8s.io "r" is forbidden: user not permitted to approve requests with signerName "other.io/x\\x7f"',
  });
  assert.deepEqual(asked, ['approve other.io/x\x7f', 'approve other.io/*']);
});

describe('CertificateSigningRequests through a server with RBAC', () => {
  let server: TestServer;
  const base = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
  let n = 0;

  before(async () => {
    const file = path.join(tempDir('plinth-csr-sweep-'), 'tokens.csv');
    writeFileSync(file, ['admin-token,admin,admin-uid,"system:masters"', 'approver-token,approver,approver-uid,""', 'signer-token,signer,signer-uid,""'].join('\n'));
    server = await startServer({ tokenAuthFile: file, authorizationModes: ['RBAC'] });
    const grant = async (user: string, rules: unknown[]) => {
      for (const [kind, body] of [
        ['clusterroles', { metadata: { name: user }, rules }],
        ['clusterrolebindings', { metadata: { name: user }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: user }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }] }],
      ] as const) {
        const res = await server.request('POST', `/apis/rbac.authorization.k8s.io/v1/${kind}`, { token: 'admin-token', body });
        assert.equal(res.status, 201, res.text);
      }
    };
    const csrAccess = { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests', 'certificatesigningrequests/approval', 'certificatesigningrequests/status'], verbs: ['get', 'update'] };
    await grant('approver', [csrAccess, { apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['example.com/*'], verbs: ['approve'] }]);
    await grant('signer', [csrAccess, { apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['example.com/signer'], verbs: ['sign'] }]);
  });
  after(() => server.stop());

  async function create(spec: Record<string, unknown> = {}, name = `csr-${++n}`, headers: Record<string, string> = {}) {
    return server.request('POST', base, {
      token: 'admin-token', headers,
      body: { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request: goodRequest, signerName: 'example.com/signer', usages: ['client auth'], ...spec } },
    });
  }
  async function created(spec: Record<string, unknown> = {}): Promise<KubeObject & { spec: any; status: any }> {
    const res = await create(spec);
    assert.equal(res.status, 201, res.text);
    return res.json;
  }
  function put(csr: KubeObject, subresource: string, token = 'admin-token') {
    const body = structuredClone(csr);
    delete body.metadata.resourceVersion;
    return server.request('PUT', `${base}/${csr.metadata.name}/${subresource}`, { token, body });
  }
  const approved = { type: 'Approved', status: 'True', reason: 'Manual', message: 'ok' };
  const pem = () => {
    // Any well-formed certificate: the server's own CA.
    const text = server.caPem.toString();
    return Buffer.from(text).toString('base64');
  };

  test('a tampered request is refused with 422 and the verification error', async () => {
    const res = await create({ request: request({ keys: ec, algorithm: algorithms.ecdsaWithSHA256, tamper: true }) });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.reason, 'Invalid');
    assert.match(res.json.message, /spec\.request: Invalid value: "[^"]+": x509: ECDSA verification failure$/);
  });

  test('any name a path segment can hold is accepted', async () => {
    const res = await create({}, 'Node_CSR:1');
    assert.equal(res.status, 201, res.text);
    const bad = await create({}, '..');
    assert.equal(bad.status, 422, bad.text);
  });

  test('the requester, groups and extra come from the request, not the body', async () => {
    const res = await create({ username: 'mallory', uid: 'x', groups: ['system:masters'], extra: { k: ['v'] } }, `csr-${++n}`, {
      'Impersonate-User': 'alice', 'Impersonate-Uid': 'alice-uid', 'Impersonate-Group': 'system:masters', 'Impersonate-Extra-Scopes': 'read', 'Impersonate-Extra-Another': 'a',
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.spec.username, 'alice');
    assert.equal(res.json.spec.uid, 'alice-uid');
    assert.deepEqual(res.json.spec.groups, ['system:masters', 'system:authenticated']);
    assert.deepEqual(res.json.spec.extra, { another: ['a'], scopes: ['read'] });
    assert.deepEqual(res.json.status, {});
  });

  test('/status may not add an Approved condition', async () => {
    const csr = await created();
    csr.status = { conditions: [approved] };
    const res = await put(csr, 'status');
    assert.equal(res.status, 422, res.text);
    assert.match(res.json.message, /status\.conditions: Forbidden: updates may not add a condition of type "Approved"$/);
  });

  test('/status may not drop the Approved condition, nor anyone drop Failed', async () => {
    let csr = await created();
    csr.status = { conditions: [approved] };
    csr = (await put(csr, 'approval')).json;
    const res = await put({ ...csr, status: { conditions: [] } } as KubeObject, 'status');
    assert.equal(res.status, 422, res.text);
    assert.match(res.json.message, /updates may not remove a condition of type "Approved"$/);
    const failed = await put({ ...csr, status: { conditions: [...csr.status.conditions, { type: 'Failed', status: 'True', reason: 'SignerError' }] } } as KubeObject, 'status');
    assert.equal(failed.status, 200, failed.text);
    for (const subresource of ['status', 'approval']) {
      const dropped = await put({ ...failed.json, status: { conditions: failed.json.status.conditions.filter((c: { type: string }) => c.type !== 'Failed') } }, subresource);
      assert.equal(dropped.status, 422, `${subresource}: ${dropped.text}`);
      assert.match(dropped.json.message, /status\.conditions: Forbidden: updates may not remove a condition of type "Failed"$/);
    }
  });

  test('/status keeps the stored approval where the new list puts it', async () => {
    let csr = await created();
    csr.status = { conditions: [approved] };
    csr = (await put(csr, 'approval')).json;
    const stored = csr.status.conditions[0];
    const res = await put({ ...csr, status: { conditions: [{ type: 'Failed', status: 'True', reason: 'x' }, { ...stored, reason: 'Changed' }] } } as KubeObject, 'status');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.status.conditions.map((c: { type: string; reason: string }) => [c.type, c.reason]), [['Failed', 'x'], ['Approved', 'Manual']]);
  });

  test('/approval may change an Approved condition it set', async () => {
    let csr = await created();
    csr.status = { conditions: [approved] };
    csr = (await put(csr, 'approval')).json;
    csr.status.conditions[0].message = 'reviewed again';
    const res = await put(csr, 'approval');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.status.conditions[0].message, 'reviewed again');
  });

  test('condition statuses: empty is required, Approved only True', async () => {
    const csr = await created();
    const empty = await put({ ...csr, status: { conditions: [{ type: 'Failed', status: '' }] } } as KubeObject, 'status');
    assert.equal(empty.status, 422, empty.text);
    assert.deepEqual(empty.json.details.causes, [{ reason: 'FieldValueRequired', message: 'Required value', field: 'status.conditions[0].status' }]);
    const bogus = await put({ ...csr, status: { conditions: [{ type: 'Approved', status: 'Bogus' }] } } as KubeObject, 'approval');
    assert.equal(bogus.status, 422, bogus.text);
    assert.deepEqual(bogus.json.details.causes, [{ reason: 'FieldValueNotSupported', message: 'Unsupported value: "Bogus": supported values: "True"', field: 'status.conditions[0].status' }]);
  });

  test('the certificate is set once through /status and then never changed', async () => {
    const csr = await created();
    const viaMain = await put({ ...csr, status: { certificate: pem() } } as KubeObject, '');
    assert.equal(viaMain.status, 200, viaMain.text);
    assert.equal(viaMain.json.status.certificate, undefined, 'the main resource keeps the status');
    const viaApproval = await put({ ...csr, status: { certificate: pem() } } as KubeObject, 'approval');
    assert.equal(viaApproval.json.status.certificate, undefined, '/approval keeps the certificate');
    const issued = await put({ ...csr, status: { certificate: pem() } } as KubeObject, 'status');
    assert.equal(issued.status, 200, issued.text);
    assert.equal(issued.json.status.certificate, pem());
    const twice = Buffer.from(Buffer.from(pem(), 'base64').toString() + Buffer.from(pem(), 'base64').toString()).toString('base64');
    const changed = await put({ ...issued.json, status: { ...issued.json.status, certificate: twice } }, 'status');
    assert.equal(changed.status, 422, changed.text);
    assert.match(changed.json.message, /status\.certificate: Forbidden: updates may not modify existing certificate content$/);
  });

  test('approving needs approve on the signer or its domain wildcard', async () => {
    const ours = await created();
    ours.status = { conditions: [approved] };
    assert.equal((await put(ours, 'approval', 'approver-token')).status, 200);
    const theirs = await created({ signerName: 'other.io/signer' });
    theirs.status = { conditions: [approved] };
    const res = await put(theirs, 'approval', 'approver-token');
    assert.equal(res.status, 403, res.text);
    assert.equal(res.json.message, `certificatesigningrequests.certificates.k8s.io "${theirs.metadata.name}" is forbidden: user not permitted to approve requests with signerName "other.io/signer"`);
  });

  test('issuing needs sign on the signer; a /status write that changes nothing does not', async () => {
    const ours = await created();
    assert.equal((await put({ ...ours, status: { certificate: pem() } } as KubeObject, 'status', 'signer-token')).status, 200);
    const theirs = await created({ signerName: 'example.com/other' });
    const res = await put({ ...theirs, status: { certificate: pem() } } as KubeObject, 'status', 'signer-token');
    assert.equal(res.status, 403, res.text);
    assert.equal(res.json.message, `certificatesigningrequests.certificates.k8s.io "${theirs.metadata.name}" is forbidden: user not permitted to sign requests with signerName "example.com/other"`);
    assert.equal((await put(theirs, 'status', 'signer-token')).status, 200);
  });

  test('no kube-apiserver-client certificate for system:masters', async () => {
    const masters = request({ keys: ec, algorithm: algorithms.ecdsaWithSHA256, subject: [['2.5.4.10', 'system:masters'], ['2.5.4.3', 'root']] });
    const res = await create({ request: masters, signerName: 'kubernetes.io/kube-apiserver-client' });
    assert.equal(res.status, 403, res.text);
    assert.match(res.json.message, /is forbidden: use of kubernetes.io\/kube-apiserver-client signer with system:masters group is not allowed$/);
    assert.equal((await create({ request: masters, signerName: 'example.com/signer' })).status, 201);
  });
});
