// The schemas of every built-in kind Plinth serves, named like upstream's definitions.

import type { Definitions } from '../types.ts';
import { admissionregistrationDefinitions } from './admissionregistration.ts';
import { apiextensionsDefinitions } from './apiextensions.ts';
import { appsDefinitions } from './apps.ts';
import { autoscalingDefinitions } from './autoscaling.ts';
import { containerDefinitions } from './container.ts';
import { coordinationDefinitions } from './coordination.ts';
import { coreDefinitions } from './core.ts';
import { metaDefinitions } from './meta.ts';
import { podDefinitions } from './pod.ts';
import { policyDefinitions } from './policy.ts';
import { volumeDefinitions } from './volume.ts';

function merged(...parts: Definitions[]): Definitions {
  const all: Definitions = {};
  for (const part of parts) {
    for (const [name, schema] of Object.entries(part)) {
      if (name in all) throw new Error(`definition ${name} is declared twice`);
      all[name] = schema;
    }
  }
  return all;
}

/**
 * Built-in definitions, keyed by upstream's names ("io.k8s.api.core.v1.Pod"), with
 * `$ref: '#/components/schemas/<name>'` between them. Shared: treat as read-only.
 */
export const builtinDefinitions: Definitions = merged(
  metaDefinitions,
  coreDefinitions,
  podDefinitions,
  containerDefinitions,
  volumeDefinitions,
  appsDefinitions,
  autoscalingDefinitions,
  coordinationDefinitions,
  policyDefinitions,
  admissionregistrationDefinitions,
  apiextensionsDefinitions,
);
