// Bootstrap token authentication (`--enable-bootstrap-token-auth`), as upstream's
// plugin/pkg/auth/authenticator/token/bootstrap, the tokens `kubeadm join` uses: a bearer token
// `<id>.<secret>` names user `system:bootstrap:<id>` in `system:bootstrappers` (and the
// secret's `auth-extra-groups`) when kube-system holds the Secret `bootstrap-token-<id>` of
// type `bootstrap.kubernetes.io/token` with that secret, usable for authentication and not
// expired. Anything else about the token names nobody (the next authenticator, then 401).
import { timingSafeEqual } from 'node:crypto';
import type { TokenAuthenticator } from './authenticate.ts';
import type { UserInfo } from './user.ts';

/** A Secret as the authenticator reads it (its type, data base64-decoded, deletion). */
export interface BootstrapSecret {
  type: string;
  data: Readonly<Record<string, string>>;
  deleting: boolean;
}

/** Looks a Secret up in kube-system by name (undefined when there is none). */
export type BootstrapSecretGetter = (name: string) => Promise<BootstrapSecret | undefined>;

const tokenPattern = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const extraGroupPattern = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function bootstrapTokenAuthenticator(getSecret: BootstrapSecretGetter, now: () => number = Date.now): TokenAuthenticator {
  return (token) => {
    const match = tokenPattern.exec(token);
    if (match === null) return undefined;
    const [, id, secretPart] = match as unknown as [string, string, string];
    return (async () => {
      const secret = await getSecret(`bootstrap-token-${id}`);
      if (secret === undefined || secret.deleting || secret.type !== 'bootstrap.kubernetes.io/token') return undefined;
      const data = secret.data;
      if (!sameSecret(data['token-secret'] ?? '', secretPart) || data['token-id'] !== id) return undefined;
      const expiration = data.expiration;
      if (expiration !== undefined && expiration !== '') {
        const at = Date.parse(expiration);
        // An expiration that does not parse counts as expired, as upstream's.
        if (Number.isNaN(at) || at < now()) return undefined;
      }
      if (data['usage-bootstrap-authentication'] !== 'true') return undefined;
      const extraGroups = data['auth-extra-groups'] ?? '';
      const extra = extraGroups === '' ? [] : extraGroups.split(',');
      if (extra.some((g) => !extraGroupPattern.test(g))) return undefined;
      // A set's sorted list, as upstream's.
      const groups = [...new Set(['system:bootstrappers', ...extra])].sort();
      const user: UserInfo = { name: `system:bootstrap:${id}`, uid: '', groups };
      return { user };
    })();
  };
}
