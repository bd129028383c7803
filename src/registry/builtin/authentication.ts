// authentication.k8s.io/v1 tokenreviews and selfsubjectreviews: create-only reviews answered by
// endpoints/handlers/authentication.ts; nothing is stored.

import type { ResourceType } from '../resource-type.ts';
import { builtinType } from './skeleton.ts';

export function authenticationReviewTypes(): ResourceType[] {
  return [
    builtinType('authentication.k8s.io', 'v1', 'tokenreviews', { virtual: true }),
    builtinType('authentication.k8s.io', 'v1', 'selfsubjectreviews', { virtual: true }),
  ];
}
