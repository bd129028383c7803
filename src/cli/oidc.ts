// `--oidc-*` wiring: the OpenID Connect authenticator reads its issuer's discovery document
// and keys over HTTPS, trusting `--oidc-ca-file` when given, else the system's CAs.
import { readFile } from 'node:fs/promises';
import https from 'node:https';
import { oidcAuthenticator, type OidcAuthenticator } from '../auth/oidc.ts';
import type { OidcConfig } from './config.ts';

/** A GET of `url` parsed as JSON; a status other than 200, or no JSON, is an error. */
function getJson(url: string, ca: string | undefined): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ...(ca !== undefined ? { ca } : {}), timeout: 10_000, headers: { accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) {
          reject(new Error(`${url}: ${res.statusCode} ${res.statusMessage ?? ''}: ${body.slice(0, 200)}`));
          return;
        }
        try {
          resolve(JSON.parse(body));
        } catch {
          reject(new Error(`${url}: the answer is not JSON`));
        }
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${url}: no answer in 10 s`)));
    req.on('error', reject);
  });
}

export async function oidcFromConfig(config: OidcConfig, log: (message: string) => void): Promise<OidcAuthenticator> {
  const ca = config.caFile === undefined ? undefined : await readFile(config.caFile, 'utf8');
  const { caFile: _caFile, ...settings } = config;
  return oidcAuthenticator({ ...settings, fetchJson: (url) => getJson(url, ca), log });
}
