// core/v1 componentstatuses (deprecated upstream since v1.19): the health of etcd, the
// scheduler and the controller manager, synthesised on each read as upstream's
// pkg/registry/core/componentstatus does. Plinth's storage stands in for etcd-0; it runs
// no scheduler or controller manager, so those read as upstream reads them when unreachable.

import type { KubeObject, TableColumn } from '../../api/index.ts';
import type { ResourceType } from '../resource-type.ts';
import { column, nameColumn } from '../table-columns.ts';
import { objectsAt, stringAt } from './object.ts';
import { builtinType } from './skeleton.ts';

/** The components upstream checks, with the health endpoints it dials. */
const unreachable: { name: string; url: string }[] = [
  { name: 'scheduler', url: 'https://127.0.0.1:10259/healthz' },
  { name: 'controller-manager', url: 'https://127.0.0.1:10257/healthz' },
];

export const componentNames = [...unreachable.map((c) => c.name), 'etcd-0'];

function componentStatus(name: string, healthy: boolean, message: string, error: string): KubeObject {
  const condition: Record<string, string> = { type: 'Healthy', status: healthy ? 'True' : 'False' };
  if (message !== '') condition.message = message;
  if (error !== '') condition.error = error;
  return { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name }, conditions: [condition] };
}

/**
 * The ComponentStatus objects, in upstream's order: the scheduler and controller manager
 * unhealthy with the dial error upstream reports, etcd-0 from `storageError` (undefined:
 * storage answers, "ok").
 */
export function componentStatuses(storageError: string | undefined): KubeObject[] {
  return [
    ...unreachable.map(({ name, url }) => {
      const port = new URL(url).port;
      return componentStatus(name, false, '', `Get "${url}": dial tcp 127.0.0.1:${port}: connect: connection refused`);
    }),
    storageError === undefined ? componentStatus('etcd-0', true, 'ok', '') : componentStatus('etcd-0', false, '', storageError),
  ];
}

function healthyCondition(obj: KubeObject) {
  return objectsAt(obj, 'conditions').find((c) => c.type === 'Healthy');
}

/** Upstream's printComponentStatus columns. */
const componentStatusColumns: TableColumn[] = [
  nameColumn,
  column('Status', (obj) => {
    const c = healthyCondition(obj);
    if (c === undefined) return 'Unknown';
    return c.status === 'True' ? 'Healthy' : 'Unhealthy';
  }, { description: 'Status of the component conditions' }),
  column('Message', (obj) => stringAt(healthyCondition(obj), 'message'), { description: 'Message of the component conditions' }),
  column('Error', (obj) => stringAt(healthyCondition(obj), 'error'), { description: 'Error of the component conditions' }),
];

export function componentStatusesType(): ResourceType {
  return builtinType('', 'v1', 'componentstatuses', { virtual: true, tableColumns: componentStatusColumns });
}
