// The CA and serving certificate, and the client CA with the admin's client certificate, created once in the data dir.
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { isIPv4 } from 'node:net';
import { dirname, join } from 'node:path';
import { readIfPresent } from '../api/read-if-present.ts';
import { createCertificate, issuerOf, newKeyPair, toPem, type DistinguishedName, type Issuer } from './certificates.ts';
import { writeFileAtomic, type FileWriteOptions } from './write-file-atomic.ts';

/** PEM texts for `tls.createSecureServer({ cert: certPem, key: keyPem })` and for clients' trust. */
export interface ServingMaterial {
  caPem: string;
  certPem: string;
  keyPem: string;
}

export interface ServingMaterialOptions extends FileWriteOptions {
  /** Names and addresses the serving certificate covers besides localhost, 127.0.0.1 and ::1. */
  hosts?: string[];
}

const defaultHosts = ['localhost', '127.0.0.1', '::1'];
const caCommonName = 'plinth-ca';
const servingCommonName = 'plinth-apiserver';
const clientCaCommonName = 'plinth-client-ca';
const frontProxyCaCommonName = 'plinth-front-proxy-ca';
const hourMs = 60 * 60 * 1000;
const dayMs = 24 * hourMs;
const caLifetimeMs = 3650 * dayMs;
const servingLifetimeMs = 365 * dayMs;
/** A serving certificate this close to expiry is reissued at start rather than left to lapse while serving. */
const renewBeforeMs = 30 * dayMs;
/** Like client-go's self-signed certificates: valid from an hour ago, so a client whose clock is a little behind accepts it. */
const backdateMs = hourMs;

interface Paths {
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
}

function pathsIn(dataDir: string): Paths {
  const dir = join(dataDir, 'pki');
  return {
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    servingCert: join(dir, 'apiserver.crt'),
    servingKey: join(dir, 'apiserver.key'),
  };
}

/**
 * The CA and serving certificate of the data dir, created on first use in `<dataDir>/pki/`.
 *
 * Later calls only read and check the files with `node:crypto` (a few milliseconds). The
 * serving certificate is reissued by the existing CA when it is
 * missing, does not match its key or the CA, expires within 30 days, or does not cover
 * every requested host; the CA is recreated only when it is missing or expired.
 */
export async function ensureServingMaterial(dataDir: string, opts: ServingMaterialOptions = {}): Promise<ServingMaterial> {
  const paths = pathsIn(dataDir);
  const hosts = servingHosts(opts.hosts ?? []);
  const now = Date.now();

  const caPem = readIfPresent(paths.caCert);
  const ca = caPem === undefined ? undefined : parseCertificate(caPem, paths.caCert);
  const caUsable = ca !== undefined && Date.parse(ca.validTo) > now;
  if (caUsable) {
    const certPem = readIfPresent(paths.servingCert);
    const keyPem = readIfPresent(paths.servingKey);
    if (certPem !== undefined && keyPem !== undefined && servingIsUsable(certPem, keyPem, ca, hosts, now)) {
      return { caPem: caPem!, certPem, keyPem };
    }
  }
  return await issue(paths, hosts, caUsable ? caPem : undefined, { sync: opts.sync });
}

/**
 * The SAN entries: the defaults plus `extra`, deduplicated, IPv6 brackets removed, and
 * unspecified bind addresses (0.0.0.0, ::) skipped, so a listener's bind address can be
 * passed as it is.
 */
export function servingHosts(extra: string[]): string[] {
  const hosts: string[] = [];
  for (const raw of [...defaultHosts, ...extra]) {
    let host = raw.trim();
    if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
    if (host === '') continue;
    if (ipVersion(host) !== 0) {
      if (host === '0.0.0.0' || host === '::') continue;
    } else {
      host = host.toLowerCase();
      if (!/^(\*\.)?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/.test(host)) {
        throw new Error(`serving certificate host ${JSON.stringify(raw)} is neither an IP address nor a DNS name`);
      }
    }
    if (!hosts.includes(host)) hosts.push(host);
  }
  return hosts;
}

/**
 * net.isIP's answer, without its IPv6 expression, whose first use costs milliseconds at
 * start-up (and about one for every name it is not): only a candidate made of hex digits,
 * colons and dots is tried as IPv6, by the URL parser.
 */
function ipVersion(host: string): 0 | 4 | 6 {
  if (isIPv4(host)) return 4;
  if (!host.includes(':') || !/^[0-9a-fA-F:.]+$/.test(host)) return 0;
  return URL.canParse(`http://[${host}]/`) ? 6 : 0;
}

function parseCertificate(pem: string, path: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch (err) {
    throw new Error(`${path} is not a PEM certificate (${(err as Error).message}); remove it to have a new one created`);
  }
}

function parsePrivateKey(pem: string, path: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch (err) {
    throw new Error(`${path} is not a PEM private key (${(err as Error).message}); remove it to have a new one created`);
  }
}

