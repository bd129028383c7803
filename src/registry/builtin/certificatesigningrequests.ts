// certificates.k8s.io/v1 certificatesigningrequests, after kubernetes
// pkg/registry/certificates/certificates/strategy.go and pkg/apis/certificates/validation:
// a request signed by its own key, the requesting user recorded on create, the spec
// immutable, approval through /approval and issuance through /status, and the printer's columns.

import { constants as cryptoConstants, createPublicKey, verify as verifySignature, X509Certificate, type KeyObject } from 'node:crypto';
import type { KubeObject, StatusCause, TableColumn } from '../../api/index.ts';
import { clone, isObject, type JsonObject } from '../../api/json.ts';
import { currentRequest } from '../../api/request-context.ts';
import { pemDecode } from '../../api/go-pem.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { ageColumn, column, humanDuration, nameColumn } from '../table-columns.ts';
import { appendAll, duplicate, forbidden, goQuote, index, invalid, notSupported, required, tooLong } from '../validation/field.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../validation/names.ts';
import { nowTimestamp } from './common.ts';
import { arrayAt, ensureObject, itemsAt, numberAt, objectAt, objectsAt, semanticEqual, stringAt } from './object.ts';
import { builtinType } from './skeleton.ts';

/** certificates.KeyUsage values upstream accepts. */
const validUsages = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment', 'decipher only',
  'digital signature', 'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement',
  'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping',
];

const legacyUnknownSigner = 'kubernetes.io/legacy-unknown';

/** The bytes of a []byte field (base64 on the wire) as latin1 text; '' when absent. */
function bytesOf(value: unknown): string {
  return typeof value === 'string' ? Buffer.from(value, 'base64').toString('latin1') : '';
}

/** One DER element at `at`: its tag and where its content starts and ends; undefined when truncated. */
function derElement(der: Buffer, at: number): { tag: number; start: number; end: number } | undefined {
  if (at + 2 > der.length) return undefined;
  const tag = der[at]!;
  let length = der[at + 1]!;
  let start = at + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    if (bytes === 0 || bytes > 4 || start + bytes > der.length) return undefined;
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + der[start + i]!;
    start += bytes;
  }
  const end = start + length;
  return end > der.length ? undefined : { tag, start, end };
}

/** The elements inside the constructed element spanning [start, end); undefined when one is truncated or overruns. */
function derChildren(der: Buffer, start: number, end: number): { tag: number; from: number; start: number; end: number }[] | undefined {
  const children: { tag: number; from: number; start: number; end: number }[] = [];
  for (let at = start; at < end;) {
    const element = derElement(der, at);
    if (element === undefined || element.end > end) return undefined;
    children.push({ ...element, from: at });
    at = element.end;
  }
  return children;
}

/** An OBJECT IDENTIFIER's dotted form. */
function oidOf(bytes: Buffer): string {
  const arcs: number[] = [];
  let value = 0;
  for (const byte of bytes) {
    value = value * 128 + (byte & 0x7f);
    if (byte & 0x80) continue;
    if (arcs.length === 0) arcs.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
    else arcs.push(value);
    value = 0;
  }
  return arcs.join('.');
}

/** An AlgorithmIdentifier: its OID and its parameters' encoding (empty when absent). */
function algorithmOf(der: Buffer, element: { start: number; end: number }): { oid: string; params: Buffer } | undefined {
  const parts = derChildren(der, element.start, element.end);
  if (parts === undefined || parts.length === 0 || parts.length > 2 || parts[0]!.tag !== 0x06) return undefined;
  const params = parts[1] === undefined ? Buffer.alloc(0) : der.subarray(parts[1].from, parts[1].end);
  return { oid: oidOf(der.subarray(parts[0]!.start, parts[0]!.end)), params };
}

/** The parts of a PKCS #10 request its signature check needs. */
interface CertificationRequest {
  signed: Buffer;
  keyAlgorithm: { oid: string; params: Buffer };
  spki: Buffer;
  signatureAlgorithm: { oid: string; params: Buffer };
  signature: Buffer;
}

