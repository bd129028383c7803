// A container's probes and lifecycle hooks, validated as upstream's ValidatePodSpec does
// (pkg/apis/core/validation: validateProbe, validateHandler, validateLifecycle), with its
// messages. Probes and hooks are defaulted before (pod-spec.ts: timeoutSeconds 1,
// periodSeconds 10, thresholds 1 and 3, an HTTP GET's path "/" and scheme HTTP).

import type { StatusCause } from '../../api/index.ts';
import { regexError } from '../../api/labels.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import { appendAll, child, forbidden, invalid, notSupported, required, validateNonnegative, type FieldPath } from '../validation/field.ts';
import { isValidPortName, isValidPortNum } from '../validation/names.ts';
import { arrayAt, numberAt, objectAt, stringAt } from './object.ts';

/** Upstream's ValidatePortNumOrName: a number is a port, a string a port name. */
export function validatePortNumOrName(port: unknown, path: FieldPath): StatusCause[] {
  if (typeof port === 'number') return isValidPortNum(port).map((msg) => invalid(path, port, msg));
  if (typeof port === 'string') return isValidPortName(port).map((msg) => invalid(path, port, msg));
  return [];
}

const httpHeaderName = /^[-A-Za-z0-9]+$/;
const httpSchemes = ['HTTP', 'HTTPS'];

function validateHTTPGet(http: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  if (stringAt(http, 'path') === '') causes.push(required(child(path, 'path')));
  appendAll(causes, validatePortNumOrName(http.port, child(path, 'port')));
  const scheme = stringAt(http, 'scheme');
  if (!httpSchemes.includes(scheme)) causes.push(notSupported(child(path, 'scheme'), scheme, httpSchemes));
  for (const raw of arrayAt(http, 'httpHeaders')) {
    const name = stringAt(isObject(raw) ? raw : {}, 'name');
    if (!httpHeaderName.test(name)) {
      causes.push(invalid(child(path, 'httpHeaders'), name, regexError("a valid HTTP header must consist of alphanumeric characters or '-'", '[-A-Za-z0-9]+', 'X-Header-Name')));
    }
  }
  return causes;
}

/** The handler kinds in upstream's order of checking; probes have grpc, hooks sleep. */
const probeHandlers = ['exec', 'httpGet', 'tcpSocket', 'grpc'] as const;
const lifecycleHandlers = ['exec', 'httpGet', 'tcpSocket', 'sleep'] as const;
type HandlerKind = (typeof probeHandlers)[number] | (typeof lifecycleHandlers)[number];

/** Upstream's validateHandler: exactly one handler, itself valid. */
function validateHandler(handler: JsonObject, kinds: readonly HandlerKind[], gracePeriod: number | undefined, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  let count = 0;
  for (const kind of kinds) {
    const action = objectAt(handler, kind);
    if (action === undefined) continue;
    const p = child(path, kind);
    if (count > 0) {
      causes.push(forbidden(p, 'may not specify more than 1 handler type'));
      continue;
    }
    count++;
    switch (kind) {
      case 'exec':
        if (arrayAt(action, 'command').length === 0) causes.push(required(child(p, 'command')));
        break;
      case 'httpGet':
        appendAll(causes, validateHTTPGet(action, p));
        break;
      case 'tcpSocket':
        appendAll(causes, validatePortNumOrName(action.port, child(p, 'port')));
        break;
      case 'grpc': {
        const port = numberAt(action, 'port') ?? 0;
        appendAll(causes, isValidPortNum(port).map((msg) => invalid(child(p, 'port'), port, msg)));
        break;
      }
      case 'sleep': {
        // A zero sleep is allowed since PodLifecycleSleepActionAllowZero (GA).
        const seconds = numberAt(action, 'seconds') ?? 0;
        if (gracePeriod !== undefined && (seconds < 0 || seconds > gracePeriod)) {
          causes.push(invalid(child(p, 'seconds'), seconds, `must be non-negative and less than terminationGracePeriodSeconds (${gracePeriod})`));
        }
        break;
      }
    }
  }
  if (count === 0) causes.push(required(path, 'must specify a handler type'));
  return causes;
}

function validateProbe(probe: JsonObject, gracePeriod: number | undefined, path: FieldPath): StatusCause[] {
  const causes = validateHandler(probe, probeHandlers, gracePeriod, path);
  for (const field of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
    appendAll(causes, validateNonnegative(numberAt(probe, field) ?? 0, child(path, field)));
  }
  const grace = numberAt(probe, 'terminationGracePeriodSeconds');
  if (grace !== undefined && grace <= 0) causes.push(invalid(child(path, 'terminationGracePeriodSeconds'), grace, 'must be greater than 0'));
  return causes;
}

/** A container's liveness, readiness and startup probes and its lifecycle hooks (validateContainers). */
function validateProbesAndHooks(container: JsonObject, gracePeriod: number | undefined, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const lifecycle = objectAt(container, 'lifecycle');
  for (const hook of ['postStart', 'preStop']) {
    const handler = objectAt(lifecycle, hook);
    if (handler !== undefined) appendAll(causes, validateHandler(handler, lifecycleHandlers, gracePeriod, child(path, 'lifecycle', hook)));
  }
  for (const name of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
    const probe = objectAt(container, name);
    if (probe === undefined) continue;
    const p = child(path, name);
    appendAll(causes, validateProbe(probe, gracePeriod, p));
    const successThreshold = numberAt(probe, 'successThreshold') ?? 0;
    if (name !== 'readinessProbe' && successThreshold !== 1) causes.push(invalid(child(p, 'successThreshold'), successThreshold, 'must be 1'));
    if (name === 'readinessProbe' && probe.terminationGracePeriodSeconds !== undefined && probe.terminationGracePeriodSeconds !== null) {
      causes.push(invalid(child(p, 'terminationGracePeriodSeconds'), probe.terminationGracePeriodSeconds, 'must not be set for readinessProbes'));
    }
  }
  return causes;
}

/**
 * Probes and hooks of a regular container, or of an init container: one that restarts
 * (restartPolicy Always, a sidecar) has them validated as a regular container's, any
 * other may not have them.
 */
export function validateContainerProbes(container: JsonObject, init: boolean, gracePeriod: number | undefined, path: FieldPath): StatusCause[] {
  if (!init || container.restartPolicy === 'Always') return validateProbesAndHooks(container, gracePeriod, path);
  const causes: StatusCause[] = [];
  for (const field of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']) {
    if (container[field] !== undefined && container[field] !== null) {
      causes.push(forbidden(child(path, field), 'may not be set for init containers without restartPolicy=Always'));
    }
  }
  return causes;
}