function servingIsUsable(certPem: string, keyPem: string, ca: X509Certificate, hosts: string[], now: number): boolean {
  let cert: X509Certificate;
  let key: KeyObject;
  try {
    cert = new X509Certificate(certPem);
    key = createPrivateKey(keyPem);
  } catch {
    return false; // unreadable: reissue
  }
  if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return false;
  if (!cert.checkPrivateKey(key)) return false;
  if (Date.parse(cert.validTo) - now < renewBeforeMs) return false;
  return hosts.every((host) => (ipVersion(host) !== 0 ? cert.checkIP(host) !== undefined : sanDnsNames(cert).includes(host)));
}

/** DNS names exactly as listed (checkHost would let a wildcard entry cover a requested name). */
function sanDnsNames(cert: X509Certificate): string[] {
  const names: string[] = [];
  for (const entry of (cert.subjectAltName ?? '').split(', ')) {
    if (entry.startsWith('DNS:')) names.push(entry.slice(4).toLowerCase());
  }
  return names;
}

interface SigningCa {
  caPem: string;
  issuer: Issuer;
  /** When the CA expires: no certificate it signs outlives it. */
  notAfter: number;
}

/** The CA at `certPath`/`keyPath` when `existingCaPem` (usable) and its key are there, else a new one written there. */
async function signingCa(certPath: string, keyPath: string, commonName: string, existingCaPem: string | undefined, write: FileWriteOptions = {}): Promise<SigningCa> {
  const now = Date.now();
  await mkdir(dirname(keyPath), { recursive: true, mode: 0o700 });
  const existingCaKeyPem = existingCaPem === undefined ? undefined : readIfPresent(keyPath);
  if (existingCaPem !== undefined && existingCaKeyPem !== undefined) {
    const key = parsePrivateKey(existingCaKeyPem, keyPath);
    const caCert = new X509Certificate(existingCaPem);
    if (!caCert.checkPrivateKey(key)) {
      throw new Error(`${keyPath} does not belong to ${certPath}; remove both to have a new CA created`);
    }
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
      throw new Error(`${keyPath} is not an ECDSA P-256 key, the only kind Plinth signs with; remove the pki folder to have a new CA created`);
    }
    return { caPem: existingCaPem, issuer: issuerOf(caCert.raw, key), notAfter: Date.parse(caCert.validTo) };
  }
  const keys = await newKeyPair();
  const notAfter = now + caLifetimeMs;
  const der = createCertificate({
    subject: { commonName }, publicKey: keys.publicKey, selfSigningKey: keys.privateKey, usage: 'ca',
    notBefore: new Date(now - backdateMs), notAfter: new Date(notAfter),
  });
  const caPem = toPem('CERTIFICATE', der) + '\n';
  // The key first: a CA certificate on disk always has its key beside it.
  writeFileAtomic(keyPath, privateKeyPem(keys.privateKey), 0o600, write);
  writeFileAtomic(certPath, caPem, 0o644, write);
  return { caPem, issuer: issuerOf(der, keys.privateKey), notAfter: Math.floor(notAfter / 1000) * 1000 };
}

function privateKeyPem(key: KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }) as string;
}

/** A leaf certificate and its new key, signed by `ca`, for `usage` (serving, with `hosts`, or client). */
async function issueLeaf(ca: SigningCa, subject: DistinguishedName, usage: 'server' | 'client', lifetimeMs: number, hosts?: string[]): Promise<{ certPem: string; keyPem: string }> {
  const now = Date.now();
  const keys = await newKeyPair();
  const der = createCertificate({
    subject, publicKey: keys.publicKey, issuer: ca.issuer, usage, hosts,
    notBefore: new Date(now - backdateMs), notAfter: new Date(Math.min(now + lifetimeMs, ca.notAfter)),
  });
  return { certPem: toPem('CERTIFICATE', der) + '\n', keyPem: privateKeyPem(keys.privateKey) };
}

async function issue(paths: Paths, hosts: string[], existingCaPem: string | undefined, write: FileWriteOptions): Promise<ServingMaterial> {
  const ca = await signingCa(paths.caCert, paths.caKey, caCommonName, existingCaPem, write);
  const { certPem, keyPem } = await issueLeaf(ca, { commonName: servingCommonName }, 'server', servingLifetimeMs, hosts);
  writeFileAtomic(paths.servingKey, keyPem, 0o600, write);
  writeFileAtomic(paths.servingCert, certPem, 0o644, write);
  return { caPem: ca.caPem, certPem, keyPem };
}

/** The client CA and the admin's client certificate, PEM. */
export interface ClientMaterial {
  clientCaPem: string;
  adminCertPem: string;
  adminKeyPem: string;
}

/** The admin's client certificate names this user in these groups (kubeadm's kubernetes-admin, in system:masters as before kubeadm 1.29). */
export const adminCertificateUser = { name: 'kubernetes-admin', groups: ['system:masters'] };

/**
 * The client CA (`<dataDir>/pki/client-ca.crt`, the default `--client-ca-file`) and the
 * admin's client certificate it signs (`pki/admin.crt`, CN=kubernetes-admin,
 * O=system:masters), created on first use like the serving material; the admin
 * certificate is reissued when missing, not signed by the CA, or within 30 days of expiry.
 */
