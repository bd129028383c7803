// The kubeconfig file a webhook's connection is described by (`--authorization-webhook-config-file`,
// an authorization configuration's `connectionInfo.kubeConfigFile`,
// `--authentication-token-webhook-config-file`), read as client-go's non-interactive loader
// reads it for upstream's webhooks: the current context's cluster (server, CA, TLS server
// name, insecure-skip-tls-verify) and user (client certificate and key, bearer token),
// with file paths relative to the kubeconfig's own directory.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadYaml } from '../api/yaml.ts';

export interface WebhookConnection {
  server: string;
  caPem?: string;
  certPem?: string;
  keyPem?: string;
  token?: string;
  serverName?: string;
  insecureSkipTLSVerify: boolean;
}

type Raw = Record<string, unknown>;

function record(value: unknown): Raw {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Raw) : {};
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The entry of a kubeconfig's named list (`clusters`, `users`, `contexts`) with that name. */
function named(list: unknown, name: string, field: string): Raw | undefined {
  if (!Array.isArray(list)) return undefined;
  const entry = list.find((item) => text(record(item).name) === name);
  return entry === undefined ? undefined : record(record(entry)[field]);
}

/**
 * The connection a webhook kubeconfig describes. Errors are client-go's: an empty or
 * context-less file is `invalid configuration: no configuration has been provided`.
 */
export async function loadWebhookKubeconfig(file: string): Promise<WebhookConnection> {
  let data: string;
  try {
    data = await readFile(file, 'utf8');
  } catch (err) {
    throw new Error(`stat ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`);
  }
  let doc: Raw;
  try {
    doc = record((await loadYaml()).parse(data));
  } catch (err) {
    throw new Error(`error loading config file "${file}": ${(err as Error).message.split('\n')[0]}`);
  }
  const dir = path.dirname(path.resolve(file));
  // Without a current context, the unnamed context, cluster and user are used (as client-go resolves "").
  const contextName = text(doc['current-context']);
  const context = named(doc.contexts, contextName, 'context');
  if (context === undefined && contextName !== '') throw new Error(`invalid configuration: context was not found for specified context: ${contextName}`);
  const clusterName = text(context?.cluster);
  const cluster = named(doc.clusters, clusterName, 'cluster');
  const userName = text(context?.user);
  const user = named(doc.users, userName, 'user') ?? {};
  if (cluster === undefined && !Array.isArray(doc.clusters)) throw new Error('invalid configuration: no configuration has been provided');
  if (cluster === undefined) throw new Error(`invalid configuration: cluster ${JSON.stringify(clusterName)} was not found for context ${JSON.stringify(contextName)}`);
  if (text(cluster.server) === '') throw new Error('invalid configuration: cluster has no server defined');
  const fileOrData = async (fileField: string, dataField: string, from: Raw): Promise<string | undefined> => {
    const inline = text(from[dataField]);
    if (inline !== '') return Buffer.from(inline, 'base64').toString('utf8');
    const name = text(from[fileField]);
    if (name === '') return undefined;
    return readFile(path.isAbsolute(name) ? name : path.join(dir, name), 'utf8');
  };
  const tokenFile = text(user.tokenFile);
  const token = text(user.token) !== '' ? text(user.token)
    : tokenFile !== '' ? (await readFile(path.isAbsolute(tokenFile) ? tokenFile : path.join(dir, tokenFile), 'utf8')).trim() : undefined;
  const [caPem, certPem, keyPem] = await Promise.all([
    fileOrData('certificate-authority', 'certificate-authority-data', cluster),
    fileOrData('client-certificate', 'client-certificate-data', user),
    fileOrData('client-key', 'client-key-data', user),
  ]);
  return {
    server: text(cluster.server),
    insecureSkipTLSVerify: cluster['insecure-skip-tls-verify'] === true,
    ...(caPem !== undefined ? { caPem } : {}),
    ...(certPem !== undefined ? { certPem } : {}),
    ...(keyPem !== undefined ? { keyPem } : {}),
    ...(token !== undefined && token !== '' ? { token } : {}),
    ...(text(cluster['tls-server-name']) !== '' ? { serverName: text(cluster['tls-server-name']) } : {}),
  };
}