/**
 * A PKCS #10 request's outer shape: SEQUENCE { CertificationRequestInfo SEQUENCE { version,
 * subject, SubjectPublicKeyInfo, [0] attributes }, AlgorithmIdentifier, BIT STRING } with
 * nothing after it. Undefined when the shape is wrong.
 */
function parseCertificationRequest(der: Buffer): CertificationRequest | undefined {
  const outer = derElement(der, 0);
  if (outer === undefined || outer.tag !== 0x30 || outer.end !== der.length) return undefined;
  const top = derChildren(der, outer.start, outer.end);
  if (top === undefined || top.length !== 3 || top[0]!.tag !== 0x30 || top[1]!.tag !== 0x30 || top[2]!.tag !== 0x03) return undefined;
  const info = derChildren(der, top[0]!.start, top[0]!.end);
  if (info === undefined || info.length < 3 || info.length > 4 || info[0]!.tag !== 0x02 || info[1]!.tag !== 0x30 || info[2]!.tag !== 0x30) return undefined;
  if (info[3] !== undefined && info[3].tag !== 0xa0) return undefined;
  const spki = derChildren(der, info[2]!.start, info[2]!.end);
  if (spki === undefined || spki.length !== 2 || spki[0]!.tag !== 0x30 || spki[1]!.tag !== 0x03) return undefined;
  const keyAlgorithm = algorithmOf(der, spki[0]!);
  const signatureAlgorithm = algorithmOf(der, top[1]!);
  const bits = der.subarray(top[2]!.start, top[2]!.end);
  if (keyAlgorithm === undefined || signatureAlgorithm === undefined || bits.length === 0 || bits[0] !== 0) return undefined;
  return {
    signed: der.subarray(top[0]!.from, top[0]!.end),
    keyAlgorithm,
    spki: der.subarray(info[2]!.from, info[2]!.end),
    signatureAlgorithm,
    signature: bits.subarray(1),
  };
}

type KeyAlgorithm = 'RSA' | 'DSA' | 'ECDSA' | 'Ed25519';

/** Go's x509 signature algorithms by OID (RSASSA-PSS, whose hash is in its parameters, aside). */
const signatureAlgorithms: Record<string, { name: string; hash: string | undefined; key: KeyAlgorithm }> = {
  '1.2.840.113549.1.1.2': { name: 'MD2-RSA', hash: undefined, key: 'RSA' },
  '1.2.840.113549.1.1.4': { name: 'MD5-RSA', hash: 'md5', key: 'RSA' },
  '1.2.840.113549.1.1.5': { name: 'SHA1-RSA', hash: 'sha1', key: 'RSA' },
  '1.3.14.3.2.29': { name: 'SHA1-RSA', hash: 'sha1', key: 'RSA' },
  '1.2.840.113549.1.1.11': { name: 'SHA256-RSA', hash: 'sha256', key: 'RSA' },
  '1.2.840.113549.1.1.12': { name: 'SHA384-RSA', hash: 'sha384', key: 'RSA' },
  '1.2.840.113549.1.1.13': { name: 'SHA512-RSA', hash: 'sha512', key: 'RSA' },
  '1.2.840.10040.4.3': { name: 'DSA-SHA1', hash: 'sha1', key: 'DSA' },
  '2.16.840.1.101.3.4.3.2': { name: 'DSA-SHA256', hash: 'sha256', key: 'DSA' },
  '1.2.840.10045.4.1': { name: 'ECDSA-SHA1', hash: 'sha1', key: 'ECDSA' },
  '1.2.840.10045.4.3.2': { name: 'ECDSA-SHA256', hash: 'sha256', key: 'ECDSA' },
  '1.2.840.10045.4.3.3': { name: 'ECDSA-SHA384', hash: 'sha384', key: 'ECDSA' },
  '1.2.840.10045.4.3.4': { name: 'ECDSA-SHA512', hash: 'sha512', key: 'ECDSA' },
  '1.3.101.112': { name: 'Ed25519', hash: undefined, key: 'Ed25519' },
};