export async function ensureClientMaterial(dataDir: string, write: FileWriteOptions = {}): Promise<ClientMaterial> {
  const subject = { commonName: adminCertificateUser.name, organizations: adminCertificateUser.groups };
  const { caPem, certPem, keyPem } = await ensureCaAndClient(join(dataDir, 'pki'), { ca: 'client-ca', leaf: 'admin' }, clientCaCommonName, subject, write);
  return { clientCaPem: caPem, adminCertPem: certPem, adminKeyPem: keyPem };
}

/** The front-proxy CA and the client certificate the API server proxies to extension API servers with. */
export interface FrontProxyMaterial {
  caPem: string;
  certPem: string;
  keyPem: string;
}

/** The common name of the front-proxy client certificate (kubeadm's), which `--requestheader-allowed-names` names. */
export const frontProxyClientName = 'front-proxy-client';

/**
 * The front-proxy CA (`<dataDir>/pki/front-proxy-ca.crt`, the default
 * `--requestheader-client-ca-file`) and the client certificate it signs
 * (`pki/front-proxy-client.crt`, CN=front-proxy-client, the default `--proxy-client-cert-file`),
 * as kubeadm makes them, created on first use and renewed as the admin's.
 */
export async function ensureFrontProxyMaterial(dataDir: string, write: FileWriteOptions = {}): Promise<FrontProxyMaterial> {
  return ensureCaAndClient(join(dataDir, 'pki'), { ca: 'front-proxy-ca', leaf: 'front-proxy-client' }, frontProxyCaCommonName, { commonName: frontProxyClientName }, write);
}

/**
 * A CA (`<name.ca>.crt`/`.key` in `dir`) and a client certificate it signs (`<name.leaf>.crt`/`.key`),
 * created on first use; the certificate is reissued when missing, not signed by the CA, or
 * within 30 days of expiry.
 */
async function ensureCaAndClient(dir: string, names: { ca: string; leaf: string }, caCommonName: string, subject: DistinguishedName, write: FileWriteOptions): Promise<FrontProxyMaterial> {
  const caCertPath = join(dir, `${names.ca}.crt`);
  const caKeyPath = join(dir, `${names.ca}.key`);
  const leafCertPath = join(dir, `${names.leaf}.crt`);
  const leafKeyPath = join(dir, `${names.leaf}.key`);
  const now = Date.now();
  const caPem = readIfPresent(caCertPath);
  const ca = caPem === undefined ? undefined : parseCertificate(caPem, caCertPath);
  const caUsable = ca !== undefined && Date.parse(ca.validTo) > now;
  if (caUsable) {
    const certPem = readIfPresent(leafCertPath);
    const keyPem = readIfPresent(leafKeyPath);
    if (certPem !== undefined && keyPem !== undefined && leafIsUsable(certPem, keyPem, ca, now)) return { caPem: caPem!, certPem, keyPem };
  }
  const signing = await signingCa(caCertPath, caKeyPath, caCommonName, caUsable ? caPem : undefined, write);
  const { certPem, keyPem } = await issueLeaf(signing, subject, 'client', servingLifetimeMs);
  writeFileAtomic(leafKeyPath, keyPem, 0o600, write);
  writeFileAtomic(leafCertPath, certPem, 0o644, write);
  return { caPem: signing.caPem, certPem, keyPem };
}

/**
 * A client certificate for `user` in `groups` (CN and O, as the client-certificate
 * authenticator reads them), signed by the data dir's client CA. The CA must be there
 * and usable (a server started on the data dir made it): a new one would not be
 * trusted by a server already running.
 */
export async function issueClientCertificate(dataDir: string, user: string, groups: readonly string[]): Promise<{ certPem: string; keyPem: string; clientCaPem: string }> {
  const dir = join(dataDir, 'pki');
  const caCertPath = join(dir, 'client-ca.crt');
  const caKeyPath = join(dir, 'client-ca.key');
  const caPem = readIfPresent(caCertPath);
  const ca = caPem === undefined ? undefined : parseCertificate(caPem, caCertPath);
  if (ca === undefined || Date.parse(ca.validTo) <= Date.now() || readIfPresent(caKeyPath) === undefined) {
    throw new Error(`no usable client CA and key in ${dir}: start the server on this data dir once`);
  }
  const signing = await signingCa(caCertPath, caKeyPath, clientCaCommonName, caPem);
  const { certPem, keyPem } = await issueLeaf(signing, { commonName: user, organizations: groups }, 'client', servingLifetimeMs);
  return { certPem, keyPem, clientCaPem: signing.caPem };
}

function leafIsUsable(certPem: string, keyPem: string, ca: X509Certificate, now: number): boolean {
  try {
    const cert = new X509Certificate(certPem);
    const key = createPrivateKey(keyPem);
    return cert.checkIssued(ca) && cert.verify(ca.publicKey) && cert.checkPrivateKey(key) && Date.parse(cert.validTo) - now >= renewBeforeMs;
  } catch {
    return false;
  }
}
