// certificates.k8s.io/v1 certificatesigningrequests, after kubernetes
// pkg/registry/certificates/certificates/strategy.go and pkg/apis/certificates/validation:
// the requesting user recorded on create, the spec immutable, approval through /approval
// and issuance through /status, and the printer's columns.

import { X509Certificate } from 'node:crypto';
import type { KubeObject, StatusCause, TableColumn } from '../../api/index.ts';
import { clone, isObject, type JsonObject } from '../../api/json.ts';
import { currentRequest } from '../../api/request-context.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { ageColumn, column, humanDuration, nameColumn } from '../table-columns.ts';
import { appendAll, duplicate, forbidden, index, invalid, notSupported, required, tooLong } from '../validation/field.ts';
import { isDNS1123Label } from '../validation/names.ts';
import { nowTimestamp } from './common.ts';
import { arrayAt, ensureObject, numberAt, objectAt, objectsAt, semanticEqual, stringAt } from './object.ts';
import { builtinType } from './skeleton.ts';

/** certificates.KeyUsage values upstream accepts. */
const validUsages = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment', 'decipher only',
  'digital signature', 'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement',
  'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping',
];

const legacyUnknownSigner = 'kubernetes.io/legacy-unknown';

/** The single PEM block of `text` of the given type, as Go's pem.Decode finds the first block. */
function pemBlock(text: string): { type: string; der: Buffer } | undefined {
  const match = /-----BEGIN ([^-\n]*)-----\r?\n([\s\S]*?)-----END \1-----/.exec(text);
  if (match === null) return undefined;
  const body = match[2]!.split(/\r?\n/).filter((line) => !line.includes(':')).join('');
  if (!/^[A-Za-z0-9+/=\s]*$/.test(body)) return undefined;
  return { type: match[1]!, der: Buffer.from(body, 'base64') };
}

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

/**
 * Whether `der` has PKCS #10's outer shape: SEQUENCE { SEQUENCE (the request info),
 * SEQUENCE (the signature algorithm), BIT STRING (the signature) } and nothing after it.
 */
function isCertificationRequest(der: Buffer): boolean {
  const outer = derElement(der, 0);
  if (outer === undefined || outer.tag !== 0x30 || outer.end !== der.length) return false;
  const tags = [0x30, 0x30, 0x03];
  let at = outer.start;
  for (const tag of tags) {
    const element = derElement(der, at);
    if (element === undefined || element.tag !== tag) return false;
    at = element.end;
  }
  return at === outer.end;
}

