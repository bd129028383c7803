// Warnings for deprecated node labels where a selector names them, after kubernetes
// pkg/api/node/util.go (GetNodeLabelDeprecatedMessage, GetWarningsForNodeSelectorTerm).

import { child, index, type FieldPath } from '../validation/field.ts';
import { isLabelValue } from '../validation/names.ts';
import { arrayAt, itemsAt, stringAt } from './object.ts';

const deprecatedNodeLabels: Readonly<Record<string, string>> = {
  'beta.kubernetes.io/arch': 'deprecated since v1.14; use "kubernetes.io/arch" instead',
  'beta.kubernetes.io/os': 'deprecated since v1.14; use "kubernetes.io/os" instead',
  'failure-domain.beta.kubernetes.io/region': 'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
  'failure-domain.beta.kubernetes.io/zone': 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
  'beta.kubernetes.io/instance-type': 'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
  'app.kubernetes.io/created-by': 'deprecated since v1.9',
  'scheduler.alpha.kubernetes.io/preferAvoidPods': 'deprecated since v1.22; use Taints and Tolerations instead',
  'node-role.kubernetes.io/master': 'use "node-role.kubernetes.io/control-plane" instead',
};

/** Why a node label is deprecated; undefined when it is not (upstream's GetNodeLabelDeprecatedMessage). */
export function nodeLabelDeprecatedMessage(label: string): string | undefined {
  return Object.hasOwn(deprecatedNodeLabels, label) ? deprecatedNodeLabels[label] : undefined;
}

/**
 * Upstream's GetWarningsForNodeSelectorTerm: each match expression keyed by a deprecated
 * node label; with `checkLabelValues` (preferred terms, whose values validation lets
 * through) each value that is no valid label value.
 */
export function nodeSelectorTermWarnings(term: unknown, checkLabelValues: boolean, path: FieldPath): string[] {
  const warnings: string[] = [];
  itemsAt(term, 'matchExpressions').forEach((expression, i) => {
    const p = index(child(path, 'matchExpressions'), i);
    const key = stringAt(expression, 'key');
    const deprecated = nodeLabelDeprecatedMessage(key);
    if (deprecated !== undefined) warnings.push(`${child(p, 'key')}: ${key} is ${deprecated}`);
    if (!checkLabelValues) return;
    arrayAt(expression, 'values').forEach((value, j) => {
      const text = typeof value === 'string' ? value : '';
      for (const msg of isLabelValue(text)) warnings.push(`${index(child(p, 'values'), j)}: ${text} is invalid, ${msg}`);
    });
  });
  return warnings;
}