const rsassaPss = '1.2.840.113549.1.1.10';
const pssHashes: Record<string, { hash: string; saltLength: number }> = {
  '2.16.840.1.101.3.4.2.1': { hash: 'sha256', saltLength: 32 },
  '2.16.840.1.101.3.4.2.2': { hash: 'sha384', saltLength: 48 },
  '2.16.840.1.101.3.4.2.3': { hash: 'sha512', saltLength: 64 },
};
const derNull = Buffer.from([0x05, 0x00]);

/** Go's getSignatureAlgorithmFromAI for RSASSA-PSS: the hash, when MGF1 uses it too, the salt is its length and the trailer 1. */
function pssAlgorithm(params: Buffer): { hash: string; saltLength: number } | undefined {
  const outer = derElement(params, 0);
  if (outer === undefined || outer.tag !== 0x30 || outer.end !== params.length) return undefined;
  const fields = derChildren(params, outer.start, outer.end);
  if (fields === undefined) return undefined;
  const explicit = (tag: number) => {
    const field = fields.find((f) => f.tag === tag);
    return field === undefined ? undefined : derElement(params, field.start);
  };
  const hashField = explicit(0xa0);
  const mgfField = explicit(0xa1);
  const saltField = explicit(0xa2);
  const trailerField = explicit(0xa3);
  if (hashField?.tag !== 0x30 || mgfField?.tag !== 0x30 || saltField?.tag !== 0x02) return undefined;
  const hash = algorithmOf(params, hashField);
  const mgf = algorithmOf(params, mgfField);
  if (hash === undefined || mgf === undefined || mgf.oid !== '1.2.840.113549.1.1.8') return undefined;
  const mgfHashElement = derElement(mgf.params, 0);
  const mgfHash = mgfHashElement?.tag === 0x30 ? algorithmOf(mgf.params, mgfHashElement) : undefined;
  const nullOrAbsent = (b: Buffer) => b.length === 0 || b.equals(derNull);
  if (mgfHash?.oid !== hash.oid || !nullOrAbsent(hash.params) || !nullOrAbsent(mgfHash.params)) return undefined;
  const integer = (e: { start: number; end: number }) => params.subarray(e.start, e.end).reduce((n, b) => n * 256 + b, 0);
  if (trailerField !== undefined && (trailerField.tag !== 0x02 || integer(trailerField) !== 1)) return undefined;
  const details = pssHashes[hash.oid];
  return details !== undefined && integer(saltField) === details.saltLength ? details : undefined;
}

/** Go's names of the public key types, for the mismatch error. */
const goKeyTypes: Record<KeyAlgorithm, string> = { RSA: '*rsa.PublicKey', DSA: '*dsa.PublicKey', ECDSA: '*ecdsa.PublicKey', Ed25519: 'ed25519.PublicKey' };
const keyAlgorithms: Record<string, KeyAlgorithm> = {
  '1.2.840.113549.1.1.1': 'RSA', '1.2.840.10040.4.1': 'DSA', '1.2.840.10045.2.1': 'ECDSA', '1.3.101.112': 'Ed25519',
};
/** The curves Go's x509 reads (P-224, P-256, P-384, P-521), by OpenSSL's names. */
const goCurves = new Set(['secp224r1', 'prime256v1', 'secp384r1', 'secp521r1']);
const unsupportedAlgorithm = 'x509: cannot verify signature: algorithm unimplemented';

/** The request's public key as Go's x509 parses it: undefined for an algorithm it does not know, an error text when malformed. */
function publicKeyOf(request: CertificationRequest): { algorithm: KeyAlgorithm; key: KeyObject } | string | undefined {
  const algorithm = keyAlgorithms[request.keyAlgorithm.oid];
  if (algorithm === undefined) return undefined;
  if (algorithm === 'RSA' && !request.keyAlgorithm.params.equals(derNull)) return 'x509: RSA key missing NULL parameters';
  if (algorithm === 'Ed25519' && request.keyAlgorithm.params.length > 0) return 'x509: Ed25519 key encoded with illegal parameters';
  let key: KeyObject;
  try {
    key = createPublicKey({ key: request.spki, format: 'der', type: 'spki' });
  } catch {
    return { RSA: 'x509: invalid RSA public key', DSA: 'x509: invalid DSA public key', ECDSA: 'x509: failed to unmarshal elliptic curve point', Ed25519: 'x509: wrong Ed25519 public key size' }[algorithm];
  }
  if (algorithm === 'ECDSA' && !goCurves.has(key.asymmetricKeyDetails?.namedCurve ?? '')) return 'x509: unsupported elliptic curve';
  return { algorithm, key };
}

