// core/v1 serviceaccounts: metadata rules only (upstream's ValidateServiceAccount), secret
// references kept to their names, the deprecated mountable-secrets annotation warned of, and
// the token subresource.

import type { KubeObject } from '../../api/index.ts';
import { isObject } from '../../api/json.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { builtinType } from './skeleton.ts';
import { validateKubeFinalizerNames } from '../validation/object-meta.ts';
import { serviceAccountColumns } from './table-columns.ts';

const enforceMountableSecrets = 'kubernetes.io/enforce-mountable-secrets';

/** Upstream's cleanSecretReferences: a secret is referred to by its name alone. */
function keepSecretNames(sa: KubeObject): void {
  if (!Array.isArray(sa.secrets)) return;
  sa.secrets = sa.secrets.map((ref) => (isObject(ref) && typeof ref.name === 'string' && ref.name !== '' ? { name: ref.name } : {}));
}

/** The annotation's deprecation, when a write newly sets it. */
function mountableSecretsWarnings(sa: KubeObject, old?: KubeObject): string[] {
  if (old?.metadata.annotations?.[enforceMountableSecrets] !== undefined) return [];
  if (sa.metadata.annotations?.[enforceMountableSecrets] === undefined) return [];
  return [`metadata.annotations[${enforceMountableSecrets}]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets`];
}

const serviceAccountStrategy: Strategy = {
  prepareForCreate: keepSecretNames,
  prepareForUpdate: keepSecretNames,
  validate(sa) {
    return validateKubeFinalizerNames(sa.metadata.finalizers, 'metadata.finalizers');
  },
  warningsOnCreate: (sa) => mountableSecretsWarnings(sa),
  warningsOnUpdate: mountableSecretsWarnings,
};

export function serviceAccountsType(): ResourceType {
  return builtinType('', 'v1', 'serviceaccounts', {
    // POST serviceaccounts/{name}/token: a TokenRequest (endpoints/handlers/authentication.ts).
    subresources: ['token'],
    strategy: serviceAccountStrategy,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    deleteReturnsObject: true, // upstream's registry sets ReturnDeletedObject
    nameRule: 'dns1123-subdomain',
    tableColumns: serviceAccountColumns,
  });
}
