// Makes src/auth/bootstrap-policy/policy.json from upstream's bootstrap-policy YAML in the
// same folder (see its README): the ClusterRoles and ClusterRoleBindings, with upstream's
// controller bindings (system:controller:<name> bound to the kube-system ServiceAccount
// <name>) made from the controller roles. Plinth reads the JSON at start; YAML would take
// longer to parse than the rest of RBAC's start-up. test/auth/bootstrap-policy.test.ts
// checks the committed JSON equals a fresh generation.
//
//   node tools/generate-bootstrap-policy.ts            # writes policy.json
//   node tools/generate-bootstrap-policy.ts --check    # exits 1 when it differs

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import type { KubeObject } from '../src/api/index.ts';

const policyDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/auth/bootstrap-policy');
export const policyJsonPath = path.join(policyDir, 'policy.json');
const group = 'rbac.authorization.k8s.io';

function readList(file: string): KubeObject[] {
  const list = parseYaml(readFileSync(path.join(policyDir, file), 'utf8')) as { items: KubeObject[] };
  return list.items.map((item) => {
    // The test data is what upstream's Go types print: a null creationTimestamp and null rules mean "none".
    delete item.metadata.creationTimestamp;
    if (item.rules === null) item.rules = [];
    return item;
  });
}

function controllerBinding(role: KubeObject): KubeObject {
  const name = role.metadata.name!;
  return {
    apiVersion: `${group}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { annotations: { ...role.metadata.annotations }, labels: { ...role.metadata.labels }, name },
    roleRef: { apiGroup: group, kind: 'ClusterRole', name },
    subjects: [{ kind: 'ServiceAccount', name: name.slice('system:controller:'.length), namespace: 'kube-system' }],
  };
}

/** The policy.json text a fresh generation writes. */
export function generateBootstrapPolicy(): string {
  const controllerRoles = readList('controller-roles.yaml');
  const policy = {
    clusterRoles: [...readList('cluster-roles.yaml'), ...controllerRoles],
    clusterRoleBindings: [...readList('cluster-role-bindings.yaml'), ...controllerRoles.map(controllerBinding)],
  };
  return `${JSON.stringify(policy)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const fresh = generateBootstrapPolicy();
  if (process.argv.includes('--check')) {
    if (readFileSync(policyJsonPath, 'utf8') !== fresh) {
      console.error(`${policyJsonPath} differs from a fresh generation`);
      process.exit(1);
    }
  } else {
    writeFileSync(policyJsonPath, fresh);
  }
}
