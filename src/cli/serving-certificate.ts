// `--tls-cert-file` and `--tls-private-key-file` (and each `--tls-sni-cert-key` pair) followed
// as upstream's dynamic serving certificates follow them: a change to either file (noticed at once where the file system
// reports it, else within a minute) that loads is served to new connections; one that does
// not (a half-written pair, a key that does not match) is logged and the served pair stays.
import { readServingFiles, servingContentName } from '../server/serving-files.ts';
import type { ServingMaterial } from '../server/tls-material.ts';
import { watchFile } from './watch-file.ts';

export function followServingFiles(
  certFile: string,
  keyFile: string,
  served: Pick<ServingMaterial, 'certPem' | 'keyPem'>,
  serve: (material: ServingMaterial) => void,
  log: (message: string) => void,
  /** How upstream names the content in its logs: `serving-cert`, or `sni-serving-cert` for a `--tls-sni-cert-key` pair. */
  kind = 'serving-cert',
): { close(): void } {
  let current = served;
  const name = servingContentName(certFile, keyFile).replace(/^serving-cert/, kind);
  const reload = async (): Promise<void> => {
    let next: ServingMaterial;
    try {
      next = await readServingFiles(certFile, keyFile);
    } catch (err) {
      log(`"${name}" failed with : ${(err as Error).message}`);
      return;
    }
    if (next.certPem === current.certPem && next.keyPem === current.keyPem) return;
    serve(next);
    current = next;
    log(`Loaded a new cert/key pair name="${name}"`);
  };
  const watches = [watchFile(certFile, reload), watchFile(keyFile, reload)];
  return {
    close() {
      for (const watch of watches) watch.close();
    },
  };
}