/** Go's CertificateRequest.CheckSignature (SHA-1 allowed, as for every request): why the signature does not verify. */
function signatureError(request: CertificationRequest, key: { algorithm: KeyAlgorithm; key: KeyObject } | undefined): string | undefined {
  const { oid, params } = request.signatureAlgorithm;
  let algorithm: { name: string; hash: string | undefined; key: KeyAlgorithm; saltLength?: number } | undefined;
  if (oid === rsassaPss) {
    const pss = pssAlgorithm(params);
    algorithm = pss === undefined ? undefined : { name: 'RSASSA-PSS', hash: pss.hash, key: 'RSA', saltLength: pss.saltLength };
  } else if (oid !== '1.3.101.112' || params.length === 0) {
    algorithm = signatureAlgorithms[oid];
  }
  if (algorithm === undefined || (algorithm.hash === undefined && algorithm.key !== 'Ed25519')) return unsupportedAlgorithm;
  if (algorithm.hash === 'md5') return `x509: cannot verify signature: insecure algorithm ${algorithm.name}`;
  // Go verifies with RSA, ECDSA and Ed25519 keys only: a DSA key (or none) cannot be checked.
  if (key === undefined || key.algorithm === 'DSA') return unsupportedAlgorithm;
  if (key.algorithm !== algorithm.key) return `x509: signature algorithm specifies an ${algorithm.key} public key, but have public key of type ${goKeyTypes[key.algorithm]}`;
  const check = (options: { padding?: number; saltLength?: number }) => {
    try {
      return verifySignature(algorithm.hash ?? null, request.signed, { key: key.key, ...options }, request.signature);
    } catch {
      return false;
    }
  };
  switch (key.algorithm) {
    case 'RSA': {
      const bits = key.key.asymmetricKeyDetails?.modulusLength ?? 0;
      // Go 1.24's crypto/rsa refuses keys under 1024 bits.
      if (bits < 1024) return `crypto/rsa: ${bits}-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)`;
      const ok = algorithm.saltLength === undefined
        ? check({ padding: cryptoConstants.RSA_PKCS1_PADDING })
        : check({ padding: cryptoConstants.RSA_PKCS1_PSS_PADDING, saltLength: algorithm.saltLength });
      return ok ? undefined : 'crypto/rsa: verification error';
    }
    case 'ECDSA':
      return check({}) ? undefined : 'x509: ECDSA verification failure';
    case 'Ed25519':
      return check({}) ? undefined : 'x509: Ed25519 verification failure';
  }
}

