// `--client-ca-file` and `--requestheader-client-ca-file` followed as upstream's dynamic CA
// bundles follow them: a change (noticed at once where the file system reports it, else
// within a minute) to a bundle that holds certificates is trusted from the next TLS handshake
// on and published in kube-system/extension-apiserver-authentication; a bundle that does not
// load is logged and the trusted one stays.
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { watchFile } from './watch-file.ts';

export interface ClientCas {
  clientCaPem: string;
  requestHeaderCaPem: string | undefined;
}

/** A CA bundle's text when it holds at least one certificate, every one of which parses; else throws upstream's words. */
export async function readCaBundle(file: string): Promise<string> {
  const pem = await readFile(file, 'utf8');
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error('data does not contain any valid RSA or ECDSA certificates');
  for (const block of blocks) new X509Certificate(block);
  return pem;
}

export function followClientCas(
  files: { clientCaFile: string | undefined; requestHeaderCaFile: string | undefined },
  trusted: ClientCas,
  trust: (next: ClientCas) => void,
  log: (message: string) => void,
): { close(): void } {
  let current = trusted;
  const follow = (file: string | undefined, purpose: string, take: (pem: string) => ClientCas) => {
    if (file === undefined) return undefined;
    const name = `${purpose}::${file}`;
    return watchFile(file, async () => {
      let pem: string;
      try {
        pem = await readCaBundle(file);
      } catch (err) {
        log(`"${name}" failed with : ${(err as Error).message}`);
        return;
      }
      const next = take(pem);
      if (next.clientCaPem === current.clientCaPem && next.requestHeaderCaPem === current.requestHeaderCaPem) return;
      current = next;
      trust(next);
      log(`Loaded a new CA Bundle and Verifier name="${name}"`);
    });
  };
  const watches = [
    follow(files.clientCaFile, 'client-ca-bundle', (pem) => ({ ...current, clientCaPem: pem })),
    follow(files.requestHeaderCaFile, 'request-header', (pem) => ({ ...current, requestHeaderCaPem: pem })),
  ];
  return {
    close() {
      for (const watch of watches) watch?.close();
    },
  };
}
