// apiregistration.k8s.io APIServices as kube-aggregator stores them: the v1 defaults, its
// strategy (status reset on create, a local APIService available at once; no generation)
// and ValidateAPIService / ValidateAPIServiceStatus with its words.

import type { KubeObject, StatusCause, TableColumn } from '../../api/index.ts';
import { isObject } from '../../api/json.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { ageColumn, column, nameColumn } from '../table-columns.ts';
import { invalid, notSupported, required } from '../validation/field.ts';
import { isDNS1035Label, isDNS1123Subdomain, isValidPortNum, validateName } from '../validation/names.ts';
import { keepOldMetadata, keepOldSpec, keepOldStatus, nowTimestamp } from './common.ts';
import { numberAt, objectAt, objectsAt, stringAt } from './object.ts';
import { builtinType } from './skeleton.ts';

/** v1's SetDefaults_ServiceReference: a service reference without a port means 443. */
function defaults(obj: KubeObject): void {
  const service = objectAt(obj.spec, 'service');
  if (service !== undefined && (service.port === undefined || service.port === null)) service.port = 443;
}

/** The length of caBundle's bytes: the base64 text decodes to three bytes for every four characters, less its padding. */
function caBundleBytes(spec: unknown): number {
  const text = stringAt(spec, 'caBundle');
  if (text === '') return 0;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return Math.floor((text.length * 3) / 4) - padding;
}

/** kube-aggregator's ValidateAPIService, in its order (the name first, as ValidateObjectMeta's name function). */
export function validateAPIService(obj: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = objectAt(obj, 'spec');
  const group = stringAt(spec, 'group');
  const version = stringAt(spec, 'version');
  const name = obj.metadata.name ?? '';
  const requiredName = `${version}.${group}`;
  if (validateName(name, 'path-segment').length === 0 && name !== requiredName) {
    causes.push(invalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`));
  }
  // Only the legacy group may be empty, at v1.
  if (group === '' && version !== 'v1') causes.push(required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '') for (const msg of isDNS1123Subdomain(group)) causes.push(invalid('spec.group', group, msg));
  for (const msg of isDNS1035Label(version)) causes.push(invalid('spec.version', version, msg));
  // int32 fields without omitempty: absent is 0.
  const groupPriority = numberAt(spec, 'groupPriorityMinimum') ?? 0;
  if (groupPriority <= 0 || groupPriority > 20000) causes.push(invalid('spec.groupPriorityMinimum', groupPriority, 'must be positive and less than 20000'));
  const versionPriority = numberAt(spec, 'versionPriority') ?? 0;
  if (versionPriority <= 0 || versionPriority > 1000) causes.push(invalid('spec.versionPriority', versionPriority, 'must be positive and less than 1000'));
  const insecure = spec?.insecureSkipTLSVerify === true;
  const caBytes = caBundleBytes(spec);
  const service = spec?.service;
  if (!isObject(service)) {
    if (caBytes !== 0) causes.push(invalid('spec.caBundle', `${caBytes} bytes`, 'local APIServices may not have a caBundle'));
    if (insecure) causes.push(invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return causes;
  }
  if (stringAt(service, 'namespace') === '') causes.push(required('spec.service.namespace'));
  if (stringAt(service, 'name') === '') causes.push(required('spec.service.name'));
  const port = numberAt(service, 'port') ?? 0;
  const portErrors = isValidPortNum(port);
  if (portErrors.length > 0) causes.push(invalid('spec.service.port', port, `port is not valid: ${portErrors.join(', ')}`));
  if (insecure && caBytes > 0) causes.push(invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  return causes;
}

const conditionStatuses = ['True', 'False', 'Unknown'];

/** ValidateAPIServiceStatus: each condition's status is True, False or Unknown. */
function validateStatus(obj: KubeObject): StatusCause[] {
  return objectsAt(objectAt(obj, 'status'), 'conditions').flatMap((condition, i) => {
    const status = condition.status;
    return typeof status === 'string' && conditionStatuses.includes(status) ? [] : [notSupported(`status.conditions[${i}].status`, status ?? '', conditionStatuses)];
  });
}

const apiServiceStrategy: Strategy = {
  defaults,
  prepareForCreate(obj) {
    // Local APIServices are marked available at once (NewLocalAvailableAPIServiceCondition).
    obj.status = isObject(objectAt(obj, 'spec')?.service) ? {} : {
      conditions: [{ type: 'Available', status: 'True', lastTransitionTime: nowTimestamp(), reason: 'Local', message: 'Local APIServices are always available' }],
    };
  },
  prepareForUpdate(obj, old) {
    keepOldStatus(obj, old);
  },
  validate: validateAPIService,
  subresources: {
    status: {
      // The status strategy keeps the spec and the metadata a status write may not change.
      prepareForUpdate(obj, old) {
        keepOldSpec(obj, old);
        keepOldMetadata(obj, old);
      },
      validateUpdate: validateStatus,
    },
  },
};

/** kube-aggregator's APIService columns: Local without a service, the Available condition. */
const apiServiceColumns: TableColumn[] = [
  nameColumn,
  column('Service', (svc) => {
    const ref = objectAt(objectAt(svc, 'spec'), 'service');
    return ref === undefined ? 'Local' : `${stringAt(ref, 'namespace')}/${stringAt(ref, 'name')}`;
  }, { description: 'The reference to the service that hosts this API endpoint.' }),
  column('Available', (svc) => {
    const available = objectsAt(objectAt(svc, 'status'), 'conditions').find((c) => c.type === 'Available');
    if (available === undefined) return 'Unknown';
    const status = stringAt(available, 'status');
    const reason = stringAt(available, 'reason');
    return status === 'True' || reason === '' ? status : `${status} (${reason})`;
  }, { description: 'Whether this service is available.' }),
  ageColumn,
];

export function apiServicesType(): ResourceType {
  return builtinType('apiregistration.k8s.io', 'v1', 'apiservices', {
    strategy: apiServiceStrategy,
    nameRule: 'path-segment',
    tableColumns: apiServiceColumns,
  });
}