/** Upstream's ParseCSR and CheckSignature: a PEM "CERTIFICATE REQUEST" block holding a PKCS #10 request that its own key signed. */
function requestError(request: unknown): string | undefined {
  const block = pemDecode(bytesOf(request));
  if (block === undefined || block.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  const parsed = parseCertificationRequest(block.der);
  if (parsed === undefined) return 'x509: malformed certificate request';
  const key = publicKeyOf(parsed);
  if (typeof key === 'string') return key;
  return signatureError(parsed, key);
}

/** Go's x509.ParseCertificates of one block's bytes: how many certificates, or undefined when one does not parse. */
function certificateCount(der: Buffer): number | undefined {
  let count = 0;
  for (let at = 0; at < der.length; count++) {
    const element = derElement(der, at);
    if (element === undefined || element.tag !== 0x30) return undefined;
    try {
      new X509Certificate(der.subarray(at, element.end));
    } catch {
      return undefined;
    }
    at = element.end;
  }
  return count;
}

/** Upstream's validateCertificate: empty, or PEM CERTIFICATE blocks without headers, each holding certificates. */
function certificateError(certificate: unknown): string | undefined {
  const text = bytesOf(certificate);
  if (text === '') return undefined;
  let blocks = 0;
  let at = 0;
  for (let block = pemDecode(text); block !== undefined; block = pemDecode(text, at)) {
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${goQuote(block.type)}`;
    if (block.hasHeaders) return 'no PEM block headers are permitted';
    blocks++;
    const count = certificateCount(block.der);
    if (count === undefined) return 'x509: malformed certificate';
    if (count === 0) return 'found CERTIFICATE PEM block containing 0 certificates';
    at = block.rest;
  }
  return blocks === 0 ? 'must contain at least one CERTIFICATE PEM block' : undefined;
}

/**
 * Upstream's ValidateSignerName: a domain of two or more DNS labels, a slash, and a path of
 * DNS subdomains separated by dots (each may be as long as a resource name), 571 characters
 * at most (a domain, a namespace and a resource name, a dot and a slash).
 */
export function validateSignerName(path: string, signerName: string): StatusCause[] {
  if (signerName === '') return [required(path)];
  const segments = signerName.split('/');
  if (segments.length !== 2) {
    return [invalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  }
  const [domain, name] = segments as [string, string];
  const causes: StatusCause[] = [];
  // Lengths in bytes, as Go's len.
  if (Buffer.byteLength(domain) > 253) causes.push(tooLong(path, 253));
  const domainLabels = domain.split('.');
  for (const label of domainLabels) {
    const errs = isDNS1123Label(label);
    if (errs.length === 0) continue;
    for (const msg of errs) causes.push(invalid(path, domain, `validating label ${goQuote(label)}: ${msg}`));
    break;
  }
  if (domainLabels.length < 2) causes.push(invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const label of name.split('.')) {
    const errs = isDNS1123Subdomain(label);
    if (errs.length === 0) continue;
    for (const msg of errs) causes.push(invalid(path, name, `validating label ${goQuote(label)}: ${msg}`));
    break;
  }
  const maxSignerName = 253 + 63 + 1 + 253 + 1;
  if (Buffer.byteLength(signerName) > maxSignerName) causes.push(tooLong(path, maxSignerName));
  return causes;
}

const conditionStatuses = ['False', 'True', 'Unknown'];
/** The condition types whose status may only be True. */
const trueOnlyConditions = new Set(['Approved', 'Denied', 'Failed']);

/**
 * Upstream's certificateValidationOptions. What a subresource may change (approval
 * conditions through /approval, the certificate through /status), and the problems an
 * update tolerates because the stored object already has them.
 */
interface ValidationOptions {
  settingApprovalConditions: boolean;
  settingCertificate: boolean;
  bothApprovedAndDenied: boolean;
  legacySignerName: boolean;
  duplicateConditionTypes: boolean;
  emptyConditionType: boolean;
  arbitraryCertificate: boolean;
  unknownUsages: boolean;
  duplicateUsages: boolean;
}

function conditionTypes(csr: KubeObject): unknown[] {
  return itemsAt(objectAt(csr, 'status'), 'conditions').map((c) => c.type ?? '');
}

function hasDuplicate(values: unknown[]): boolean {
  return new Set(values).size !== values.length;
}

/** The certificate's bytes, so that two spellings of the same base64 compare equal. */
function certificateBytes(csr: KubeObject): string {
  return bytesOf(objectAt(csr, 'status')?.certificate);
}

/** Upstream's getValidationOptions: nothing tolerated on create; on update what `old` already has. */
function validationOptions(csr: KubeObject, old: KubeObject | undefined): ValidationOptions {
  const oldTypes = old === undefined ? [] : conditionTypes(old);
  const oldUsages = old === undefined ? [] : arrayAt(objectAt(old, 'spec'), 'usages');
  return {
    settingApprovalConditions: false,
    settingCertificate: false,
    bothApprovedAndDenied: oldTypes.includes('Approved') && oldTypes.includes('Denied'),
    legacySignerName: old !== undefined && stringAt(objectAt(old, 'spec'), 'signerName') === legacyUnknownSigner,
    duplicateConditionTypes: hasDuplicate(oldTypes),
    emptyConditionType: oldTypes.includes(''),
    arbitraryCertificate: old !== undefined && (certificateBytes(csr) === certificateBytes(old) || certificateError(objectAt(old, 'status')?.certificate) !== undefined),
    unknownUsages: oldUsages.some((usage) => !validUsages.includes(String(usage))),
    duplicateUsages: hasDuplicate(oldUsages),
  };
}

/** Upstream's validateConditions: types set and unique, statuses known (True only for Approved, Denied and Failed), never Approved and Denied. */
function validateConditions(csr: KubeObject, opts: ValidationOptions): StatusCause[] {
  const causes: StatusCause[] = [];
  const path = 'status.conditions';
  const seen = new Set<unknown>();
  let approved = false;
  let denied = false;
  itemsAt(objectAt(csr, 'status'), 'conditions').forEach((c, i) => {
    const type = c.type ?? '';
    const status = c.status ?? '';
    if (!opts.emptyConditionType && type === '') causes.push(required(`${index(path, i)}.type`));
    const allowed = trueOnlyConditions.has(String(type)) ? ['True'] : conditionStatuses;
    if (status === '') causes.push(required(`${index(path, i)}.status`));
    else if (!allowed.includes(String(status))) causes.push(notSupported(`${index(path, i)}.status`, status, allowed));
    if (!opts.bothApprovedAndDenied) {
      if (type === 'Approved') {
        approved = true;
        if (denied) causes.push(invalid(path, type, 'Approved and Denied conditions are mutually exclusive'));
      } else if (type === 'Denied') {
        denied = true;
        if (approved) causes.push(invalid(path, type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!opts.duplicateConditionTypes) {
      if (seen.has(type)) causes.push(duplicate(`${index(path, i)}.type`, type));
      seen.add(type);
    }
  });
  return causes;
}

/**
 * Upstream's validateCertificateSigningRequest. The request is checked again on update
 * only when it changed (it never does: every update keeps the stored spec), so a stored
 * request is not refused for a rule added after it was written.
 */
function validateCsr(csr: KubeObject, opts: ValidationOptions, old?: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = objectAt(csr, 'spec') ?? {};
  if (!(old !== undefined && semanticEqual(spec.request, objectAt(old, 'spec')?.request))) {
    const requestProblem = requestError(spec.request);
    if (requestProblem !== undefined) causes.push(invalid('spec.request', spec.request ?? null, requestProblem));
  }
  const usages = arrayAt(spec, 'usages');
  if (usages.length === 0) causes.push(required('spec.usages'));
  if (!opts.unknownUsages) {
    // A repeated unsupported usage takes its first cause's message: formatting the list of
    // valid usages again for each took half the time 150k bad usages took to refuse.
    const unsupported = new Map<unknown, StatusCause>();
    usages.forEach((usage, i) => {
      if (validUsages.includes(String(usage))) return;
      const path = index('spec.usages', i);
      const first = unsupported.get(usage);
      if (first !== undefined) {
        causes.push({ ...first, field: path });
        return;
      }
      const cause = notSupported(path, usage, validUsages);
      unsupported.set(usage, cause);
      causes.push(cause);
    });
  }
  if (!opts.duplicateUsages) {
    const seen = new Set<unknown>();
    usages.forEach((usage, i) => {
      if (seen.has(usage)) causes.push(duplicate(index('spec.usages', i), usage));
      seen.add(usage);
    });
  }
  const signerName = stringAt(spec, 'signerName');
  if (!opts.legacySignerName && signerName === legacyUnknownSigner) {
    causes.push(invalid('spec.signerName', signerName, 'the legacy signerName is not allowed via this API version'));
  } else {
    appendAll(causes, validateSignerName('spec.signerName', signerName));
  }
  const expiration = numberAt(spec, 'expirationSeconds');
  if (expiration !== undefined && expiration < 600) {
    causes.push(invalid('spec.expirationSeconds', expiration, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  appendAll(causes, validateConditions(csr, opts));
  if (!opts.arbitraryCertificate) {
    const certProblem = certificateError(objectAt(csr, 'status')?.certificate);
    if (certProblem !== undefined) causes.push(invalid('status.certificate', '<certificate data>', certProblem));
  }
  return causes;
}

/** Upstream's ValidateCertificateSigningRequestCreate. */
export function validateCertificateSigningRequest(csr: KubeObject): StatusCause[] {
  return validateCsr(csr, validationOptions(csr, undefined));
}

function conditionsOf(csr: KubeObject, type: string): JsonObject[] {
  return itemsAt(objectAt(csr, 'status'), 'conditions').filter((c) => c.type === type);
}

/**
 * Upstream's validateCertificateSigningRequestUpdate: Approved, Denied and Failed conditions
 * are never removed; Approved and Denied are added or changed only through /approval; the
 * certificate is set only through /status, and once set never changed.
 */
function validateCsrUpdate(csr: KubeObject, old: KubeObject, through: '' | 'approval' | 'status'): StatusCause[] {
  const opts = validationOptions(csr, old);
  opts.settingApprovalConditions = through === 'approval';
  opts.settingCertificate = through === 'status';
  const causes = validateCsr(csr, opts, old);
  for (const type of ['Approved', 'Denied', 'Failed']) {
    if (conditionsOf(csr, type).length < conditionsOf(old, type).length) {
      causes.push(forbidden('status.conditions', `updates may not remove a condition of type ${goQuote(type)}`));
    }
  }
  if (!opts.settingApprovalConditions) {
    for (const type of ['Approved', 'Denied']) {
      const before = conditionsOf(old, type);
      const after = conditionsOf(csr, type);
      if (after.length > before.length) {
        causes.push(forbidden('status.conditions', `updates may not add a condition of type ${goQuote(type)}`));
      } else if (after.length === before.length && !semanticEqual(before, after)) {
        // Upstream appends a diff of the conditions; the strategies keep them, so none is reached.
        causes.push(forbidden('status.conditions', `updates may not modify a condition of type ${goQuote(type)}`));
      }
    }
  }
  const certificate = certificateBytes(csr);
  const oldCertificate = certificateBytes(old);
  if (certificate !== oldCertificate) {
    if (!opts.settingCertificate) causes.push(forbidden('status.certificate', 'updates may not set certificate content'));
    else if (oldCertificate !== '') causes.push(forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return causes;
}

/** Sets lastUpdateTime where unset, and lastTransitionTime where unset: an old condition's of the same type and status, else now. */
function populateConditionTimestamps(csr: KubeObject, old: KubeObject): void {
  const now = nowTimestamp();
  // The first old condition of each type and status with a transition time, looked up rather than searched for each condition.
  const transitions = new Map<string, unknown>();
  for (const o of objectsAt(objectAt(old, 'status'), 'conditions')) {
    const key = JSON.stringify([o.type ?? '', o.status ?? '']);
    if (o.lastTransitionTime && !transitions.has(key)) transitions.set(key, o.lastTransitionTime);
  }
  for (const c of objectsAt(objectAt(csr, 'status'), 'conditions')) {
    if (!c.lastUpdateTime) c.lastUpdateTime = now;
    if (!c.lastTransitionTime) c.lastTransitionTime = (transitions.get(JSON.stringify([c.type ?? '', c.status ?? ''])) ?? now) as string;
  }
}

/**
 * Upstream's preserveConditionInstances: when /status sends as many conditions of `type`
 * as are stored, they keep their stored values, in the places the new list has them; a
 * different count is left for validation to refuse.
 */
function preserveConditionInstances(csr: KubeObject, old: KubeObject, type: string): void {
  const conditions = arrayAt(objectAt(csr, 'status'), 'conditions');
  const oldConditions = arrayAt(objectAt(old, 'status'), 'conditions');
  const at = (list: unknown[]) => list.flatMap((c, i) => (isObject(c) && c.type === type ? [i] : []));
  const newIndices = at(conditions);
  const oldIndices = at(oldConditions);
  if (newIndices.length !== oldIndices.length) return;
  newIndices.forEach((n, i) => { conditions[n] = clone(oldConditions[oldIndices[i]!]); });
}

const csrStrategy: Strategy = {
  // Upstream's SelectableFields and certificates/v1 field label conversion.
  selectableFields: (csr) => ({ 'spec.signerName': stringAt(objectAt(csr, 'spec'), 'signerName') }),
  fieldLabels: ['metadata.name', 'spec.signerName'],

  prepareForCreate(csr) {
    const spec = ensureObject(csr as JsonObject, 'spec');
    const user = currentRequest()?.user;
    // The requesting user is recorded by the server, whatever the client sent.
    delete spec.username;
    delete spec.uid;
    delete spec.groups;
    delete spec.extra;
    if (user !== undefined) {
      if (user.name !== '') spec.username = user.name;
      if (user.uid !== '') spec.uid = user.uid;
      if (user.groups.length > 0) spec.groups = [...user.groups];
      // Sorted by key, as Go writes a map.
      const extra = Object.entries(user.extra ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      if (extra.length > 0) spec.extra = Object.fromEntries(extra.map(([k, v]) => [k, [...v]]));
    }
    csr.status = {};
  },

  prepareForUpdate(csr, old) {
    csr.spec = clone(old.spec);
    if (old.status === undefined) delete csr.status;
    else csr.status = clone(old.status);
  },

  // An update is validated whole by validateUpdate, with what the stored object tolerates.
  validate: (csr, old) => (old === undefined ? validateCertificateSigningRequest(csr) : []),

  validateUpdate: (csr, old) => validateCsrUpdate(csr, old, ''),

  subresources: {
    // The issuer writes the certificate and other conditions; approval stays as it was.
    status: {
      prepareForUpdate(csr, old) {
        csr.spec = clone(old.spec);
        preserveConditionInstances(csr, old, 'Approved');
        preserveConditionInstances(csr, old, 'Denied');
        populateConditionTimestamps(csr, old);
      },
      validateUpdate: (csr, old) => validateCsrUpdate(csr, old, 'status'),
    },
    // `kubectl certificate approve|deny`: only the conditions change.
    approval: {
      prepareForUpdate(csr, old) {
        populateConditionTimestamps(csr, old);
        const conditions = objectAt(csr, 'status')?.conditions;
        csr.spec = clone(old.spec);
        const status: JsonObject = isObject(old.status) ? clone(old.status) : {};
        if (conditions === undefined || conditions === null) delete status.conditions;
        else status.conditions = clone(conditions);
        csr.status = status;
      },
      validateUpdate: (csr, old) => validateCsrUpdate(csr, old, 'approval'),
    },
  },
};

/** printers.go's extractCSRStatus: Denied, Approved or Pending, then Failed and Issued. */
function csrCondition(csr: KubeObject): string {
  const types = new Set(objectsAt(objectAt(csr, 'status'), 'conditions').map((c) => c.type));
  let status = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) status += ',Failed';
  if (stringAt(objectAt(csr, 'status'), 'certificate') !== '') status += ',Issued';
  return status;
}

const csrColumns: TableColumn[] = [
  nameColumn,
  ageColumn,
  column('SignerName', (csr) => stringAt(objectAt(csr, 'spec'), 'signerName') || '<none>', {
    description: 'Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`.',
  }),
  column('Requestor', (csr) => stringAt(objectAt(csr, 'spec'), 'username'), {
    description: 'Base64-encoded PKCS#10 CSR data',
  }),
  column('RequestedDuration', (csr) => {
    const seconds = numberAt(objectAt(csr, 'spec'), 'expirationSeconds');
    return seconds === undefined ? '<none>' : humanDuration(seconds * 1000);
  }, { description: 'expirationSeconds is the requested duration of validity of the issued certificate.' }),
  column('Condition', csrCondition, {
    description: 'Conditions applied to the request, such as approval or denial.',
  }),
];

export function certificateSigningRequestsType(): ResourceType {
  return builtinType('certificates.k8s.io', 'v1', 'certificatesigningrequests', {
    strategy: csrStrategy,
    subresources: ['approval', 'status'],
    // Upstream's ValidateCertificateRequestName accepts any name a URL path segment can hold.
    nameRule: 'path-segment',
    tableColumns: csrColumns,
  });
}
