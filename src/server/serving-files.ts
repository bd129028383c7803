// A serving certificate of the operator's own (`--tls-cert-file`, `--tls-private-key-file`),
// read and checked as upstream's dynamic serving content reads it: both files non-empty,
// the key matching the certificate, errors in Go's crypto/tls words.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { isIP } from 'node:net';
import { isDNS1123Subdomain } from '../api/labels.ts';
import { readFile } from 'node:fs/promises';
import type { ServingMaterial } from './tls-material.ts';

const pemBlock = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/** The name upstream gives the content in its errors: `serving-cert::<cert>::<key>`. */
export function servingContentName(certFile: string, keyFile: string): string {
  return `serving-cert::${certFile}::${keyFile}`;
}

/**
 * The files' certificate chain and key, and the certificate clients are told to trust: the
 * chain's last (its root when the file holds it; Go's clients take any certificate of a
 * chain as its anchor). Throws when a file cannot be read, is empty, or does not hold a
 * certificate and its key.
 */
export async function readServingFiles(certFile: string, keyFile: string): Promise<ServingMaterial> {
  const [certPem, keyPem] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
  if (certPem.length === 0 || keyPem.length === 0) throw new Error(`missing content for serving cert "${servingContentName(certFile, keyFile)}"`);
  const certificates = [...certPem.matchAll(pemBlock)].filter((m) => m[1] === 'CERTIFICATE').map((m) => m[0]);
  if (certificates.length === 0) throw new Error('tls: failed to find any PEM data in certificate input');
  if (![...keyPem.matchAll(pemBlock)].some((m) => m[1]!.endsWith('PRIVATE KEY'))) throw new Error('tls: failed to find any PEM data in key input');
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(certificates[0]!);
    for (const pem of certificates.slice(1)) new X509Certificate(pem);
  } catch (err) {
    throw new Error(`tls: failed to parse certificate: ${(err as Error).message}`);
  }
  let matches: boolean;
  try {
    matches = leaf.checkPrivateKey(createPrivateKey(keyPem));
  } catch (err) {
    throw new Error(`tls: failed to parse private key: ${(err as Error).message}`);
  }
  if (!matches) throw new Error('tls: private key does not match public key');
  return { certPem, keyPem, caPem: `${certificates[certificates.length - 1]!}\n` };
}

/**
 * The names an SNI certificate serves when none are given, as upstream reads them: its common
 * name when that is a domain (or `*`) and not an IP address, then its DNS names (IP addresses
 * never: SNI does not carry them).
 */
export function certificateNames(certPem: string): string[] {
  const cert = new X509Certificate(certPem);
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(cert.subject)?.[1] ?? '';
  const names: string[] = [];
  if (cn !== '' && isIP(cn) === 0 && (cn === '*' || isDNS1123Subdomain(cn.replace(/^\*\./, '')).length === 0)) names.push(cn);
  for (const entry of (cert.subjectAltName ?? '').split(', ')) {
    if (entry.startsWith('DNS:')) names.push(entry.slice(4));
  }
  return names;
}
