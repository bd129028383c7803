// The certificate admission plugins on by default upstream (plugin/pkg/admission/certificates):
// CertificateApproval (approving or denying a CSR needs `approve` on its signer),
// CertificateSigning (writing its certificate or conditions through /status needs `sign`),
// CertificateSubjectRestriction (no kube-apiserver-client certificate for system:masters).
// A signer is authorized as the `signers` resource of certificates.k8s.io named by the
// signer, or by its domain with `/*` (`kubernetes.io/*`). In-process writes are not checked.
import type { KubeObject } from '../api/index.ts';
import { goQuote } from '../api/field-errors.ts';
import { deepEqual, isObject } from '../api/json.ts';
import { currentRequest, type RequestUser } from '../api/request-context.ts';
import { unless, type AdmissionAttributes, type AdmissionPlugin } from './chain.ts';
import { admissionForbidden } from './forbidden.ts';
import { csrSubject } from './csr-subject.ts';

/** Whether the server's authorizer allows `user` the verb on the named `signers` of certificates.k8s.io. */
export type SignerAuthorizer = (user: RequestUser, verb: string, signerName: string) => Promise<boolean>;

const group = 'certificates.k8s.io';

function isCsrWrite(attrs: AdmissionAttributes, subresource: string): boolean {
  return attrs.group === group && attrs.resource === 'certificatesigningrequests' && attrs.subresource === subresource && attrs.object !== undefined;
}

/** Upstream's IsAuthorizedForSignerName: the signer's own name, else its domain's wildcard. */
async function authorizedFor(authorize: SignerAuthorizer, user: RequestUser, verb: string, signerName: string): Promise<boolean> {
  if (await authorize(user, verb, signerName)) return true;
  return authorize(user, verb, `${signerName.split('/')[0]}/*`);
}

function signerOf(csr: KubeObject): string {
  return isObject(csr.spec) && typeof csr.spec.signerName === 'string' ? csr.spec.signerName : '';
}

export function certificateApproval(authorize: SignerAuthorizer): AdmissionPlugin {
  return {
    name: 'CertificateApproval',
    validate: unless((attrs) => attrs.operation !== 'UPDATE' || !isCsrWrite(attrs, 'approval') || currentRequest() === undefined, async (attrs) => {
      // The stored object's signer, as upstream: the body's is not the one the approval is for.
      const signer = signerOf(attrs.oldObject ?? attrs.object!);
      if (!(await authorizedFor(authorize, currentRequest()!.user, 'approve', signer))) {
        throw admissionForbidden(attrs, `user not permitted to approve requests with signerName ${goQuote(signer)}`);
      }
    }),
  };
}

export function certificateSigning(authorize: SignerAuthorizer): AdmissionPlugin {
  const unchanged = (attrs: AdmissionAttributes) => {
    const before = isObject(attrs.oldObject?.status) ? attrs.oldObject.status : {};
    const after = isObject(attrs.object?.status) ? attrs.object.status : {};
    return (before.certificate ?? '') === (after.certificate ?? '') && deepEqual(before.conditions ?? [], after.conditions ?? []);
  };
  return {
    name: 'CertificateSigning',
    validate: unless((attrs) => attrs.operation !== 'UPDATE' || !isCsrWrite(attrs, 'status') || attrs.oldObject === undefined || currentRequest() === undefined || unchanged(attrs), async (attrs) => {
      const signer = signerOf(attrs.oldObject!);
      if (!(await authorizedFor(authorize, currentRequest()!.user, 'sign', signer))) {
        throw admissionForbidden(attrs, `user not permitted to sign requests with signerName ${goQuote(signer)}`);
      }
    }),
  };
}

const apiServerClientSigner = 'kubernetes.io/kube-apiserver-client';

export function certificateSubjectRestriction(): AdmissionPlugin {
  return {
    name: 'CertificateSubjectRestriction',
    validate(attrs) {
      if (attrs.operation !== 'CREATE' || !isCsrWrite(attrs, '') || signerOf(attrs.object!) !== apiServerClientSigner) return;
      const spec = attrs.object!.spec as { request?: unknown };
      const subject = csrSubject(typeof spec.request === 'string' ? Buffer.from(spec.request, 'base64').toString('latin1') : '');
      if ('error' in subject) throw admissionForbidden(attrs, `failed to parse CSR: ${subject.error}`);
      if (subject.organizations.includes('system:masters')) {
        throw admissionForbidden(attrs, `use of ${apiServerClientSigner} signer with system:masters group is not allowed`);
      }
    },
  };
}
