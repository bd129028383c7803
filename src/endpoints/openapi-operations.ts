// The operations kube-apiserver publishes for a set of served types, as a model that
// both the OpenAPI v3 and the Swagger 2.0 renderers read. Names (operation IDs, tags,
// paths, x-kubernetes-action) follow upstream's endpoint installer so that clients
// and people find what they expect.

import type { GroupVersionKind } from '../api/index.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { Definitions, Schema } from '../schema/types.ts';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const statusSchema = META + 'Status';
const deleteOptionsSchema = META + 'DeleteOptions';
const patchSchema = META + 'Patch';
const watchEventSchema = META + 'WatchEvent';

type ParamType = 'string' | 'integer' | 'boolean';

export interface Param {
  name: string;
  in: 'query' | 'path';
  type: ParamType;
  description: string;
  required?: boolean;
}

/** What a response body is; it decides the media types listed for it. */
export type ResponseForm = 'object' | 'list' | 'watch';

interface Response {
  code: string;
  description: string;
  schema?: string;
}

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';

export interface Operation {
  method: Method;
  operationId: string;
  description: string;
  tag: string;
  /** x-kubernetes-action; absent for discovery operations. */
  action?: string;
  gvk?: GroupVersionKind;
  parameters: Param[];
  /** Request body: an object, a patch (several media types) or DeleteOptions. */
  body?: { schema: string; form: 'object' | 'patch' | 'delete' };
  /** Whether the patch body accepts strategic merge patches (built-in types only). */
  strategicMerge?: boolean;
  form: ResponseForm;
  responses: Response[];
}

export interface PathItem {
  path: string;
  parameters: Param[];
  operations: Operation[];
}

/** One OpenAPI v3 document: "api/v1", "apis/apps/v1", or a discovery root ("api", "apis", "apis/apps"). */
export interface ApiDocumentModel {
  key: string;
  paths: PathItem[];
}

export interface OperationOptions {
  /**
   * Whether PATCH of a type accepts strategic merge patches. Upstream: built-in
   * types do, custom resources do not. Defaults to built-in definition names.
   */
  supportsStrategicMerge?: (type: ResourceType) => boolean;
}

const builtinPrefixes = ['io.k8s.api.', 'io.k8s.apimachinery.', 'io.k8s.apiextensions-apiserver.', 'io.k8s.kube-aggregator.'];

function isBuiltinSchemaName(name: string): boolean {
  return builtinPrefixes.some((prefix) => name.startsWith(prefix));
}

// Query and path parameters, as upstream's endpoints accept them.

function query(name: string, type: ParamType, description: string): Param {
  return { name, in: 'query', type, description };
}

function pathParam(name: string, description: string): Param {
  return { name, in: 'path', type: 'string', required: true, description };
}

