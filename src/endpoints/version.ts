// /version.
/** `/version`: a Kubernetes version clients can compare against, naming Plinth in gitVersion. */
export const kubernetesMinor = 36;

export function versionInfo(plinthVersion: string): Record<string, string> {
  return {
    major: '1',
    minor: String(kubernetesMinor),
    emulationMajor: '1',
    emulationMinor: String(kubernetesMinor),
    minCompatibilityMajor: '1',
    minCompatibilityMinor: String(kubernetesMinor - 1),
    gitVersion: `v1.${kubernetesMinor}.0-plinth.${plinthVersion}`,
    gitCommit: '',
    gitTreeState: 'clean',
    buildDate: '1970-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'plinth',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}
