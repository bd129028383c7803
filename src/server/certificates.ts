// X.509 v3 certificates as the data dir's CAs and leaves need them (RFC 5280): ECDSA P-256
// keys and signatures from node:crypto, the DER from @oslojs/asn1. A general certificate
// library built, signed, serialised and parsed back four certificates in ~25 ms, a quarter
// of an in-process start; this writes one in about half a millisecond once warm.
import {
  ASN1BitString, ASN1Boolean, ASN1Class, ASN1EncodableSequence, ASN1EncodableSet, ASN1Form, ASN1GeneralizedTime, ASN1Integer,
  ASN1ObjectIdentifier, ASN1OctetString, ASN1PrintableString, ASN1UTCTime, ASN1UTF8String, ASN1Value, encodeASN1, encodeObjectIdentifier,
  parseASN1NoLeftoverBytes, type ASN1Encodable,
} from '@oslojs/asn1';
import { createHash, generateKeyPair, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIPv4 } from 'node:net';
import { promisify } from 'node:util';

/** A subject: its common name and organizations (the client-certificate authenticator's user and groups). */
export interface DistinguishedName {
  commonName: string;
  organizations?: readonly string[];
}

/** What signs a certificate: the issuer's key, and its subject and key identifier as its certificate has them. */
export interface Issuer {
  key: KeyObject;
  /** The issuer's subject, DER (written as the new certificate's issuer). */
  name: Uint8Array;
  keyId: Uint8Array | undefined;
}

export interface CertificateRequest {
  subject: DistinguishedName;
  publicKey: KeyObject;
  notBefore: Date;
  notAfter: Date;
  /** A CA (signs certificates and CRLs), or a leaf for TLS servers or clients. */
  usage: 'ca' | 'server' | 'client';
  /** The serving certificate's names and addresses. */
  hosts?: readonly string[];
  /** Signed by this issuer; self-signed (with the request's own key) when absent. */
  issuer?: Issuer;
  /** For a self-signed certificate: the key that signs it. */
  selfSigningKey?: KeyObject;
}

const oid = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

const utf8 = new TextEncoder();
const objectId = (id: string) => new ASN1ObjectIdentifier(encodeObjectIdentifier(id));
/** A context-specific tag around DER contents (`[n]`): constructed for an explicit tag, primitive for an implicit one of a primitive type. */
const tagged = (tag: number, form: ASN1Form, contents: Uint8Array) => new ASN1Value(ASN1Class.ContextSpecific, form, tag, contents);

/** A new ECDSA P-256 key pair, the only kind Plinth issues. */
export async function newKeyPair(): Promise<{ publicKey: KeyObject; privateKey: KeyObject }> {
  return await promisify(generateKeyPair)('ec', { namedCurve: 'prime256v1' });
}