/** Upstream's ParseCSR: a PEM "CERTIFICATE REQUEST" block holding a PKCS #10 request. */
function requestError(request: unknown): string | undefined {
  const block = pemBlock(bytesOf(request));
  if (block === undefined || block.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  if (!isCertificationRequest(block.der)) return 'x509: malformed certificate request';
  return undefined;
}

/** Upstream's validateCertificate: empty, or PEM CERTIFICATE blocks only, each a certificate. */
function certificateError(certificate: unknown): string | undefined {
  let text = bytesOf(certificate);
  if (text === '') return undefined;
  let blocks = 0;
  for (;;) {
    const block = pemBlock(text);
    if (block === undefined) break;
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found "${block.type}"`;
    try {
      new X509Certificate(block.der);
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
    blocks++;
    text = text.slice(text.indexOf(`-----END CERTIFICATE-----`) + 25);
  }
  return blocks === 0 ? 'must contain at least one CERTIFICATE PEM block' : undefined;
}

/** Upstream's ValidateSignerName: a domain of two or more labels, a slash, and a path of labels. */
export function validateSignerName(path: string, signerName: string): StatusCause[] {
  if (signerName === '') return [required(path)];
  const segments = signerName.split('/');
  if (segments.length !== 2) {
    return [invalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  }
  const [domain, name] = segments as [string, string];
  const causes: StatusCause[] = [];
  if (domain.length > 253) causes.push(tooLong(path, 253));
  const domainLabels = domain.split('.');
  for (const label of domainLabels) {
    const errs = isDNS1123Label(label);
    if (errs.length === 0) continue;
    for (const msg of errs) causes.push(invalid(path, domain, `validating label ${JSON.stringify(label)}: ${msg}`));
    break;
  }
  if (domainLabels.length < 2) causes.push(invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const label of name.split('.')) {
    const errs = isDNS1123Label(label);
    if (errs.length === 0) continue;
    for (const msg of errs) causes.push(invalid(path, name, `validating label ${JSON.stringify(label)}: ${msg}`));
    break;
  }
  const maxName = 253 - domain.length - 1;
  if (name.length > maxName) causes.push(tooLong(path, maxName));
  return causes;
}

const conditionStatuses = ['False', 'True', 'Unknown'];

/** Upstream's validateConditions (v1 rules: Approved and Denied exclusive, both True-only, no duplicates). */
function validateConditions(csr: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const path = 'status.conditions';
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  objectsAt(objectAt(csr, 'status'), 'conditions').forEach((c, i) => {
    const type = stringAt(c, 'type');
    const status = stringAt(c, 'status');
    if (type === '') causes.push(required(`${index(path, i)}.type`));
    if (!conditionStatuses.includes(status)) causes.push(notSupported(`${index(path, i)}.status`, status, conditionStatuses));
    if (type === 'Approved' || type === 'Denied' || type === 'Failed') {
      if (type === 'Approved') {
        approved = true;
        if (denied) causes.push(invalid(path, type, 'Approved and Denied conditions are mutually exclusive'));
      }
      if (type === 'Denied') {
        denied = true;
        if (approved) causes.push(invalid(path, type, 'Approved and Denied conditions are mutually exclusive'));
      }
      if (status !== 'True') causes.push(notSupported(`${index(path, i)}.status`, status, ['True']));
    }
    if (seen.has(type)) causes.push(duplicate(`${index(path, i)}.type`, type));
    seen.add(type);
  });
  return causes;
}

/** Upstream's validateCSR (create rules; an update keeps what the stored object already had). */
export function validateCertificateSigningRequest(csr: KubeObject, old?: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = objectAt(csr, 'spec') ?? {};
  const requestProblem = requestError(spec.request);
  if (requestProblem !== undefined && !(old !== undefined && semanticEqual(spec.request, objectAt(old, 'spec')?.request))) {
    causes.push(invalid('spec.request', spec.request ?? null, requestProblem));
  }
  const usages = arrayAt(spec, 'usages');
  if (usages.length === 0) causes.push(required('spec.usages'));
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
  const seen = new Set<unknown>();
  usages.forEach((usage, i) => {
    if (seen.has(usage)) causes.push(duplicate(index('spec.usages', i), usage));
    seen.add(usage);
  });
  const signerName = stringAt(spec, 'signerName');
  if (signerName === legacyUnknownSigner) {
    causes.push(invalid('spec.signerName', signerName, 'the legacy signerName is not allowed via this API version'));
  } else {
    appendAll(causes, validateSignerName('spec.signerName', signerName));
  }
  const expiration = numberAt(spec, 'expirationSeconds');
  if (expiration !== undefined && expiration < 600) {
    causes.push(invalid('spec.expirationSeconds', expiration, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  appendAll(causes, validateConditions(csr));
  const certificate = objectAt(csr, 'status')?.certificate;
  const certProblem = certificateError(certificate);
  if (certProblem !== undefined) causes.push(invalid('status.certificate', '<certificate data>', certProblem));
  return causes;
}

function conditionsOf(csr: KubeObject, type: string): JsonObject[] {
  return objectsAt(objectAt(csr, 'status'), 'conditions').filter((c) => c.type === type);
}

/** Approved and Denied conditions may be added but neither removed nor changed (the approval update rules). */
function validateApprovalUpdate(csr: KubeObject, old: KubeObject): StatusCause[] {
  const causes = validateCertificateSigningRequest(csr, old);
  for (const type of ['Approved', 'Denied']) {
    const before = conditionsOf(old, type);
    const after = conditionsOf(csr, type);
    if (after.length < before.length) causes.push(forbidden('status.conditions', `updates may not remove a condition of type ${JSON.stringify(type)}`));
    before.forEach((condition, i) => {
      if (after[i] !== undefined && !semanticEqual(condition, after[i])) {
        causes.push(forbidden('status.conditions', `updates may not modify a condition of type ${JSON.stringify(type)}`));
      }
    });
  }
  return causes;
}

/** Sets lastUpdateTime where unset, and lastTransitionTime from the old condition of that type when its status is unchanged. */
function populateConditionTimestamps(csr: KubeObject, old: KubeObject): void {
  const now = nowTimestamp();
  // The first old condition of each type, looked up rather than searched for each condition.
  const oldConditions = new Map<unknown, JsonObject>();
  for (const o of objectsAt(objectAt(old, 'status'), 'conditions')) if (!oldConditions.has(o.type)) oldConditions.set(o.type, o);
  for (const c of objectsAt(objectAt(csr, 'status'), 'conditions')) {
    if (!c.lastUpdateTime) c.lastUpdateTime = now;
    if (c.lastTransitionTime) continue;
    const previous = oldConditions.get(c.type);
    c.lastTransitionTime = previous !== undefined && previous.status === c.status && previous.lastTransitionTime ? previous.lastTransitionTime : now;
  }
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
    }
    csr.status = {};
  },

  prepareForUpdate(csr, old) {
    csr.spec = clone(old.spec);
    if (old.status === undefined) delete csr.status;
    else csr.status = clone(old.status);
  },

  validate: (csr) => validateCertificateSigningRequest(csr),

  validateUpdate: (csr, old) => validateCertificateSigningRequest(csr, old),

  subresources: {
    // The issuer writes the certificate and other conditions; approval stays as it was.
    status: {
      prepareForUpdate(csr, old) {
        csr.spec = clone(old.spec);
        const status = ensureObject(csr as JsonObject, 'status');
        const kept = objectsAt(status, 'conditions').filter((c) => c.type !== 'Approved' && c.type !== 'Denied');
        const approval = objectsAt(objectAt(old, 'status'), 'conditions').filter((c) => c.type === 'Approved' || c.type === 'Denied');
        if (kept.length + approval.length > 0) status.conditions = [...clone(approval), ...kept];
        else delete status.conditions;
        populateConditionTimestamps(csr, old);
      },
      validateUpdate: (csr, old) => validateCertificateSigningRequest(csr, old),
    },
    // `kubectl certificate approve|deny`: only the conditions change.
    approval: {
      prepareForUpdate(csr, old) {
        const conditions = objectAt(csr, 'status')?.conditions;
        csr.spec = clone(old.spec);
        const status: JsonObject = isObject(old.status) ? clone(old.status) : {};
        if (conditions === undefined || conditions === null) delete status.conditions;
        else status.conditions = clone(conditions);
        csr.status = status;
        populateConditionTimestamps(csr, old);
      },
      validateUpdate: validateApprovalUpdate,
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
    tableColumns: csrColumns,
  });
}
