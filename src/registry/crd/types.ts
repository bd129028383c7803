// apiextensions.k8s.io/v1 CustomResourceDefinition as it travels on the wire
// (k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/types.go). Every field is
// optional here: these are client data until validation has passed.

import type { KubeObject } from '../../api/index.ts';

export const crdGroup = 'apiextensions.k8s.io';
export const crdVersion = 'v1';
export const crdKind = 'CustomResourceDefinition';

/** The finalizer the CRD finalizer owns: a CRD goes only once its objects are gone. */
export const cleanupFinalizer = 'customresourcecleanup.apiextensions.k8s.io';

/** A JSONSchemaProps as the client sent it: plain JSON, checked by validation. */
type JSONSchemaProps = Record<string, unknown>;

export interface CustomResourceDefinitionNames {
  plural?: string;
  singular?: string;
  shortNames?: string[];
  kind?: string;
  listKind?: string;
  categories?: string[];
}

export interface CustomResourceColumnDefinition {
  name?: string;
  type?: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath?: string;
}

export interface CustomResourceSubresourceScale {
  specReplicasPath?: string;
  statusReplicasPath?: string;
  labelSelectorPath?: string;
}

export interface CustomResourceSubresources {
  status?: Record<string, never>;
  scale?: CustomResourceSubresourceScale;
}

interface SelectableField {
  jsonPath?: string;
}

export interface CustomResourceDefinitionVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: CustomResourceSubresources;
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
  selectableFields?: SelectableField[];
}

interface CustomResourceConversion {
  strategy?: string;
  webhook?: { clientConfig?: unknown; conversionReviewVersions?: string[] };
}

interface CustomResourceDefinitionSpec {
  group?: string;
  names?: CustomResourceDefinitionNames;
  scope?: string;
  versions?: CustomResourceDefinitionVersion[];
  conversion?: CustomResourceConversion;
  preserveUnknownFields?: boolean;
}

export interface CustomResourceDefinitionCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

interface CustomResourceDefinitionStatus {
  conditions?: CustomResourceDefinitionCondition[];
  acceptedNames?: CustomResourceDefinitionNames;
  storedVersions?: string[];
}

export interface CustomResourceDefinition extends KubeObject {
  spec?: CustomResourceDefinitionSpec;
  status?: CustomResourceDefinitionStatus;
}

export function conditionOf(crd: CustomResourceDefinition, type: string): CustomResourceDefinitionCondition | undefined {
  const conditions = crd.status?.conditions;
  return Array.isArray(conditions) ? conditions.find((c) => c?.type === type) : undefined;
}

export function isConditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return conditionOf(crd, type)?.status === 'True';
}