const params = {
  pretty: query('pretty', 'string', 'If "true", the output is indented. Defaults to "false" unless the client looks like a browser or a command-line HTTP tool.'),
  namespace: pathParam('namespace', 'The namespace: the scope of names and of authorization.'),
  dryRun: query('dryRun', 'string', 'When "All", the request goes through every stage (admission, validation, defaulting) and reports the result without persisting anything. Other values are invalid.'),
  fieldManager: query('fieldManager', 'string', 'Name of the actor making the change, recorded in managedFields. Required for apply patches. At most 128 printable characters.'),
  fieldValidation: query('fieldValidation', 'string', 'What happens to unknown or duplicate fields in the body: "Ignore" drops them silently, "Warn" (the default) drops them with one warning each, "Strict" fails the request listing them all.'),
  force: query('force', 'boolean', 'Apply patches only: take over fields that other managers own instead of failing with a conflict. Must be unset for other patch types.'),
  allowWatchBookmarks: query('allowWatchBookmarks', 'boolean', 'Ask for BOOKMARK events, which carry only a resourceVersion. The server sends them when it chooses. Ignored when not watching.'),
  continue: query('continue', 'string', 'The continue token of the previous chunk of a paginated list, to fetch the next chunk from the same snapshot. An expired token is answered with 410 Gone.'),
  fieldSelector: query('fieldSelector', 'string', 'Restricts the results by fields, such as "metadata.name=x". Defaults to everything.'),
  labelSelector: query('labelSelector', 'string', 'Restricts the results by labels, such as "app=web,tier!=db". Defaults to everything.'),
  limit: query('limit', 'integer', 'The most items to return in this chunk; when more exist, metadata.continue is set. Fewer (even none) may come back when items are filtered out.'),
  resourceVersion: query('resourceVersion', 'string', 'Constrains which version of the data may serve the request; see resourceVersionMatch. Defaults to the most recent.'),
  resourceVersionMatch: query('resourceVersionMatch', 'string', 'How resourceVersion applies to a list: "NotOlderThan" or "Exact". Requires resourceVersion.'),
  sendInitialEvents: query('sendInitialEvents', 'boolean', 'Watch only: start with synthetic ADDED events for the current state, then a BOOKMARK annotated "k8s.io/initial-events-end". Requires resourceVersionMatch=NotOlderThan and allowWatchBookmarks.'),
  timeoutSeconds: query('timeoutSeconds', 'integer', 'Ends the list or watch after this many seconds, whatever the activity.'),
  watch: query('watch', 'boolean', 'Stream changes (ADDED, MODIFIED, DELETED, BOOKMARK) instead of returning a list. Start from a resourceVersion.'),
  gracePeriodSeconds: query('gracePeriodSeconds', 'integer', 'Seconds before the object is deleted; 0 deletes at once. Defaults to the type\'s own period.'),
  ignoreStoreReadError: query('ignoreStoreReadErrorWithClusterBreakingPotential', 'boolean', 'Delete an object that cannot be read from storage (corrupt), skipping finalizers and admission. Dangerous; off by default.'),
  orphanDependents: query('orphanDependents', 'boolean', 'Deprecated: use propagationPolicy. When true, dependents are orphaned; when false, the "orphan" finalizer is removed.'),
  propagationPolicy: query('propagationPolicy', 'string', 'Whether and how dependents are garbage collected: "Orphan", "Background" or "Foreground".'),
};

function nameParam(kind: string): Param {
  return pathParam('name', `Name of the ${kind}.`);
}

const listParams = [
  params.allowWatchBookmarks, params.continue, params.fieldSelector, params.labelSelector, params.limit, params.resourceVersion,
  params.resourceVersionMatch, params.sendInitialEvents, params.timeoutSeconds, params.watch,
];
const writeParams = [params.dryRun, params.fieldManager, params.fieldValidation];
const patchParams = [params.dryRun, params.fieldManager, params.fieldValidation, params.force];
const deleteParams = [params.dryRun, params.gracePeriodSeconds, params.ignoreStoreReadError, params.orphanDependents, params.propagationPolicy];
const deleteCollectionParams = [
  params.continue, params.dryRun, params.fieldSelector, params.gracePeriodSeconds, params.ignoreStoreReadError, params.labelSelector, params.limit,
  params.orphanDependents, params.propagationPolicy, params.resourceVersion, params.resourceVersionMatch, params.sendInitialEvents, params.timeoutSeconds,
];

// Names.

function pascal(word: string): string {
  return word.length === 0 ? word : word[0]!.toUpperCase() + word.slice(1);
}

/** "" → "Core", "coordination.k8s.io" → "Coordination", "stable.example.com" → "StableExampleCom". */
function groupIdentifier(group: string): string {
  if (group === '') return 'Core';
  const trimmed = group.endsWith('.k8s.io') ? group.slice(0, -'.k8s.io'.length) : group;
  return trimmed.split(/[.-]/).filter((part) => part !== '').map(pascal).join('');
}

/** "core_v1", "apps_v1", "rbacAuthorization_v1". */
function groupVersionTag(group: string, version: string): string {
  const id = groupIdentifier(group);
  return `${id[0]!.toLowerCase()}${id.slice(1)}_${version}`;
}