/** As Go's crypto/x509 writes a name's values: PrintableString when every character is one, else UTF8String. */
function directoryString(value: string): ASN1Encodable {
  return /^[A-Za-z0-9 '()+,\-./:=?]*$/.test(value) ? new ASN1PrintableString(utf8.encode(value)) : new ASN1UTF8String(utf8.encode(value));
}

function encodeName(name: DistinguishedName): Uint8Array {
  const attribute = (type: string, value: string) => new ASN1EncodableSet([new ASN1EncodableSequence([objectId(type), directoryString(value)])]);
  return encodeASN1(new ASN1EncodableSequence([
    attribute(oid.commonName, name.commonName),
    ...(name.organizations ?? []).map((o) => attribute(oid.organization, o)),
  ]));
}

/** RFC 5280 4.1.2.5: UTCTime through 2049, GeneralizedTime after; whole seconds. */
function time(date: Date): ASN1Encodable {
  const year = date.getUTCFullYear();
  const parts = [date.getUTCMonth() + 1, date.getUTCDate(), date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds()] as const;
  return year >= 1950 && year < 2050 ? new ASN1UTCTime(year % 100, ...parts) : new ASN1GeneralizedTime(year, ...parts, 0);
}

/** A positive 127-bit serial with no leading zero byte to trim (RFC 5280 4.1.2.2). */
function serialNumber(): bigint {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x40;
  return BigInt('0x' + bytes.toString('hex'));
}

/** The key identifier of RFC 5280 4.2.1.2's first method: SHA-1 of the subjectPublicKey bits. */
function keyIdentifier(spki: ASN1Value): Uint8Array {
  const bits = spki.sequence().at(1).bitString();
  return createHash('sha1').update(bits.bytes).digest();
}

function extension(id: string, critical: boolean, value: ASN1Encodable): ASN1Encodable {
  return new ASN1EncodableSequence([objectId(id), ...(critical ? [new ASN1Boolean(true)] : []), new ASN1OctetString(encodeASN1(value))]);
}

/** A SAN entry: dNSName [2] or iPAddress [7], both implicit. */
function generalName(host: string): ASN1Encodable {
  if (isIPv4(host)) return tagged(7, ASN1Form.Primitive, Uint8Array.from(host.split('.').map(Number)));
  if (host.includes(':')) return tagged(7, ASN1Form.Primitive, ipv6Bytes(host));
  return tagged(2, ASN1Form.Primitive, utf8.encode(host));
}

/** The 16 bytes of an IPv6 address (as the URL parser canonicalises it; an embedded IPv4 tail included). */
function ipv6Bytes(host: string): Uint8Array {
  const canonical = new URL(`http://[${host}]/`).hostname.slice(1, -1);
  const [head, tail] = canonical.includes('::') ? canonical.split('::') as [string, string] : [canonical, undefined];
  const groups = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const all = [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  return bytes;
}

/** The certificate, DER. */
export function createCertificate(req: CertificateRequest): Uint8Array {
  const spki = parseASN1NoLeftoverBytes(req.publicKey.export({ type: 'spki', format: 'der' }));
  const subject = encodeName(req.subject);
  const signingKey = req.issuer?.key ?? req.selfSigningKey;
  if (signingKey === undefined) throw new Error('a certificate needs an issuer or a key to sign itself with');
  const ca = req.usage === 'ca';
  // keyUsage bits: digitalSignature (0), and for a CA keyCertSign (5) and cRLSign (6).
  const keyUsage = ca ? new ASN1BitString(Uint8Array.of(0b1000_0110), 7) : new ASN1BitString(Uint8Array.of(0b1000_0000), 1);
  const extensions: ASN1Encodable[] = [
    extension(oid.basicConstraints, true, new ASN1EncodableSequence(ca ? [new ASN1Boolean(true)] : [])),
    extension(oid.keyUsage, true, keyUsage),
  ];
  if (!ca) extensions.push(extension(oid.extKeyUsage, false, new ASN1EncodableSequence([objectId(req.usage === 'server' ? oid.serverAuth : oid.clientAuth)])));
  if (req.hosts !== undefined && req.hosts.length > 0) extensions.push(extension(oid.subjectAltName, false, new ASN1EncodableSequence(req.hosts.map(generalName))));
  extensions.push(extension(oid.subjectKeyIdentifier, false, new ASN1OctetString(keyIdentifier(spki))));
  const authorityKeyId = req.issuer?.keyId;
  if (authorityKeyId !== undefined) extensions.push(extension(oid.authorityKeyIdentifier, false, new ASN1EncodableSequence([tagged(0, ASN1Form.Primitive, authorityKeyId)])));
  const algorithm = new ASN1EncodableSequence([objectId(oid.ecdsaWithSha256)]);
  const tbs = encodeASN1(new ASN1EncodableSequence([
    tagged(0, ASN1Form.Constructed, encodeASN1(new ASN1Integer(2n))), // v3
    new ASN1Integer(serialNumber()),
    algorithm,
    parseASN1NoLeftoverBytes(req.issuer?.name ?? subject),
    new ASN1EncodableSequence([time(req.notBefore), time(req.notAfter)]),
    parseASN1NoLeftoverBytes(subject),
    spki,
    tagged(3, ASN1Form.Constructed, encodeASN1(new ASN1EncodableSequence(extensions))),
  ]));
  // node:crypto signs ECDSA in DER (ECDSA-Sig-Value), as the certificate carries it.
  const signature = sign('sha256', tbs, signingKey);
  return encodeASN1(new ASN1EncodableSequence([parseASN1NoLeftoverBytes(tbs), algorithm, new ASN1BitString(signature, signature.length * 8)]));
}

/** The subject (DER) and subject key identifier of a certificate (DER), to issue others with. */
export function issuerOf(certificate: Uint8Array, key: KeyObject): Issuer {
  const tbs = parseASN1NoLeftoverBytes(certificate).sequence().at(0).sequence();
  // An explicit version [0] comes first when present; then serial, signature, issuer, validity, subject.
  const offset = tbs.elements[0]!.class === ASN1Class.ContextSpecific ? 1 : 0;
  const name = encodeASN1(tbs.at(offset + 4));
  let keyId: Uint8Array | undefined;
  for (const element of tbs.elements) {
    if (element.class !== ASN1Class.ContextSpecific || element.tag !== 3) continue;
    for (const ext of parseASN1NoLeftoverBytes(element.contents()).sequence().elements) {
      const parts = ext.sequence().elements;
      if (!parts[0]!.objectIdentifier().is(oid.subjectKeyIdentifier)) continue;
      keyId = parseASN1NoLeftoverBytes(parts[parts.length - 1]!.octetString().value).octetString().value;
    }
  }
  return { key, name, keyId };
}

export function toPem(label: string, der: Uint8Array): string {
  const base64 = Buffer.from(der.buffer, der.byteOffset, der.byteLength).toString('base64');
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
