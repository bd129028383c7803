// Which node a user is, as upstream's default NodeIdentifier tells (pkg/auth/nodeidentifier):
// the Node authorizer and the NodeRestriction admission plugin both ask.

const nodeUserPrefix = 'system:node:';
export const nodesGroup = 'system:nodes';

/**
 * A user named `system:node:<name>` in the group `system:nodes` is that node; `nodeName`
 * may be empty, a node that cannot be told apart. Anyone else is no node (undefined).
 */
export function nodeIdentity(user: { name: string; groups: readonly string[] }): { nodeName: string } | undefined {
  if (!user.name.startsWith(nodeUserPrefix) || !user.groups.includes(nodesGroup)) return undefined;
  return { nodeName: user.name.slice(nodeUserPrefix.length) };
}
