// --admission-control-config-file: upstream's AdmissionConfiguration (apiserver.config.k8s.io/v1),
// each plugin's configuration given inline or by a path relative to the file. Plinth reads
// the PodSecurity plugin's; the other plugins' entries are accepted and not used.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadYaml } from '../api/yaml.ts';
import { parsePodSecurityConfiguration, type PodSecurityConfiguration } from '../admission/pod-security/plugin.ts';
import { UsageError } from './config.ts';

const apiVersions = ['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1alpha1', 'apiserver.k8s.io/v1alpha1'];

async function readDocument(file: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`unable to read ${what} from ${JSON.stringify(file)}: ${(err as Error).message}`);
  }
  try {
    return (await loadYaml()).parse(text);
  } catch (err) {
    throw new UsageError(`unable to decode ${what} from ${JSON.stringify(file)}: ${(err as Error).message}`);
  }
}

/** Each plugin's configuration by plugin name, as the file gives it (decoded, not yet validated). */
export async function loadAdmissionConfiguration(file: string): Promise<Map<string, unknown>> {
  const doc = (await readDocument(file, 'admission control configuration')) as { kind?: unknown; apiVersion?: unknown; plugins?: unknown } | null;
  if (doc === null || typeof doc !== 'object' || doc.kind !== 'AdmissionConfiguration' || !apiVersions.includes(String(doc.apiVersion))) {
    throw new UsageError(`${JSON.stringify(file)} is not an AdmissionConfiguration of ${apiVersions.join(', ')}`);
  }
  const plugins = new Map<string, unknown>();
  const entries = doc.plugins ?? [];
  if (!Array.isArray(entries)) throw new UsageError(`${JSON.stringify(file)}: plugins must be a list`);
  for (const [i, entry] of entries.entries()) {
    const { name, configuration, path: configPath } = (entry ?? {}) as { name?: unknown; configuration?: unknown; path?: unknown };
    if (typeof name !== 'string' || name === '') throw new UsageError(`${JSON.stringify(file)}: plugins[${i}].name is required`);
    if (configuration !== undefined && configuration !== null) {
      plugins.set(name, configuration);
    } else if (typeof configPath === 'string' && configPath !== '') {
      const resolved = path.isAbsolute(configPath) ? configPath : path.join(path.dirname(file), configPath);
      plugins.set(name, await readDocument(resolved, `the configuration of admission plugin ${name}`));
    }
  }
  return plugins;
}

/** PodSecurity's configuration from the file, validated as the plugin's initialization does; upstream's defaults without a file or an entry. */
export async function podSecurityConfiguration(file: string | undefined): Promise<PodSecurityConfiguration | undefined> {
  if (file === undefined) return undefined;
  const configuration = (await loadAdmissionConfiguration(file)).get('PodSecurity');
  if (configuration === undefined) return undefined;
  try {
    return parsePodSecurityConfiguration(configuration);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
