// `--authorization-mode Node` (upstream's plugin/pkg/auth/authorizer/node): what a
// kubelet may do, as the user `system:node:<name>` in the group `system:nodes`. Secrets,
// ConfigMaps, claims, volumes, attachments and service-account tokens only for what the
// pods bound to it use (the NodeGraph); its own Node, Lease and CSINode by name; pods
// listed or watched only with `spec.nodeName=<name>`; everything else by the static rules
// of the `system:node` ClusterRole. Writes it may make to any Node or Pod are left to the
// NodeRestriction admission plugin, as upstream. For anyone else it has no opinion.
import { nodeIdentity } from '../api/node-identity.ts';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer } from './authorize.ts';
import type { NodeGraph, VertexType } from './node-graph.ts';
import { ruleAllows, type PolicyRule } from './rbac-rules.ts';
import type { RuleResolver, SubjectRules } from './rule-resolver.ts';
import type { UserInfo } from './user.ts';

/** The namespace of the nodes' heartbeat Leases. */
const nodeLeaseNamespace = 'kube-node-lease';

const noOpinion = (reason = ''): AuthorizationDecision => ({ decision: 'NoOpinion', reason });
const allow: AuthorizationDecision = { decision: 'Allow' };

export class NodeAuthorizer implements Authorizer, RuleResolver {
  readonly #graph: NodeGraph;
  readonly #rules: readonly PolicyRule[];

  /** `rules`: what every node may do beyond the graph (the `system:node` ClusterRole's rules). */
  constructor(graph: NodeGraph, rules: readonly PolicyRule[]) {
    this.#graph = graph;
    this.#rules = rules;
  }

  async rulesFor(user: UserInfo): Promise<SubjectRules> {
    // A node's permissions depend on its pods: they cannot be listed as rules.
    if (nodeIdentity(user) !== undefined) {
      return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' };
    }
    return { resourceRules: [], nonResourceRules: [], incomplete: false };
  }

  authorize(user: UserInfo, attrs: AuthorizationAttributes): AuthorizationDecision {
    const identity = nodeIdentity(user);
    if (identity === undefined) return noOpinion();
    const { nodeName } = identity;
    if (nodeName === '') return noOpinion(`unknown node for user ${JSON.stringify(user.name)}`);
    if (attrs.resource !== '') {
      switch (`${attrs.group}/${attrs.resource}`) {
        case '/secrets': return this.#readNamespaced(nodeName, 'secret', attrs);
        case '/configmaps': return this.#readNamespaced(nodeName, 'configmap', attrs);
        case '/persistentvolumeclaims':
          return attrs.subresource === 'status' ? this.#statusUpdate(nodeName, 'pvc', attrs) : this.#get(nodeName, 'pvc', attrs);
        case '/persistentvolumes': return this.#get(nodeName, 'pv', attrs);
        case 'resource.k8s.io/resourceclaims': return this.#get(nodeName, 'resourceclaim', attrs);
        case 'storage.k8s.io/volumeattachments': return this.#get(nodeName, 'volumeattachment', attrs);
        case '/serviceaccounts': return this.#createToken(nodeName, attrs);
        case 'coordination.k8s.io/leases': return lease(nodeName, attrs);
        case 'storage.k8s.io/csinodes': return csiNode(nodeName, attrs);
        case 'resource.k8s.io/resourceslices': return this.#resourceSlice(nodeName, attrs);
        case '/nodes': return node(nodeName, attrs);
        case '/pods': return this.#pod(nodeName, attrs);
      }
    }
    return this.#rules.some((rule) => ruleAllows(attrs, rule)) ? allow : noOpinion();
  }

  #statusUpdate(nodeName: string, type: VertexType, attrs: AuthorizationAttributes): AuthorizationDecision {
    if (attrs.verb !== 'update' && attrs.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    if (attrs.subresource !== 'status') return noOpinion('can only update status subresource');
    return this.#related(nodeName, type, attrs);
  }

  #get(nodeName: string, type: VertexType, attrs: AuthorizationAttributes): AuthorizationDecision {
    if (attrs.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (attrs.subresource !== '') return noOpinion('cannot get subresource');
    return this.#related(nodeName, type, attrs);
  }

