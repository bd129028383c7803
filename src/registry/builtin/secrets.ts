// core/v1 secrets, after kubernetes pkg/registry/core/secret/strategy.go and
// pkg/apis/core/validation's ValidateSecret(Update).

import type { KubeObject, StatusCause } from '../../api/index.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { builtinType } from './skeleton.ts';
import { fieldImmutable, forbidden, goJson, invalid, key, required, tooLong } from '../validation/field.ts';
import { isConfigMapKey } from '../validation/names.ts';
import { isImmutable } from './common.ts';
import { base64Length, finalizerCauses, immutableMessage, maxDataSize } from './configmaps.ts';
import { goJsonSyntaxError } from '../../api/go-json-syntax.ts';
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

/**
 * What Go's json.Unmarshal into a map[string]interface{} says of `bytes`, in its words: a
 * syntax error first (Go checks the whole text before decoding), then a value that is no
 * object; null is no error (it leaves the map nil).
 */
function goMapUnmarshalError(bytes: Buffer): string | undefined {
  const syntax = goJsonSyntaxError(bytes);
  if (syntax !== undefined) return syntax;
  const value: unknown = JSON.parse(bytes.toString('utf8'));
  if (value === null || isObject(value)) return undefined;
  const kind = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
  return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
}

/** ValidateSecret past its metadata: the keys, the size, each type's required keys. */
function validateSecretData(secret: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
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
    const error = goMapUnmarshalError(bytes);
    if (error !== undefined) causes.push(invalid(key('data', k), '<secret contents redacted>', error));
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

  // An update is checked in validateUpdate, in upstream's order.
  validate: (secret, old) => (old === undefined ? [...finalizerCauses(secret), ...validateSecretData(secret)] : []),

  // ValidateSecretUpdate: the type and immutability rules come before the new object's own errors.
  validateUpdate(secret, old) {
    const causes = finalizerCauses(secret);
    const type = stringAt(secret, 'type');
    // core.SecretType is a typed string: json.Marshal writes it, not %q.
    if (type !== stringAt(old, 'type')) causes.push(invalid('type', goJson(type), fieldImmutable));
    if (isImmutable(old)) {
      if (!isImmutable(secret)) causes.push(forbidden('immutable', immutableMessage));
      if (!mapsEqual(secret.data, old.data)) causes.push(forbidden('data', immutableMessage));
    }
    return [...causes, ...validateSecretData(secret)];
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
