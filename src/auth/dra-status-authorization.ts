// Who may change a ResourceClaim's status (DRAResourceClaimGranularStatusAuthorization, beta
// and on in v1.36), as upstream's claim status strategy asks its authorizer beyond the
// request's own `resourceclaims/status` permission:
//
// - changing `status.allocation` or `status.reservedFor` (binding a claim, as the scheduler
//   does) takes the request's verb on the synthetic subresource `resourceclaims/binding`,
//   cluster-wide;
// - changing `status.devices` takes, for each driver whose entries were added, changed or
//   removed, `arbitrary-node:<verb>` on `resourceclaims/driver` named for the driver in the
//   claim's namespace, or `associated-node:<verb>` when the caller is a service account
//   bound to the node the claim is allocated on (a driver's node plugin).
//
// Refusals are field errors, as the strategy's validation gives them: admission's strategy
// step (strategyCauses; Plinth's strategies are pure) puts them ahead of the object's own
// validation causes in one 422.

import type { KubeObject, StatusCause } from '../api/index.ts';
import { deepEqualNullAsAbsent, isObject, type JsonObject } from '../api/json.ts';
import { isDNS1123Subdomain } from '../api/labels.ts';
import { currentRequest } from '../api/request-context.ts';
import { forbiddenError, type AuthorizationAttributes, type Authorizer } from './authorize.ts';
import type { EscalationAttributes } from './escalation.ts';
import type { UserInfo } from './user.ts';
import { splitServiceAccountName } from './service-account-token.ts';

const group = 'resource.k8s.io';
const nodeNameKey = 'authentication.kubernetes.io/node-name';

/** What the check reads of a write (a subset of admission's attributes). */
export interface ClaimStatusAttributes extends EscalationAttributes {
  kind: string;
}

function statusOf(obj: KubeObject | undefined): JsonObject {
  return isObject(obj?.status) ? obj.status : {};
}

function devicesOf(status: JsonObject): JsonObject[] {
  return Array.isArray(status.devices) ? status.devices.filter(isObject) : [];
}

const deviceKey = (d: JsonObject) => JSON.stringify([d.driver ?? '', d.pool ?? '', d.device ?? '', d.shareID ?? '']);

/** The drivers whose device status entries were added, changed or removed, sorted (upstream's getModifiedDrivers). */
export function modifiedDrivers(status: JsonObject, old: JsonObject): string[] {
  const before = new Map(devicesOf(old).map((d) => [deviceKey(d), d]));
  const drivers = new Set<string>();
  for (const d of devicesOf(status)) {
    const key = deviceKey(d);
    const was = before.get(key);
    before.delete(key);
    if (was === undefined || !deepEqualNullAsAbsent(was, d)) drivers.add(String(d.driver ?? ''));
  }
  for (const d of before.values()) drivers.add(String(d.driver ?? ''));
  return [...drivers].sort();
}

/** The one node an allocation is limited to: a single term of one `metadata.name In [node]` field; '' otherwise. */
export function allocatedNode(status: JsonObject): string {
  const selector = isObject(status.allocation) && isObject(status.allocation.nodeSelector) ? status.allocation.nodeSelector : undefined;
  const terms = Array.isArray(selector?.nodeSelectorTerms) ? selector.nodeSelectorTerms : [];
  if (terms.length !== 1 || !isObject(terms[0])) return '';
  const term = terms[0];
  const expressions = Array.isArray(term.matchExpressions) ? term.matchExpressions : [];
  const fields = Array.isArray(term.matchFields) ? term.matchFields : [];
  if (expressions.length !== 0 || fields.length !== 1 || !isObject(fields[0])) return '';
  const field = fields[0];
  const values = Array.isArray(field.values) ? field.values : [];
  return field.key === 'metadata.name' && field.operator === 'In' && values.length === 1 && typeof values[0] === 'string' ? values[0] : '';
}

/** A service account's user whose one node-name extra is `node` (a valid node name). */
function serviceAccountOnNode(user: UserInfo, node: string): boolean {
  if (node === '') return false;
  if (splitServiceAccountName(user.name) === undefined) return false;
  const nodes = user.extra?.[nodeNameKey] ?? [];
  return nodes.length === 1 && isDNS1123Subdomain(nodes[0]!).length === 0 && nodes[0] === node;
}

/** The check, with the server's authorizer (undefined while there is none: nothing is checked). */
export function draStatusAuthorization(authorizer: () => Authorizer | undefined): { name: string; strategyCauses(attrs: ClaimStatusAttributes): Promise<StatusCause[]> | undefined } {
  return {
    name: 'DRAStatusAuthorization',
    strategyCauses(attrs) {
      if (attrs.group !== group || attrs.resource !== 'resourceclaims' || attrs.subresource !== 'status' || attrs.operation !== 'UPDATE') return undefined;
      const request = currentRequest();
      const authz = authorizer();
      // In-process writers have no request to authorize.
      if (request === undefined || authz === undefined) return undefined;
      return check(attrs, request.user, request.verb ?? 'update', authz);
    },
  };
}

async function check(attrs: ClaimStatusAttributes, user: UserInfo, verb: string, authz: Authorizer): Promise<StatusCause[]> {
  const status = statusOf(attrs.object);
  const old = statusOf(attrs.oldObject);
  const causes: StatusCause[] = [];
  const denied = async (attributes: AuthorizationAttributes): Promise<string | undefined> => {
    const decision = await authz.authorize(user, attributes);
    return decision.decision === 'Allow' ? undefined : forbiddenError(user, attributes, decision.reason ?? '').message;
  };
  const base = { group, resource: 'resourceclaims', path: '' };

  if (!deepEqualNullAsAbsent(status.allocation, old.allocation) || !deepEqualNullAsAbsent(status.reservedFor, old.reservedFor)) {
    const error = await denied({ ...base, verb, subresource: 'binding', namespace: '', name: '' });
    if (error !== undefined) {
      causes.push({
        reason: 'FieldValueForbidden', field: 'status',
        message: `Forbidden: changing status.allocation or status.reservedFor requires resource="resourceclaims/binding", verb="${verb}" permission: ${error}`,
      });
    }
  }
  const drivers = modifiedDrivers(status, old);
  if (drivers.length > 0) {
    const verbs = serviceAccountOnNode(user, allocatedNode(status)) ? [`associated-node:${verb}`, `arbitrary-node:${verb}`] : [`arbitrary-node:${verb}`];
    for (const driver of drivers) {
      let first: string | undefined;
      for (const v of verbs) {
        const error = await denied({ ...base, verb: v, subresource: 'driver', namespace: attrs.namespace, name: driver });
        if (error === undefined) {
          first = undefined;
          break;
        }
        first ??= error;
      }
      if (first !== undefined) {
        causes.push({
          reason: 'FieldValueForbidden', field: 'status.devices',
          message: `Forbidden: changing status.devices requires resource="resourceclaims/driver", verb="[${verbs.join(' ')}]" permission: ${first}`,
        });
      }
    }
  }
  return causes;
}
