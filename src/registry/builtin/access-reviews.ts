// authorization.k8s.io/v1 subjectaccessreviews, localsubjectaccessreviews,
// selfsubjectaccessreviews and selfsubjectrulesreviews: POSTed, answered with a status by
// the authorizer (registry/access-review.ts); nothing is stored.

import type { ResourceType } from '../resource-type.ts';
import { builtinType } from './skeleton.ts';

export function accessReviewTypes(): ResourceType[] {
  return ['subjectaccessreviews', 'localsubjectaccessreviews', 'selfsubjectaccessreviews', 'selfsubjectrulesreviews']
    .map((resource) => builtinType('authorization.k8s.io', 'v1', resource, { virtual: true }));
}
