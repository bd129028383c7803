// The subject of a PEM certificate signing request (PKCS #10), as Go's
// x509.ParseCertificateRequest reads it: NodeRestriction holds a kubelet's CSRs to its
// own name, CertificateSubjectRestriction keeps system:masters out of client certificates.
import { ASN1UniversalType, parseASN1NoLeftoverBytes, type ASN1Value } from '@oslojs/asn1';
import { pemDecode } from '../api/go-pem.ts';

const commonNameOid = '2.5.4.3';
const organizationOid = '2.5.4.10';

export interface CsrSubject {
  /** The CN ('' when there is none; the last of several, as Go keeps the last). */
  commonName: string;
  /** Every O, in order. */
  organizations: string[];
}

/** The request's subject, or why it could not be read. */
export function csrSubject(pem: string): CsrSubject | { error: string } {
  // Upstream's ParseCSR: the first PEM block, which must be the request.
  const block = pemDecode(pem);
  if (block === undefined || block.type !== 'CERTIFICATE REQUEST') return { error: 'PEM block type must be CERTIFICATE REQUEST' };
  try {
    const request = parseASN1NoLeftoverBytes(block.der).sequence();
    // CertificationRequestInfo: version, subject (a sequence of RDN sets), key, attributes.
    const subject = request.at(0).sequence().at(1).sequence();
    const out: CsrSubject = { commonName: '', organizations: [] };
    for (const rdn of subject.elements) {
      for (const attribute of rdn.set().elements) {
        const pair = attribute.sequence();
        const type = pair.at(0).objectIdentifier();
        if (type.is(commonNameOid)) out.commonName = text(pair.at(1));
        else if (type.is(organizationOid)) out.organizations.push(text(pair.at(1)));
      }
    }
    return out;
  } catch (err) {
    return { error: `asn1: ${(err as Error).message}` };
  }
}

/** A directory string's text: UTF-8, printable, IA5 and T.61 strings as bytes, BMP strings as UTF-16. */
function text(value: ASN1Value): string {
  const bytes = Buffer.from(value.contents());
  if (value.tag === 30) return bytes.swap16().toString('utf16le');
  return value.tag === ASN1UniversalType.UTF8String ? bytes.toString('utf8') : bytes.toString('latin1');
}
