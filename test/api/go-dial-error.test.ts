// Failed connections worded as Go's net and crypto/tls packages word them (webhooks, kubelets).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goDialError, hostOf } from '../../src/api/go-dial-error.ts';

const failure = (code: string, extra: object = {}) => Object.assign(new Error(`node's own words for ${code}`), { code }, extra);

test('dial and TLS failures read as Go\'s', () => {
  const cases: Array<[Error, string, string]> = [
    [failure('ECONNREFUSED'), '10.0.0.5:10250', 'dial tcp 10.0.0.5:10250: connect: connection refused'],
    [failure('EHOSTUNREACH'), '[fd00::5]:10250', 'dial tcp [fd00::5]:10250: connect: no route to host'],
    [failure('ETIMEDOUT'), '10.0.0.5:10250', 'dial tcp 10.0.0.5:10250: i/o timeout'],
    [failure('ENOTFOUND'), 'node-1.internal:10250', 'dial tcp: lookup node-1.internal: no such host'],
    [failure('DEPTH_ZERO_SELF_SIGNED_CERT'), 'node-1:10250', 'tls: failed to verify certificate: x509: certificate signed by unknown authority'],
    [failure('CERT_HAS_EXPIRED'), 'node-1:10250', 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid'],
    [failure('ERR_TLS_CERT_ALTNAME_INVALID', { cert: { subjectaltname: 'DNS:node-1, DNS:node-1.internal, IP Address:10.0.0.5' } }), 'node-2:10250',
      'tls: failed to verify certificate: x509: certificate is valid for node-1, node-1.internal, not node-2'],
    [failure('ERR_TLS_CERT_ALTNAME_INVALID', { cert: { subjectaltname: 'DNS:node-1, IP Address:10.0.0.5, IP Address:::1' } }), '10.0.0.6:10250',
      'tls: failed to verify certificate: x509: certificate is valid for 10.0.0.5, ::1, not 10.0.0.6'],
    [failure('ERR_TLS_CERT_ALTNAME_INVALID', { cert: { subjectaltname: 'DNS:node-1' } }), '10.0.0.6:10250',
      'tls: failed to verify certificate: x509: cannot validate certificate for 10.0.0.6 because it doesn\'t contain any IP SANs'],
    [failure('ERR_TLS_CERT_ALTNAME_INVALID', { cert: {} }), 'node-2:10250', 'tls: failed to verify certificate: x509: certificate is not valid for any names, but wanted to match node-2'],
    [failure('EPROTO'), 'node-1:10250', 'node\'s own words for EPROTO'],
  ];
  for (const [err, address, expected] of cases) assert.equal(goDialError(err, address), expected, `${(err as NodeJS.ErrnoException).code} ${address}`);
  assert.deepEqual(['10.0.0.5:1', '[::1]:2', 'node:3'].map(hostOf), ['10.0.0.5', '::1', 'node']);
});
