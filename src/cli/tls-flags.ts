// `--tls-min-version` and `--tls-cipher-suites` as kube-apiserver takes them: Go's crypto/tls
// names (component-base's flag maps them to suite IDs) turned into OpenSSL's, which Node's TLS
// speaks. As with Go, the suites name TLS 1.2 and older: TLS 1.3's are not configurable and
// stay on (Node would turn TLS 1.3 off for a list without them). Errors are upstream's words,
// thrown as Errors for config.ts to report as usage errors.

/** Go's suite names (tls.CipherSuites() and tls.InsecureCipherSuites(), with the two ChaCha aliases) and OpenSSL's. */
const openSslNames: Record<string, string> = {
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  // Go's insecure ones: accepted, as upstream accepts them (OpenSSL may have no RC4 to offer).
  TLS_RSA_WITH_RC4_128_SHA: 'RC4-SHA',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'ECDHE-ECDSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'ECDHE-RSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
};

/** TLS 1.3's suites, which Go does not let a list change. */
const tls13Suites = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

const versions: Record<string, 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'> = {
  VersionTLS10: 'TLSv1', VersionTLS11: 'TLSv1.1', VersionTLS12: 'TLSv1.2', VersionTLS13: 'TLSv1.3',
};

/** `--tls-min-version`: Node's name for Go's, refused in component-base's words. */
export function parseTlsMinVersion(name: string): 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3' {
  const version = versions[name];
  if (version === undefined) throw new Error(`unknown tls version ${JSON.stringify(name)}`);
  return version;
}

/** `--tls-cipher-suites` (comma-separated Go names): the OpenSSL cipher string, TLS 1.3's suites first. */
export function parseTlsCipherSuites(list: string): string | undefined {
  const names = list.split(',').map((name) => name.trim()).filter((name) => name !== '');
  if (names.length === 0) return undefined;
  const chosen: string[] = [];
  for (const name of names) {
    if (tls13Suites.includes(name)) continue;
    const openSsl = openSslNames[name];
    if (openSsl === undefined) throw new Error(`Cipher suite ${name} not supported or doesn't exist`);
    if (!chosen.includes(openSsl)) chosen.push(openSsl);
  }
  return [...tls13Suites, ...chosen].join(':');
}