/** "api/v1" or "apis/apps/v1": the document key and the path prefix without its slash. */
function groupVersionKey(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/** The list kind's definition name: the item's name with the list kind as last segment. */
function listSchemaName(type: ResourceType): string {
  return type.schemaName.slice(0, type.schemaName.lastIndexOf('.') + 1) + type.listKind;
}

/** A `<Kind>List` definition for types whose definitions lack one (custom resources). */
function syntheticListSchema(type: ResourceType): Schema {
  return {
    description: `${type.listKind} is a list of ${type.kind}.`,
    type: 'object',
    properties: {
      apiVersion: { type: 'string', description: 'The versioned schema of this list.' },
      items: { type: 'array', items: { $ref: `#/components/schemas/${type.schemaName}` }, description: `The ${type.resource}.` },
      kind: { type: 'string', description: 'The kind of this list.' },
      metadata: { $ref: `#/components/schemas/${META}ListMeta`, description: 'Standard list metadata.' },
    },
    required: ['items'],
    'x-kubernetes-group-version-kind': [{ group: type.group, kind: type.listKind, version: type.version }],
  };
}

/** The subresources whose endpoints we know how to describe, with their verbs and bodies. */
const subresources: Record<string, { verbs: ('get' | 'update' | 'patch' | 'create')[]; schema?: string }> = {
  status: { verbs: ['get', 'update', 'patch'] },
  scale: { verbs: ['get', 'update', 'patch'], schema: 'io.k8s.api.autoscaling.v1.Scale' },
  ephemeralcontainers: { verbs: ['get', 'update', 'patch'] },
  resize: { verbs: ['get', 'update', 'patch'] },
  finalize: { verbs: ['update'] },
  approval: { verbs: ['get', 'update', 'patch'] },
  eviction: { verbs: ['create'], schema: 'io.k8s.api.policy.v1.Eviction' },
  binding: { verbs: ['create'], schema: 'io.k8s.api.core.v1.Binding' },
};

function gvkOfDefinition(defs: Definitions, name: string): GroupVersionKind | undefined {
  const gvks = defs[name]?.['x-kubernetes-group-version-kind'];
  return gvks !== undefined && gvks.length > 0 ? { ...gvks[0]! } : undefined;
}

const unauthorized: Response = { code: '401', description: 'Unauthorized' };

function ok(schema: string): Response {
  return { code: '200', description: 'OK', schema };
}

function created(schema: string): Response {
  return { code: '201', description: 'Created', schema };
}

function accepted(schema: string): Response {
  return { code: '202', description: 'Accepted', schema };
}

/** Paths and operations of one resource type. */
function resourcePaths(type: ResourceType, defs: Definitions, opts: OperationOptions): PathItem[] {
  const { group, version, kind, resource, namespaced } = type;
  const verbs = new Set(type.verbs);
  const id = `${groupIdentifier(group)}${pascal(version)}`;
  const scope = namespaced ? 'Namespaced' : '';
  const prefix = `/${groupVersionKey(group, version)}`;
  const collection = namespaced ? `${prefix}/namespaces/{namespace}/${resource}` : `${prefix}/${resource}`;
  const item = `${collection}/{name}`;
  const watchCollection = namespaced ? `${prefix}/watch/namespaces/{namespace}/${resource}` : `${prefix}/watch/${resource}`;
  const scopeParams = namespaced ? [params.namespace] : [];
  const itemParams = [nameParam(kind), ...scopeParams];
  const tag = groupVersionTag(group, version);
  const gvk = { group, version, kind };
  const schema = type.schemaName;
  const listSchema = listSchemaName(type);
  const strategicMerge = (opts.supportsStrategicMerge ?? ((t) => isBuiltinSchemaName(t.schemaName)))(type);
  const paths: PathItem[] = [];
  const op = (o: Omit<Operation, 'tag' | 'gvk'> & { gvk?: GroupVersionKind }): Operation => ({ tag, gvk, ...o });

  const collectionOps: Operation[] = [];
  if (verbs.has('list')) {
    collectionOps.push(op({
      method: 'get', operationId: `list${id}${scope}${kind}`, action: 'list', form: 'list',
      description: `list or watch objects of kind ${kind}`,
      parameters: listParams, responses: [ok(listSchema), unauthorized],
    }));
  }
  if (verbs.has('create')) {
    collectionOps.push(op({
      method: 'post', operationId: `create${id}${scope}${kind}`, action: 'post', form: 'object',
      description: `create a ${kind}`,
      parameters: writeParams, body: { schema, form: 'object' },
      responses: [ok(schema), created(schema), accepted(schema), unauthorized],
    }));
  }
  if (verbs.has('deletecollection')) {
    collectionOps.push(op({
      method: 'delete', operationId: `delete${id}Collection${scope}${kind}`, action: 'deletecollection', form: 'object',
      description: `delete collection of ${kind}`,
      parameters: deleteCollectionParams, body: { schema: deleteOptionsSchema, form: 'delete' },
      responses: [ok(statusSchema), unauthorized],
    }));
  }
  if (collectionOps.length > 0) paths.push({ path: collection, parameters: [...scopeParams, params.pretty], operations: collectionOps });

  const itemOps: Operation[] = [];
  if (verbs.has('get')) {
    itemOps.push(op({
      method: 'get', operationId: `read${id}${scope}${kind}`, action: 'get', form: 'object',
      description: `read the specified ${kind}`, parameters: [], responses: [ok(schema), unauthorized],
    }));
  }
  if (verbs.has('update')) {
    itemOps.push(op({
      method: 'put', operationId: `replace${id}${scope}${kind}`, action: 'put', form: 'object',
      description: `replace the specified ${kind}`, parameters: writeParams, body: { schema, form: 'object' },
      responses: [ok(schema), created(schema), unauthorized],
    }));
  }
  if (verbs.has('patch')) {
    itemOps.push(op({
      method: 'patch', operationId: `patch${id}${scope}${kind}`, action: 'patch', form: 'object',
      description: `partially update the specified ${kind}`, parameters: patchParams,
      body: { schema: patchSchema, form: 'patch' }, strategicMerge,
      responses: [ok(schema), created(schema), unauthorized],
    }));
  }
  if (verbs.has('delete')) {
    const deleted = type.deleteReturnsObject ? schema : statusSchema;
    itemOps.push(op({
      method: 'delete', operationId: `delete${id}${scope}${kind}`, action: 'delete', form: 'object',
      description: `delete a ${kind}`, parameters: deleteParams, body: { schema: deleteOptionsSchema, form: 'delete' },
      responses: [ok(deleted), accepted(deleted), unauthorized],
    }));
  }
  if (itemOps.length > 0) paths.push({ path: item, parameters: [...itemParams, params.pretty], operations: itemOps });

  if (namespaced && verbs.has('list')) {
    paths.push({
      path: `${prefix}/${resource}`,
      parameters: [params.pretty],
      operations: [op({
        method: 'get', operationId: `list${id}${kind}ForAllNamespaces`, action: 'list', form: 'list',
        description: `list or watch objects of kind ${kind}`,
        parameters: listParams, responses: [ok(listSchema), unauthorized],
      })],
    });
  }

  if (verbs.has('watch')) {
    paths.push({
      path: watchCollection,
      parameters: [...scopeParams, params.pretty],
      operations: [op({
        method: 'get', operationId: `watch${id}${scope}${kind}List`, action: 'watchlist', form: 'watch',
        description: `watch individual changes to a list of ${kind}. deprecated: use the 'watch' parameter with a list operation instead.`,
        parameters: listParams, responses: [ok(watchEventSchema), unauthorized],
      })],
    });
    paths.push({
      path: `${watchCollection}/{name}`,
      parameters: [...itemParams, params.pretty],
      operations: [op({
        method: 'get', operationId: `watch${id}${scope}${kind}`, action: 'watch', form: 'watch',
        description: `watch changes to an object of kind ${kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`,
        parameters: listParams, responses: [ok(watchEventSchema), unauthorized],
      })],
    });
    if (namespaced) {
      paths.push({
        path: `${prefix}/watch/${resource}`,
        parameters: [params.pretty],
        operations: [op({
          method: 'get', operationId: `watch${id}${kind}ListForAllNamespaces`, action: 'watchlist', form: 'watch',
          description: `watch individual changes to a list of ${kind}. deprecated: use the 'watch' parameter with a list operation instead.`,
          parameters: listParams, responses: [ok(watchEventSchema), unauthorized],
        })],
      });
    }
  }

  for (const sub of [...type.subresources].sort()) {
    const info = subresources[sub];
    if (info === undefined) continue;
    const subSchema = info.schema ?? schema;
    if (defs[subSchema] === undefined) continue;
    const subGvk = gvkOfDefinition(defs, subSchema) ?? gvk;
    const what = `${sub} of the specified ${kind}`;
    const name = `${id}${scope}${kind}${pascal(sub)}`;
    const ops: Operation[] = [];
    for (const verb of info.verbs) {
      if (verb === 'get') {
        ops.push(op({
          method: 'get', operationId: `read${name}`, action: 'get', form: 'object', gvk: subGvk,
          description: `read ${what}`, parameters: [], responses: [ok(subSchema), unauthorized],
        }));
      } else if (verb === 'update') {
        ops.push(op({
          method: 'put', operationId: `replace${name}`, action: 'put', form: 'object', gvk: subGvk,
          description: `replace ${what}`, parameters: writeParams, body: { schema: subSchema, form: 'object' },
          responses: [ok(subSchema), created(subSchema), unauthorized],
        }));
      } else if (verb === 'patch') {
        ops.push(op({
          method: 'patch', operationId: `patch${name}`, action: 'patch', form: 'object', gvk: subGvk,
          description: `partially update ${what}`, parameters: patchParams,
          body: { schema: patchSchema, form: 'patch' }, strategicMerge,
          responses: [ok(subSchema), created(subSchema), unauthorized],
        }));
      } else {
        ops.push(op({
          method: 'post', operationId: `create${name}`, action: 'post', form: 'object', gvk: subGvk,
          description: `create ${sub} of a ${kind}`, parameters: writeParams, body: { schema: subSchema, form: 'object' },
          responses: [ok(subSchema), created(subSchema), accepted(subSchema), unauthorized],
        }));
      }
    }
    paths.push({ path: `${item}/${sub}`, parameters: [...itemParams, params.pretty], operations: ops });
  }
  return paths;
}

function discoveryPath(path: string, operationId: string, tag: string, description: string, schema: string): PathItem {
  return {
    path,
    parameters: [],
    operations: [{ method: 'get', operationId, tag, description, parameters: [], form: 'object', responses: [ok(schema), unauthorized] }],
  };
}

export interface OperationModel {
  /** Per-document paths, keyed "api", "api/v1", "apis", "apis/apps", "apis/apps/v1", sorted. */
  documents: ApiDocumentModel[];
  /** Definitions the operations refer to: the given ones plus synthesized list kinds. */
  definitions: Definitions;
}

/**
 * The operations of the served types, grouped into upstream's OpenAPI v3 documents.
 * Types are ordered by group, version and resource so that the result does not depend
 * on registration order.
 */
export function operationModel(types: readonly ResourceType[], defs: Definitions, opts: OperationOptions = {}): OperationModel {
  const definitions: Definitions = { ...defs };
  const sorted = [...types].sort((a, b) =>
    a.group.localeCompare(b.group) || a.version.localeCompare(b.version) || a.resource.localeCompare(b.resource));
  const byKey = new Map<string, PathItem[]>();
  const add = (key: string, items: PathItem[]) => {
    const list = byKey.get(key);
    if (list === undefined) byKey.set(key, [...items]);
    else list.push(...items);
  };

  // Discovery operations are described only when their schemas are among the definitions.
  const discovery = (path: string, operationId: string, tag: string, description: string, schema: string): PathItem[] =>
    definitions[schema] === undefined ? [] : [discoveryPath(path, operationId, tag, description, schema)];

  for (const type of sorted) {
    if (definitions[type.schemaName] === undefined) {
      throw new Error(`no schema ${type.schemaName} for ${type.resource}.${type.group}/${type.version}`);
    }
    const listName = listSchemaName(type);
    if (definitions[listName] === undefined) definitions[listName] = syntheticListSchema(type);
    const key = groupVersionKey(type.group, type.version);
    if (!byKey.has(key)) {
      const id = `${groupIdentifier(type.group)}${pascal(type.version)}`;
      add(key, discovery(`/${key}/`, `get${id}APIResources`, groupVersionTag(type.group, type.version), 'get available resources', META + 'APIResourceList'));
    }
    add(key, resourcePaths(type, definitions, opts));
  }

  const groups = new Set(sorted.map((t) => t.group));
  if (groups.has('')) {
    add('api', discovery('/api/', 'getCoreAPIVersions', 'core', 'get available API versions', META + 'APIVersions'));
  }
  const named = [...groups].filter((g) => g !== '');
  if (named.length > 0) {
    add('apis', discovery('/apis/', 'getAPIVersions', 'apis', 'get available API versions', META + 'APIGroupList'));
    for (const group of named) {
      const id = groupIdentifier(group);
      add(`apis/${group}`, discovery(`/apis/${group}/`, `get${id}APIGroup`, `${id[0]!.toLowerCase()}${id.slice(1)}`, 'get information of a group', META + 'APIGroup'));
    }
  }

  const documents = [...byKey.entries()]
    .filter(([, paths]) => paths.length > 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, paths]) => ({ key, paths: paths.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) }));
  return { documents, definitions };
}
