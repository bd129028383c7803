// core/v1 secrets, after kubernetes pkg/registry/core/secret/strategy.go and
// pkg/apis/core/validation's ValidateSecret(Update).

import type { KubeObject, StatusCause } from '../../api/index.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { builtinType } from './skeleton.ts';
import { fieldImmutable, forbidden, goJson, invalid, key, required, tooLong } from '../validation/field.ts';
import { isConfigMapKey } from '../validation/names.ts';
import { validateKubeFinalizerNames } from '../validation/object-meta.ts';
import { isImmutable } from './common.ts';
import { base64Length, immutableMessage, maxDataSize } from './configmaps.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import { ensureObject, mapsEqual, objectAt, stringAt } from './object.ts';
import { secretColumns } from './table-columns.ts';
import { x509KeyPairError } from './tls-key-pair.ts';

/**
 * SetDefaults_Secret (type Opaque) and the v1 → internal conversion: stringData is
 * written into data (base64) and is never stored.
 */
function prepareSecret(secret: KubeObject): void {
  const s = secret as JsonObject;
  if (!s.type) s.type = 'Opaque';
  const stringData = objectAt(s, 'stringData');
  if (stringData !== undefined && Object.keys(stringData).length > 0) {
    const data = ensureObject(s, 'data');
    for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
  }
  delete s.stringData;
}

function decoded(data: JsonObject, k: string): Buffer | undefined {
  const v = data[k];
  return typeof v === 'string' ? Buffer.from(v, 'base64') : undefined;
}

function validateSecret(secret: KubeObject): StatusCause[] {
  const causes = validateKubeFinalizerNames(secret.metadata.finalizers, 'metadata.finalizers');
  const data = objectAt(secret, 'data') ?? {};
  let total = 0;
  for (const [k, v] of Object.entries(data)) {
    for (const msg of isConfigMapKey(k)) causes.push(invalid(key('data', k), k, msg));
    total += base64Length(typeof v === 'string' ? v : '');
  }
  if (total > maxDataSize) causes.push(tooLong('data', maxDataSize));

  const has = (k: string) => Object.hasOwn(data, k);
  const jsonKey = (k: string) => {
    const bytes = decoded(data, k);
    if (bytes === undefined) {
      causes.push(required(key('data', k)));
      return;
    }
    try {
      const parsed: unknown = JSON.parse(bytes.toString('utf8'));
      if (!isObject(parsed)) throw new Error('json: cannot unmarshal into Go value of type map[string]interface {}');
    } catch (err) {
      causes.push(invalid(key('data', k), '<secret contents redacted>', (err as Error).message));
    }
  };
  switch (stringAt(secret, 'type')) {
    case 'kubernetes.io/service-account-token':
      if (!secret.metadata.annotations?.['kubernetes.io/service-account.name']) {
        causes.push(required('metadata.annotations[kubernetes.io/service-account.name]'));
      }
      break;
    case 'kubernetes.io/dockercfg':
      jsonKey('.dockercfg');
      break;
    case 'kubernetes.io/dockerconfigjson':
      jsonKey('.dockerconfigjson');
      break;
    case 'kubernetes.io/basic-auth':
      // Either may be empty, but one must be there.
      if (!has('username') && !has('password')) {
        causes.push(required(key('data', 'username')));
        causes.push(required(key('data', 'password')));
      }
      break;
    case 'kubernetes.io/ssh-auth':
      if ((decoded(data, 'ssh-privatekey')?.length ?? 0) === 0) causes.push(required(key('data', 'ssh-privatekey')));
      break;
    case 'kubernetes.io/tls':
      if (!has('tls.crt')) causes.push(required(key('data', 'tls.crt')));
      if (!has('tls.key')) causes.push(required(key('data', 'tls.key')));
      break;
  }
  return causes;
}

/** Upstream's warningsForSecret: a TLS Secret whose certificate and key Go's tls.X509KeyPair refuses. */
function tlsWarnings(secret: KubeObject): string[] {
  if (stringAt(secret, 'type') !== 'kubernetes.io/tls') return [];
  const data = objectAt(secret, 'data') ?? {};
  const error = x509KeyPairError(decoded(data, 'tls.crt') ?? Buffer.alloc(0), decoded(data, 'tls.key') ?? Buffer.alloc(0));
  return error === undefined ? [] : [error];
}

const secretStrategy: Strategy = {
  // The type's default and v1's conversion, which folds stringData into data.
  defaults: prepareSecret,

  validate: validateSecret,

  validateUpdate(secret, old) {
    const causes: StatusCause[] = [];
    const type = stringAt(secret, 'type');
    // core.SecretType is a typed string: json.Marshal writes it, not %q.
    if (type !== stringAt(old, 'type')) causes.push(invalid('type', goJson(type), fieldImmutable));
    if (isImmutable(old)) {
      if (!isImmutable(secret)) causes.push(forbidden('immutable', immutableMessage));
      if (!mapsEqual(secret.data, old.data)) causes.push(forbidden('data', immutableMessage));
    }
    return causes;
  },

  warningsOnCreate: tlsWarnings,
  warningsOnUpdate: tlsWarnings,

  selectableFields(secret) {
    return { type: stringAt(secret, 'type') };
  },

  fieldLabels: ['type', 'metadata.namespace', 'metadata.name'],
};

export function secretsType(): ResourceType {
  return builtinType('', 'v1', 'secrets', {
    subresources: [],
    strategy: secretStrategy,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    deleteReturnsObject: false,
    nameRule: 'dns1123-subdomain',
    tableColumns: secretColumns,
  });
}
