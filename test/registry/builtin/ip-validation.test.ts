// IP and CIDR values of legacy fields as upstream's validation reads them with
// StrictIPCIDRValidation on (v1.36's default): what Go's sloppy parsers accept, less the
// ambiguous forms; and the warnings upstream's GetWarningsForIP and GetWarningsForCIDR give.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cidrForLegacyFieldErrors, cidrWarnings, ipForLegacyFieldErrors, ipWarnings } from '../../../src/registry/validation/ip.ts';

test('a legacy field IP: leading zeros and IPv4-mapped addresses refused, unless the object held them', () => {
  assert.deepEqual(ipForLegacyFieldErrors('10.0.0.1'), []);
  assert.deepEqual(ipForLegacyFieldErrors('2001:DB8:0:0::1'), [], 'IPv6 need not be canonical in a legacy field');
  assert.deepEqual(ipForLegacyFieldErrors('010.000.000.001'), ['must not have leading 0s']);
  assert.deepEqual(ipForLegacyFieldErrors('::ffff:1.2.3.4'), ['must not be an IPv4-mapped IPv6 address']);
  assert.deepEqual(ipForLegacyFieldErrors('::1.02.3.4'), ['must not have leading 0s']);
  assert.deepEqual(ipForLegacyFieldErrors('1.2.3'), ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']);
  assert.deepEqual(ipForLegacyFieldErrors('010.000.000.001', ['010.000.000.001']), []);
});

test("GetWarningsForIP's words", () => {
  assert.deepEqual(ipWarnings('spec.clusterIPs[0]', '192.12.2.2'), []);
  assert.deepEqual(ipWarnings('spec.clusterIPs[0]', '2001:db8::2'), []);
  assert.deepEqual(ipWarnings('spec.clusterIPs[0]', '192.012.2.2'), [
    'spec.clusterIPs[0]: non-standard IP address "192.012.2.2" will be considered invalid in a future Kubernetes release: use "192.12.2.2"',
  ]);
  assert.deepEqual(ipWarnings('spec.clusterIPs[0]', '::ffff:192.12.2.2'), [
    'spec.clusterIPs[0]: non-standard IP address "::ffff:192.12.2.2" will be considered invalid in a future Kubernetes release: use "192.12.2.2"',
  ]);
  assert.deepEqual(ipWarnings('spec.clusterIPs[1]', '2001:db8:0:0::2'), [
    'spec.clusterIPs[1]: IPv6 address "2001:db8:0:0::2" should be in RFC 5952 canonical format ("2001:db8::2")',
  ]);
  assert.deepEqual(ipWarnings('spec.clusterIPs[1]', '2001:DB8::2'), [
    'spec.clusterIPs[1]: IPv6 address "2001:DB8::2" should be in RFC 5952 canonical format ("2001:db8::2")',
  ]);
  assert.deepEqual(ipWarnings('x', 'not an ip'), [], 'an invalid value is validation\'s, not a warning');
});

test('a legacy field CIDR: leading zeros, IPv4-mapped addresses and host bits refused', () => {
  assert.deepEqual(cidrForLegacyFieldErrors('10.0.0.0/8'), []);
  assert.deepEqual(cidrForLegacyFieldErrors('2001:DB8::/64'), []);
  assert.deepEqual(cidrForLegacyFieldErrors('10.0.0.1/8'), ['must not have bits set beyond the prefix length']);
  assert.deepEqual(cidrForLegacyFieldErrors('010.0.0.0/8'), ['must not have leading 0s in IP or prefix length']);
  assert.deepEqual(cidrForLegacyFieldErrors('10.0.0.0/08'), ['must not have leading 0s in IP or prefix length']);
  assert.deepEqual(cidrForLegacyFieldErrors('::ffff:10.0.0.0/104'), ['must not have an IPv4-mapped IPv6 address']);
  assert.deepEqual(cidrForLegacyFieldErrors('10.0.0.0/33'), ['must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']);
  assert.deepEqual(cidrForLegacyFieldErrors('10.0.0.0'), ['must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']);
  assert.deepEqual(cidrForLegacyFieldErrors('10.0.0.1/8', ['10.0.0.1/8']), []);
});

test("GetWarningsForCIDR's words", () => {
  assert.deepEqual(cidrWarnings('spec.loadBalancerSourceRanges[0]', '192.12.2.0/24'), []);
  assert.deepEqual(cidrWarnings('spec.loadBalancerSourceRanges[0]', '192.12.2.8/24'), [
    'spec.loadBalancerSourceRanges[0]: CIDR value "192.12.2.8/24" is ambiguous in this context (should be "192.12.2.0/24" or "192.12.2.8/32"?)',
  ]);
  assert.deepEqual(cidrWarnings('spec.loadBalancerSourceRanges[0]', '192.012.2.0/24'), [
    'spec.loadBalancerSourceRanges[0]: non-standard CIDR value "192.012.2.0/24" will be considered invalid in a future Kubernetes release: use "192.12.2.0/24"',
  ]);
  assert.deepEqual(cidrWarnings('spec.loadBalancerSourceRanges[0]', '192.012.2.8/24'), [
    'spec.loadBalancerSourceRanges[0]: CIDR value "192.012.2.8/24" is ambiguous in this context (should be "192.12.2.0/24" or "192.12.2.8/32"?)',
    'spec.loadBalancerSourceRanges[0]: non-standard CIDR value "192.012.2.8/24" will be considered invalid in a future Kubernetes release: use "192.12.2.0/24"',
  ]);
  assert.deepEqual(cidrWarnings('spec.loadBalancerSourceRanges[0]', '::ffff:192.12.2.0/120'), [
    'spec.loadBalancerSourceRanges[0]: non-standard CIDR value "::ffff:192.12.2.0/120" will be considered invalid in a future Kubernetes release: use "192.12.2.0/24"',
  ]);
  assert.deepEqual(cidrWarnings('spec.loadBalancerSourceRanges[0]', '2001:db8:0:0::/64'), [
    'spec.loadBalancerSourceRanges[0]: IPv6 CIDR value "2001:db8:0:0::/64" should be in RFC 5952 canonical format ("2001:db8::/64")',
  ]);
  assert.deepEqual(cidrWarnings('spec.loadBalancerSourceRanges[0]', '2001:db8::1/64'), [
    'spec.loadBalancerSourceRanges[0]: CIDR value "2001:db8::1/64" is ambiguous in this context (should be "2001:db8::/64" or "2001:db8::1/128"?)',
  ]);
});
