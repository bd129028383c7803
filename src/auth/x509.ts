// Client certificate authentication: a TLS client certificate signed by the client CA names a user (CN) and groups (O).
import { AuthenticationFailure, type Authenticator } from './authenticate.ts';

/** The extended key usage a client certificate must allow, when it lists any. */
const clientAuthUsage = '1.3.6.1.5.5.7.3.2';

/** The extra attribute upstream gives users a credential identifies (the certificate's fingerprint here, a token's jti). */
export const credentialIdKey = 'authentication.kubernetes.io/credential-id';

/**
 * As upstream's x509 authenticator with CommonNameUserConversion: a certificate the TLS
 * handshake verified against the client CA (`--client-ca-file`) names user CN, groups
 * O, and carries its fingerprint as credential id (`X509SHA256=<hex>`). One that does
 * not verify, or is not for client authentication, is a failure (401); one without a
 * common name names nobody, so other credentials or anonymous apply.
 */
export function clientCertificateAuthenticator(): Authenticator {
  return ({ clientCertificate: cert }) => {
    if (cert === undefined) return undefined;
    if (!cert.verified) {
      throw new AuthenticationFailure(`verifying certificate failed: ${cert.verificationError ?? 'x509: certificate signed by unknown authority'}`);
    }
    if (cert.extendedKeyUsage !== undefined && !cert.extendedKeyUsage.includes(clientAuthUsage)) {
      throw new AuthenticationFailure('verifying certificate failed: x509: certificate specifies an incompatible key usage');
    }
    if (cert.commonName === '') return undefined;
    return {
      user: {
        name: cert.commonName,
        uid: '',
        groups: [...cert.organizations],
        extra: { [credentialIdKey]: [`X509SHA256=${cert.fingerprint256.replaceAll(':', '').toLowerCase()}`] },
      },
    };
  };
}
