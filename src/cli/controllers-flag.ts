// --controllers, in kube-controller-manager's syntax, for Plinth's own in-process
// controllers: '*' enables every controller on by default, 'foo' enables foo, '-foo'
// disables it; the first entry that names a controller decides. Names are upstream's
// (namespace-controller, garbage-collector-controller, …); their old short names are
// accepted too (namespace, garbagecollector, …), as kube-controller-manager accepts them.
/** Plinth's controllers that kube-controller-manager also runs, by upstream's name, with its alias. */
export const plinthControllers: Readonly<Record<string, string>> = {
  'namespace-controller': 'namespace',
  'serviceaccount-controller': 'serviceaccount',
  'resourcequota-controller': 'resourcequota',
  'garbage-collector-controller': 'garbagecollector',
  'pod-garbage-collector-controller': 'podgc',
  'root-ca-certificate-publisher-controller': 'root-ca-cert-publisher',
  'clusterrole-aggregation-controller': 'clusterrole-aggregation',
  'persistentvolumeclaim-protection-controller': 'pvc-protection',
  'persistentvolume-protection-controller': 'pv-protection',
  'validatingadmissionpolicy-status-controller': 'validatingadmissionpolicy-status',
};

const byAlias = new Map(Object.entries(plinthControllers).map(([name, alias]) => [alias, name]));

function canonical(name: string): string {
  return byAlias.get(name) ?? name;
}

/** The --controllers entries with aliases resolved; a name Plinth does not run throws (a usage error for the caller). */
export function parseControllers(text: string): string[] {
  const entries = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return entries.map((entry) => {
    if (entry === '*') return entry;
    const negated = entry.startsWith('-');
    const name = canonical(negated ? entry.slice(1) : entry);
    if (!(name in plinthControllers)) {
      throw new Error(`--controllers: ${JSON.stringify(negated ? entry.slice(1) : entry)} is not in the list of known controllers: ${Object.keys(plinthControllers).join(', ')}`);
    }
    return negated ? `-${name}` : name;
  });
}

/** Whether `name` runs under the parsed --controllers entries (every one of Plinth's is on by default). */
export function controllerEnabled(entries: readonly string[], name: string): boolean {
  let star = false;
  for (const entry of entries) {
    if (entry === name) return true;
    if (entry === `-${name}`) return false;
    if (entry === '*') star = true;
  }
  return star;
}