  #readNamespaced(nodeName: string, type: VertexType, attrs: AuthorizationAttributes): AuthorizationDecision {
    if (attrs.verb !== 'get' && attrs.verb !== 'list' && attrs.verb !== 'watch') return noOpinion('can only read resources of this type');
    if (attrs.subresource !== '') return noOpinion('cannot read subresource');
    if (attrs.namespace === '') return noOpinion('can only read namespaced object of this type');
    return this.#related(nodeName, type, attrs);
  }

  #related(nodeName: string, type: VertexType, attrs: AuthorizationAttributes): AuthorizationDecision {
    if (attrs.name === '') return noOpinion('No Object name found');
    return this.#graph.hasPathFrom(nodeName, type, attrs.namespace, attrs.name) ? allow : noRelationship(nodeName);
  }

  #createToken(nodeName: string, attrs: AuthorizationAttributes): AuthorizationDecision {
    if (attrs.verb !== 'create' || attrs.name === '') return noOpinion('can only create tokens for individual service accounts');
    if (attrs.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return this.#graph.hasPathFrom(nodeName, 'serviceaccount', attrs.namespace, attrs.name) ? allow : noRelationship(nodeName);
  }

  #resourceSlice(nodeName: string, attrs: AuthorizationAttributes): AuthorizationDecision {
    if (attrs.subresource !== '') return noOpinion('cannot authorize ResourceSlice subresources');
    switch (attrs.verb) {
      // The slice's nodeName is checked by NodeRestriction: the authorizer does not see the body.
      case 'create': return allow;
      case 'get': case 'update': case 'patch': case 'delete': return this.#related(nodeName, 'resourceslice', attrs);
      case 'watch': case 'list': case 'deletecollection':
        return selects(attrs, 'nodeName', nodeName) ? allow : noOpinion('can only list/watch/deletecollection resourceslices with nodeName field selector');
      default: return noOpinion('only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection');
    }
  }

  #pod(nodeName: string, attrs: AuthorizationAttributes): AuthorizationDecision {
    switch (attrs.subresource) {
      case '':
        switch (attrs.verb) {
          case 'get': return this.#get(nodeName, 'pod', attrs);
          case 'list': case 'watch':
            if (selects(attrs, 'spec.nodeName', nodeName)) return allow;
            if (attrs.name !== '') return this.#related(nodeName, 'pod', attrs);
            return noOpinion('can only list/watch pods with spec.nodeName field selector');
          // Mirror pods: NodeRestriction keeps them to the node's own.
          case 'create': case 'delete': return allow;
        }
        break;
      case 'status':
        if (attrs.verb === 'update' || attrs.verb === 'patch') return allow;
        break;
      case 'eviction':
        if (attrs.verb === 'create') return allow;
        break;
    }
    return noOpinion();
  }
}

function noRelationship(nodeName: string): AuthorizationDecision {
  return noOpinion(`no relationship found between node '${nodeName}' and this object`);
}

/** Whether the request's field selector requires `field` to equal `value` (one of its terms). */
function selects(attrs: AuthorizationAttributes, field: string, value: string): boolean {
  return attrs.fieldSelector?.some((term) => term.field === field && term.operator === '=' && term.value === value) === true;
}

/** Its own heartbeat Lease in kube-node-lease (a create's name is NodeRestriction's to check). */
function lease(nodeName: string, attrs: AuthorizationAttributes): AuthorizationDecision {
  const { verb } = attrs;
  if (verb !== 'get' && verb !== 'create' && verb !== 'update' && verb !== 'patch' && verb !== 'delete') {
    return noOpinion('can only get, create, update, patch, or delete a node lease');
  }
  if (attrs.namespace !== nodeLeaseNamespace) return noOpinion(`can only access leases in the ${JSON.stringify(nodeLeaseNamespace)} system namespace`);
  if (verb !== 'create' && attrs.name !== nodeName) return noOpinion('can only access node lease with the same name as the requesting node');
  return allow;
}

/** Its own CSINode (a create's name is NodeRestriction's to check). */
function csiNode(nodeName: string, attrs: AuthorizationAttributes): AuthorizationDecision {
  const { verb } = attrs;
  if (verb !== 'get' && verb !== 'create' && verb !== 'update' && verb !== 'patch' && verb !== 'delete') {
    return noOpinion('can only get, create, update, patch, or delete a CSINode');
  }
  if (attrs.subresource !== '') return noOpinion('cannot authorize CSINode subresources');
  if (verb !== 'create' && attrs.name !== nodeName) return noOpinion('can only access CSINode with the same name as the requesting node');
  return allow;
}

/**
 * Node objects: writes to any (NodeRestriction keeps a node to its own), reads of its own
 * by name, so a kubelet can look for its Node before creating it.
 */
function node(nodeName: string, attrs: AuthorizationAttributes): AuthorizationDecision {
  if (attrs.subresource === '') {
    switch (attrs.verb) {
      case 'create': case 'update': case 'patch': return allow;
      case 'get': case 'list': case 'watch':
        if (attrs.name === nodeName) return allow;
        if (attrs.name === '') return noOpinion(`node '${nodeName}' cannot read all nodes, only its own Node object`);
        return noOpinion(`node '${nodeName}' cannot read '${attrs.name}', only its own Node object`);
    }
  } else if (attrs.subresource === 'status' && (attrs.verb === 'update' || attrs.verb === 'patch')) {
    return allow;
  }
  return noOpinion();
}
