// `plinth serve` flags that the tests elsewhere do not reach.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultConfig, parseServeFlags, serveUsage, UsageError, type Config } from '../../src/cli/config.ts';

test('verbosity is 0 unless -v/--v says otherwise, in each of pflag\'s spellings', () => {
  assert.equal(parseServeFlags([]).verbosity, 0);
  for (const args of [['--v=4'], ['--v', '4'], ['-v', '4'], ['-v4'], ['-v=4']]) {
    assert.equal(parseServeFlags(args).verbosity, 4, args.join(' '));
  }
});

test('a verbosity that is not a number is a usage error', () => {
  for (const args of [['--v=x'], ['--v=-1'], ['--v=']]) {
    assert.throws(() => parseServeFlags(args), UsageError, args.join(' '));
  }
});

test('--watch-cache-window-bytes takes a byte count, plain or with a binary suffix', () => {
  const cases: [string, number][] = [['268435456', 268_435_456], ['64Mi', 64 * 1024 ** 2], ['512Ki', 512 * 1024], ['1Gi', 1024 ** 3]];
  for (const [flag, bytes] of cases) assert.equal(parseServeFlags(['--watch-cache-window-bytes', flag]).watchCacheWindowBytes, bytes, flag);
  assert.equal(parseServeFlags([]).watchCacheWindowBytes, defaultConfig().watchCacheWindowBytes);
  assert.equal(defaultConfig().watchCacheWindowBytes, 256 * 1024 ** 2);
  assert.match(serveUsage, /--watch-cache-window-bytes/);
});

test('--watch-cache-window-bytes refuses what is not a byte count', () => {
  for (const flag of ['', '64MB', '-1', '1.5Mi', 'lots']) {
    assert.throws(() => parseServeFlags([`--watch-cache-window-bytes=${flag}`]), (err) => err instanceof UsageError && /--watch-cache-window-bytes/.test(err.message), flag);
  }
});

test('--event-ttl is a duration kept in whole seconds, an hour by default; under a second keeps Events for good', () => {
  assert.equal(parseServeFlags([]).eventTtlSeconds, 3600);
  const cases: [string, number][] = [['2h', 7200], ['90s', 90], ['1500ms', 1], ['999ms', 0], ['0', 0]];
  for (const [flag, seconds] of cases) assert.equal(parseServeFlags(['--event-ttl', flag]).eventTtlSeconds, seconds, flag);
  assert.throws(() => parseServeFlags(['--event-ttl', 'an hour']), (err) => err instanceof UsageError && /invalid duration "an hour"/.test(err.message));
  assert.match(serveUsage, /--event-ttl dur/);
});

test('--advertise-address takes an IP address, in pflag\'s words otherwise', () => {
  assert.equal(parseServeFlags([]).advertiseAddress, undefined);
  assert.equal(parseServeFlags(['--advertise-address', '192.168.1.10']).advertiseAddress, '192.168.1.10');
  assert.equal(parseServeFlags(['--advertise-address=fd00::10']).advertiseAddress, 'fd00::10');
  assert.throws(() => parseServeFlags(['--advertise-address', 'api.example.com']), (err) => err instanceof UsageError && err.message === 'invalid argument "api.example.com" for "--advertise-address" flag: failed to parse IP: "api.example.com"');
});

test('--cors-allowed-origins: Go expressions pinned to the host at both ends, as upstream validates them', () => {
  assert.deepEqual(parseServeFlags([]).corsAllowedOrigins, []);
  for (const origins of ['^http://foo.com$', '^http://foo.com', '://foo.com$', '//foo.com$', '^http://foo.com(:|$)', '//foo.com(:|$)', '(^foo.com$)', '^http://foo.com$,//bar.com(:|$)']) {
    assert.deepEqual(parseServeFlags(['--cors-allowed-origins', origins]).corsAllowedOrigins, origins.split(','), origins);
  }
  const refused: Array<[string, RegExp]> = [
    ['^foo.com', /^--cors-allowed-origins has an invalid regular expression: regular expression does not pin to start\/end of host in the origin header, help: /],
    ['//foo.com', /does not pin to start\/end of host/],
    ['foo.com$', /does not pin to start\/end of host/],
    ['foo.com(:|$)', /does not pin to start\/end of host/],
    ['^http://foo.com$,', /^empty value in --cors-allowed-origins, help: /],
    ['^(foo$', /^--cors-allowed-origins has an invalid regular expression: error parsing regexp: missing closing \): `\^\(foo\$`, help: /],
    // Two entries with one fault are one message; two faults two, as upstream's aggregate shows them.
    ['^foo.com,foo.com$', /^--cors-allowed-origins has an invalid regular expression: regular expression does not pin[^[]*$/],
    ['^foo.com,^(foo$', /^\[--cors-allowed-origins has an invalid regular expression: regular expression does not pin.*, --cors-allowed-origins has an invalid regular expression: error parsing regexp: .*\]$/],
  ];
  for (const [origins, message] of refused) {
    assert.throws(() => parseServeFlags([`--cors-allowed-origins=${origins}`]), (err) => err instanceof UsageError && message.test(err.message), origins);
  }
});

test('--strict-transport-security-directives, --goaway-chance and --min-request-timeout are checked as upstream checks them', () => {
  const defaults = parseServeFlags([]);
  assert.deepEqual([defaults.hstsDirectives, defaults.goawayChance, defaults.minRequestTimeoutSeconds], [[], 0, 1800]);
  const set = parseServeFlags(['--strict-transport-security-directives', 'max-age=31536000,includeSubDomains,preload', '--goaway-chance', '0.001', '--min-request-timeout', '60']);
  assert.deepEqual([set.hstsDirectives, set.goawayChance, set.minRequestTimeoutSeconds], [['max-age=31536000', 'includeSubDomains', 'preload'], 0.001, 60]);
  const refused: Array<[string[], string]> = [
    [['--strict-transport-security-directives', 'max-age=1,subdomains'], '--strict-transport-security-directives invalid, allowed values: max-age=expireTime, includeSubDomains, preload. see https://tools.ietf.org/html/rfc6797#section-6.1 for more information'],
    [['--strict-transport-security-directives', 'max-age=1, '], 'empty value in strict-transport-security-directives'],
    [['--goaway-chance', '0.5'], '--goaway-chance can not be less than 0 or greater than 0.02'],
    [['--goaway-chance', 'often'], 'invalid argument "often" for "--goaway-chance" flag: strconv.ParseFloat: parsing "often": invalid syntax'],
    [['--min-request-timeout=-1'], '--min-request-timeout can not be negative value'],
    [['--min-request-timeout=-1', '--goaway-chance=-1'], '[--min-request-timeout can not be negative value, --goaway-chance can not be less than 0 or greater than 0.02]'],
    [['--min-request-timeout', '1m'], 'invalid argument "1m" for "--min-request-timeout" flag: strconv.ParseInt: parsing "1m": invalid syntax'],
  ];
  for (const [args, message] of refused) assert.throws(() => parseServeFlags(args), (err) => err instanceof UsageError && err.message === message, args.join(' '));
});

test('the shutdown flags: a delay, Retry-After answers while draining, and the watches\' grace period, none by default', () => {
  const defaults = parseServeFlags([]);
  assert.deepEqual([defaults.shutdownDelayMs, defaults.shutdownSendRetryAfter, defaults.shutdownWatchTerminationGraceMs], [0, false, 0]);
  const set = parseServeFlags(['--shutdown-delay-duration', '15s', '--shutdown-send-retry-after', '--shutdown-watch-termination-grace-period=1m']);
  assert.deepEqual([set.shutdownDelayMs, set.shutdownSendRetryAfter, set.shutdownWatchTerminationGraceMs], [15_000, true, 60_000]);
  assert.equal(parseServeFlags(['--shutdown-send-retry-after=false']).shutdownSendRetryAfter, false);
  assert.throws(() => parseServeFlags(['--shutdown-send-retry-after=maybe']), (err) => err instanceof UsageError && err.message === 'invalid argument "maybe" for "--shutdown-send-retry-after" flag: strconv.ParseBool: parsing "maybe": invalid syntax');
  assert.throws(() => parseServeFlags(['--shutdown-delay-duration', 'soon']), (err) => err instanceof UsageError && err.message === 'invalid argument "soon" for "--shutdown-delay-duration" flag: time: invalid duration "soon"');
  assert.throws(() => parseServeFlags(['--shutdown-delay-duration=-1s', '--shutdown-watch-termination-grace-period=-1s']), (err) => err instanceof UsageError
    && err.message === '[--shutdown-delay-duration can not be negative value, shutdown-watch-termination-grace-period, if provided, can not be a negative value]');
});

test('the service-account token flags: an https key set URL, a maximum of 1 hour to 2^32 s, extension on by default', () => {
  const defaults = parseServeFlags([]);
  assert.deepEqual([defaults.serviceAccountJwksUri, defaults.serviceAccountMaxTokenExpirationSeconds, defaults.serviceAccountExtendTokenExpiration, defaults.externalHostname], [undefined, undefined, true, undefined]);
  const set = parseServeFlags(['--service-account-jwks-uri', 'https://keys.example.test/jwks', '--service-account-max-token-expiration', '24h', '--service-account-extend-token-expiration=false', '--external-hostname', 'api.example.test']);
  assert.deepEqual([set.serviceAccountJwksUri, set.serviceAccountMaxTokenExpirationSeconds, set.serviceAccountExtendTokenExpiration, set.externalHostname], ['https://keys.example.test/jwks', 86_400, false, 'api.example.test']);
  assert.equal(parseServeFlags(['--service-account-max-token-expiration', '0']).serviceAccountMaxTokenExpirationSeconds, undefined);
  const refused: Array<[string[], RegExp]> = [
    [['--service-account-jwks-uri', 'http://keys.example.test/jwks'], /^service-account-jwks-uri requires https scheme, parsed as: http:\/\/keys\.example\.test\/jwks$/],
    [['--service-account-jwks-uri', 'not a url'], /^service-account-jwks-uri must be a valid URL: /],
    [['--service-account-max-token-expiration', '30m'], /^the service-account-max-token-expiration must be between 1 hour and 2\^32 seconds$/],
    [['--service-account-max-token-expiration', '1193047h'], /^the service-account-max-token-expiration must be between 1 hour and 2\^32 seconds$/],
  ];
  for (const [args, message] of refused) assert.throws(() => parseServeFlags(args), (err) => err instanceof UsageError && message.test(err.message), args.join(' '));
});

test('--tls-min-version and --tls-cipher-suites take Go\'s names, TLS 1.3\'s suites always kept', () => {
  assert.deepEqual([parseServeFlags([]).tlsMinVersion, parseServeFlags([]).tlsCiphers], [undefined, undefined]);
  assert.equal(parseServeFlags(['--tls-min-version', 'VersionTLS13']).tlsMinVersion, 'TLSv1.3');
  assert.equal(
    parseServeFlags(['--tls-cipher-suites', 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305,TLS_AES_128_GCM_SHA256']).tlsCiphers,
    'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305',
  );
  assert.throws(() => parseServeFlags(['--tls-min-version', 'TLS1.3']), (err) => err instanceof UsageError && err.message === 'unknown tls version "TLS1.3"');
  assert.throws(() => parseServeFlags(['--tls-cipher-suites', 'ECDHE-RSA-AES128-GCM-SHA256']), (err) => err instanceof UsageError && err.message === "Cipher suite ECDHE-RSA-AES128-GCM-SHA256 not supported or doesn't exist");
});

test('--allow-privileged is off by default, as upstream; the bare flag turns it on', () => {
  assert.equal(parseServeFlags([]).allowPrivileged, false);
  assert.equal(parseServeFlags(['--allow-privileged']).allowPrivileged, true);
  assert.equal(parseServeFlags(['--allow-privileged=true']).allowPrivileged, true);
  assert.equal(parseServeFlags(['--allow-privileged=1']).allowPrivileged, true);
  assert.throws(() => parseServeFlags(['--allow-privileged=yes']), (err) => err instanceof UsageError && err.message === 'invalid argument "yes" for "--allow-privileged" flag: strconv.ParseBool: parsing "yes": invalid syntax');
});

test('--encryption-provider-config-automatic-reload needs --encryption-provider-config', () => {
  assert.equal(parseServeFlags(['--encryption-provider-config', 'e.yaml', '--encryption-provider-config-automatic-reload']).encryptionProviderConfigAutomaticReload, true);
  assert.throws(() => parseServeFlags(['--encryption-provider-config-automatic-reload']), (err) => err instanceof UsageError && err.message === '--encryption-provider-config-automatic-reload must be set with --encryption-provider-config');
});

test('--endpoint-reconciler-type is lease by default, or none; master-count is not built', () => {
  assert.equal(parseServeFlags([]).endpointReconcilerType, 'lease');
  assert.equal(parseServeFlags(['--endpoint-reconciler-type', 'none']).endpointReconcilerType, 'none');
  assert.throws(() => parseServeFlags(['--endpoint-reconciler-type', 'master-count']), (err) => err instanceof UsageError && /lease or none/.test(err.message));
});

test('--default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds: 300 by default, Go\'s integers', () => {
  const defaults = parseServeFlags([]);
  assert.deepEqual([defaults.defaultNotReadyTolerationSeconds, defaults.defaultUnreachableTolerationSeconds], [300, 300]);
  const set = parseServeFlags(['--default-not-ready-toleration-seconds', '60', '--default-unreachable-toleration-seconds=0']);
  assert.deepEqual([set.defaultNotReadyTolerationSeconds, set.defaultUnreachableTolerationSeconds], [60, 0]);
  assert.throws(() => parseServeFlags(['--default-not-ready-toleration-seconds', '5m']), (err) => err instanceof UsageError && err.message === 'invalid argument "5m" for "--default-not-ready-toleration-seconds" flag: strconv.ParseInt: parsing "5m": invalid syntax');
});

test('--etcd-healthcheck-timeout, --etcd-readycheck-timeout and --lease-reuse-duration-seconds: upstream\'s defaults, positive values', () => {
  const defaults = parseServeFlags([]);
  assert.deepEqual([defaults.etcdHealthcheckTimeoutMs, defaults.etcdReadycheckTimeoutMs, defaults.leaseReuseDurationSeconds], [2000, 2000, 60]);
  const set = parseServeFlags(['--etcd-healthcheck-timeout', '5s', '--etcd-readycheck-timeout=500ms', '--lease-reuse-duration-seconds', '10']);
  assert.deepEqual([set.etcdHealthcheckTimeoutMs, set.etcdReadycheckTimeoutMs, set.leaseReuseDurationSeconds], [5000, 500, 10]);
  assert.throws(() => parseServeFlags(['--etcd-readycheck-timeout', '0']), (err) => err instanceof UsageError && /--etcd-readycheck-timeout must be a positive duration/.test(err.message));
  assert.throws(() => parseServeFlags(['--lease-reuse-duration-seconds', '0']), (err) => err instanceof UsageError && err.message === '--lease-reuse-duration-seconds must be at least 1');
  assert.throws(() => parseServeFlags(['--lease-reuse-duration-seconds', '1.5']), (err) => err instanceof UsageError && err.message === 'invalid argument "1.5" for "--lease-reuse-duration-seconds" flag: strconv.ParseInt: parsing "1.5": invalid syntax');
});

test('--audit-log-format, --audit-log-version and --audit-*-truncate-* as upstream validates them, with a log path', () => {
  const usage = (flags: string[], message: RegExp) => assert.throws(() => parseServeFlags(flags), (err) => err instanceof UsageError && message.test(err.message), flags.join(' '));
  const log = ['--audit-log-path=/var/log/audit.log'];
  assert.equal(parseServeFlags(log).auditLogFormat, 'json');
  assert.equal(parseServeFlags([...log, '--audit-log-format=legacy']).auditLogFormat, 'legacy');
  assert.equal(parseServeFlags([...log, '--audit-log-version=audit.k8s.io/v1']).auditLogTruncate, undefined);
  assert.deepEqual(parseServeFlags([...log, '--audit-log-truncate-enabled']).auditLogTruncate, { maxEventSize: 102400, maxBatchSize: 10485760 });
  assert.deepEqual(parseServeFlags([...log, '--audit-log-truncate-enabled=true', '--audit-log-truncate-max-event-size=2048', '--audit-log-truncate-max-batch-size=4096']).auditLogTruncate, { maxEventSize: 2048, maxBatchSize: 4096 });
  usage([...log, '--audit-log-format=xml'], /^invalid audit log format xml, allowed formats are "legacy,json"$/);
  usage([...log, '--audit-log-version=audit.k8s.io/v1beta1'], /^invalid group version, allowed versions are \["audit.k8s.io\/v1"\]$/);
  usage([...log, '--audit-log-truncate-max-event-size=0'], /^invalid audit truncate log max event size 0, must be a positive number$/);
  usage([...log, '--audit-log-truncate-max-batch-size=100'], /^invalid audit truncate log max batch size 100, must be greater than max event size \(102400\)$/);
  usage([...log, '--audit-log-truncate-max-event-size=1k'], /invalid argument "1k" for "--audit-log-truncate-max-event-size" flag: strconv.ParseInt/);
  // Without a log path the log's options are not looked at, as upstream's.
  assert.equal(parseServeFlags(['--audit-log-format=xml']).auditLogFormat, 'json');
  const webhook = ['--audit-webhook-config-file=/etc/audit-webhook.kubeconfig'];
  assert.deepEqual(parseServeFlags([...webhook, '--audit-webhook-truncate-enabled']).auditWebhook?.truncate, { maxEventSize: 102400, maxBatchSize: 10485760 });
  usage([...webhook, '--audit-webhook-truncate-max-event-size=-1'], /^invalid audit truncate webhook max event size -1, must be a positive number$/);
});

test('--audit-log-compress is off by default; the bare flag turns it on', () => {
  assert.equal(parseServeFlags([]).auditLogCompress, false);
  assert.equal(parseServeFlags(['--audit-log-compress']).auditLogCompress, true);
});

test('the --kubelet-* flags kubeadm passes: address types of upstream\'s names, a client certificate with its key', () => {
  const set = parseServeFlags(['--kubelet-preferred-address-types', 'InternalIP,ExternalIP,Hostname', '--kubelet-client-certificate', 'k.crt', '--kubelet-client-key', 'k.key']);
  assert.deepEqual([set.kubeletPreferredAddressTypes, set.kubeletClientCertificate, set.kubeletClientKey], [['InternalIP', 'ExternalIP', 'Hostname'], 'k.crt', 'k.key']);
  assert.throws(() => parseServeFlags(['--kubelet-preferred-address-types', 'InternalIP,LegacyHostIP']), (err) => err instanceof UsageError && /invalid --kubelet-preferred-address-types/.test(err.message));
  assert.throws(() => parseServeFlags(['--kubelet-client-certificate', 'k.crt']), (err) => err instanceof UsageError && /go together/.test(err.message));
});

test('the flags of kubeadm\'s kube-apiserver manifest are all taken', () => {
  const pki = '/etc/kubernetes/pki';
  const config = parseServeFlags([
    '--advertise-address=192.168.1.10', '--allow-privileged=true', '--authorization-mode=Node,RBAC', `--client-ca-file=${pki}/ca.crt`,
    '--enable-admission-plugins=NodeRestriction', '--enable-bootstrap-token-auth=true', `--etcd-cafile=${pki}/etcd/ca.crt`,
    `--etcd-certfile=${pki}/apiserver-etcd-client.crt`, `--etcd-keyfile=${pki}/apiserver-etcd-client.key`, '--etcd-servers=https://127.0.0.1:2379',
    `--kubelet-client-certificate=${pki}/apiserver-kubelet-client.crt`, `--kubelet-client-key=${pki}/apiserver-kubelet-client.key`,
    '--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname', `--proxy-client-cert-file=${pki}/front-proxy-client.crt`,
    `--proxy-client-key-file=${pki}/front-proxy-client.key`, '--requestheader-allowed-names=front-proxy-client', `--requestheader-client-ca-file=${pki}/front-proxy-ca.crt`,
    '--requestheader-extra-headers-prefix=X-Remote-Extra-', '--requestheader-group-headers=X-Remote-Group', '--requestheader-username-headers=X-Remote-User',
    '--secure-port=6443', '--service-account-issuer=https://kubernetes.default.svc.cluster.local', `--service-account-key-file=${pki}/sa.pub`,
    `--service-account-signing-key-file=${pki}/sa.key`, '--service-cluster-ip-range=10.96.0.0/12', `--tls-cert-file=${pki}/apiserver.crt`, `--tls-private-key-file=${pki}/apiserver.key`,
  ]);
  assert.deepEqual([config.storage, config.allowPrivileged, config.advertiseAddress, config.tlsCertFile], ['etcd', true, '192.168.1.10', `${pki}/apiserver.crt`]);
});

test('--enable-priority-and-fairness is on by default; while it is, --runtime-config may not turn its API off', () => {
  assert.equal(parseServeFlags([]).enablePriorityAndFairness, true);
  assert.equal(parseServeFlags(['--enable-priority-and-fairness=false']).enablePriorityAndFairness, false);
  for (const key of ['flowcontrol.apiserver.k8s.io/v1', 'api/ga', 'api/all']) {
    assert.throws(() => parseServeFlags([`--runtime-config=${key}=false,apps/v1=true`]), (err) => err instanceof UsageError && err.message === `--runtime-config=${key}=false conflicts with --enable-priority-and-fairness=true`, key);
  }
  assert.equal(parseServeFlags(['--enable-priority-and-fairness=false', '--runtime-config=api/all=false,apps/v1=true']).runtimeConfig.get('api/all'), 'false');
});

test('--tls-cert-file and --tls-private-key-file go together', () => {
  assert.deepEqual([parseServeFlags([]).tlsCertFile, parseServeFlags([]).tlsPrivateKeyFile], [undefined, undefined]);
  const both = parseServeFlags(['--tls-cert-file', '/etc/pki/apiserver.crt', '--tls-private-key-file', '/etc/pki/apiserver.key']);
  assert.deepEqual([both.tlsCertFile, both.tlsPrivateKeyFile], ['/etc/pki/apiserver.crt', '/etc/pki/apiserver.key']);
  for (const args of [['--tls-cert-file', 'a.crt'], ['--tls-private-key-file', 'a.key']]) {
    assert.throws(() => parseServeFlags(args), (err) => err instanceof UsageError && /^missing filename for serving cert/.test(err.message), args.join(' '));
  }
});

test('--authorization-mode is a list of modes in order, RBAC by default; unknown and repeated modes are usage errors', () => {
  assert.deepEqual(parseServeFlags([]).authorizationModes, ['RBAC']);
  const accepted: [string, string[]][] = [
    ['AlwaysAllow', ['AlwaysAllow']], ['RBAC,AlwaysDeny', ['RBAC', 'AlwaysDeny']], ['AlwaysDeny, RBAC', ['AlwaysDeny', 'RBAC']], ['Node,RBAC', ['Node', 'RBAC']],
  ];
  for (const [flag, modes] of accepted) assert.deepEqual(parseServeFlags([`--authorization-mode=${flag}`]).authorizationModes, modes, flag);
  const refused: [string, RegExp][] = [
    ['Webhook', /authorization-mode Webhook's authorization config file not passed/],
    ['ABAC', /authorization-mode ABAC's authorization policy file not passed/],
    ['abac', /"abac" is not a valid mode: AlwaysAllow, AlwaysDeny, ABAC, Node, RBAC or Webhook/],
    ['RBAC,RBAC', /has mode specified more than once/],
  ];
  for (const [flag, message] of refused) {
    assert.throws(() => parseServeFlags([`--authorization-mode=${flag}`]), (err) => err instanceof UsageError && message.test(err.message), flag);
  }
});

test('--authorization-webhook-* go with the Webhook mode, --authorization-config with neither; --authentication-token-webhook-* as upstream defaults them', () => {
  const usage = (flags: string[], message: RegExp) => assert.throws(() => parseServeFlags(flags), (err) => err instanceof UsageError && message.test(err.message), flags.join(' '));
  assert.deepEqual(parseServeFlags(['--authorization-mode=Node,Webhook,RBAC', '--authorization-webhook-config-file=/etc/authz.kubeconfig']).authorizationWebhook, {
    configFile: '/etc/authz.kubeconfig', version: 'v1beta1', authorizedTtlMs: 300_000, unauthorizedTtlMs: 30_000,
  });
  assert.deepEqual(parseServeFlags([
    '--authorization-mode=Webhook', '--authorization-webhook-config-file=/w', '--authorization-webhook-version=v1', '--authorization-webhook-cache-authorized-ttl=1m', '--authorization-webhook-cache-unauthorized-ttl=0',
  ]).authorizationWebhook, { configFile: '/w', version: 'v1', authorizedTtlMs: 60_000, unauthorizedTtlMs: 0 });
  usage(['--authorization-webhook-config-file=/w'], /cannot specify --authorization-webhook-config-file without mode Webhook/);
  usage(['--authorization-policy-file=/p'], /cannot specify --authorization-policy-file without mode ABAC/);
  const abac = parseServeFlags(['--authorization-mode=ABAC,RBAC', '--authorization-policy-file=/etc/abac.jsonl']);
  assert.deepEqual([abac.authorizationModes, abac.authorizationPolicyFile], [['ABAC', 'RBAC'], '/etc/abac.jsonl']);
  usage(['--authorization-mode=Webhook', '--authorization-webhook-config-file=/w', '--authorization-webhook-version=v2'], /unsupported webhook authorizer version "v2"/);
  usage(['--authorization-config=/c', '--authorization-mode=RBAC'], /--authorization-config can not be specified when --authorization-mode or --authorization-webhook-\* flags are defined/);
  usage(['--authorization-config=/c', '--authorization-webhook-version=v1'], /--authorization-config can not be specified/);
  assert.equal(parseServeFlags(['--authorization-config=/c']).authorizationConfig, '/c');
  assert.deepEqual(parseServeFlags(['--authentication-token-webhook-config-file=/t']).tokenWebhook, { configFile: '/t', version: 'v1beta1', cacheTtlMs: 120_000 });
  assert.deepEqual(parseServeFlags(['--authentication-token-webhook-config-file=/t', '--authentication-token-webhook-version=v1', '--authentication-token-webhook-cache-ttl=10s']).tokenWebhook, { configFile: '/t', version: 'v1', cacheTtlMs: 10_000 });
  usage(['--authentication-token-webhook-config-file=/t', '--authentication-token-webhook-version=v3'], /unsupported authentication webhook version "v3"/);
});

test('--requestheader-*: string slices, comma-separated or repeated; ignored without the CA file; an empty value is a usage error', () => {
  assert.equal(parseServeFlags(['--requestheader-username-headers=X-Remote-User']).requestHeader, undefined);
  assert.deepEqual(parseServeFlags([
    '--requestheader-client-ca-file=/ca', '--requestheader-username-headers=X-Remote-User', '--requestheader-group-headers=X-Remote-Group,X-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-', '--requestheader-allowed-names=front-proxy-client', '--requestheader-allowed-names=other',
  ]).requestHeader, {
    clientCaFile: '/ca', allowedNames: ['front-proxy-client', 'other'], usernameHeaders: ['X-Remote-User'], uidHeaders: [], groupHeaders: ['X-Remote-Group', 'X-Group'], extraHeadersPrefix: ['X-Remote-Extra-'],
  });
  assert.throws(() => parseServeFlags(['--requestheader-client-ca-file=/ca', '--requestheader-username-headers=X-Remote-User, ']), /empty value in "requestheader-username-headers"/);
});

test('--enable-admission-plugins takes NodeRestriction and the default plugins, --disable-admission-plugins turns default ones off; one Plinth does not have is a usage error', () => {
  assert.deepEqual(parseServeFlags([]).enableAdmissionPlugins, []);
  assert.deepEqual(parseServeFlags(['--enable-admission-plugins=NodeRestriction']).enableAdmissionPlugins, ['NodeRestriction']);
  assert.deepEqual(parseServeFlags(['--enable-admission-plugins', 'NamespaceLifecycle, NodeRestriction']).enableAdmissionPlugins, ['NamespaceLifecycle', 'NodeRestriction']);
  assert.throws(() => parseServeFlags(['--enable-admission-plugins=NodeRestriction,AlwaysPullImages']),
    (err) => err instanceof UsageError && /plugin "AlwaysPullImages" is unknown or not built/.test(err.message));
  assert.deepEqual(parseServeFlags(['--disable-admission-plugins=PodSecurity,DefaultTolerationSeconds']).disableAdmissionPlugins, ['PodSecurity', 'DefaultTolerationSeconds']);
  assert.throws(() => parseServeFlags(['--enable-admission-plugins=NodeRestriction,Priority', '--disable-admission-plugins=Priority,NodeRestriction']),
    (err) => err instanceof UsageError && err.message === '[NodeRestriction Priority] in enable-admission-plugins and disable-admission-plugins overlapped');
});

test('authentication flags as kube-apiserver takes them', () => {
  const cases: { args: string[]; expected: Partial<ReturnType<typeof defaultConfig>> }[] = [
    { args: [], expected: { anonymousAuth: true, clientCaFile: undefined, serviceAccountIssuers: ['https://kubernetes.default.svc.cluster.local'], serviceAccountKeyFiles: [], apiAudiences: [] } },
    { args: ['--anonymous-auth=false'], expected: { anonymousAuth: false } },
    { args: ['--anonymous-auth'], expected: { anonymousAuth: true } },
    { args: ['--client-ca-file', '/ca.crt'], expected: { clientCaFile: '/ca.crt' } },
    { args: ['--service-account-signing-key-file', '/sa.key'], expected: { serviceAccountSigningKeyFile: '/sa.key' } },
    { args: ['--service-account-key-file', '/a.pub', '--service-account-key-file', '/b.pub'], expected: { serviceAccountKeyFiles: ['/a.pub', '/b.pub'] } },
    { args: ['--service-account-issuer', 'https://new', '--service-account-issuer', 'https://old'], expected: { serviceAccountIssuers: ['https://new', 'https://old'] } },
    { args: ['--api-audiences', 'a, b'], expected: { apiAudiences: ['a', 'b'] } },
  ];
  for (const c of cases) {
    const config = parseServeFlags(c.args);
    for (const [key, value] of Object.entries(c.expected)) assert.deepEqual(config[key as keyof typeof config], value, `${c.args.join(' ')}: ${key}`);
  }
  assert.throws(() => parseServeFlags(['--anonymous-auth=no']), UsageError);
  for (const flag of ['--client-ca-file', '--anonymous-auth', '--service-account-signing-key-file', '--service-account-key-file', '--service-account-issuer', '--api-audiences']) assert.match(serveUsage, new RegExp(flag));
});

test('--storage etcd takes --etcd-servers and an --etcd-prefix ending in /registry', () => {
  const cases: Array<[string[], { etcdServers: string[]; etcdPrefix: string } | RegExp]> = [
    [['--storage=etcd', '--etcd-servers=http://a:2379,http://b:2379'], { etcdServers: ['http://a:2379', 'http://b:2379'], etcdPrefix: '/registry' }],
    [['--storage=etcd', '--etcd-servers=http://a:2379', '--etcd-prefix=/tenant/registry/'], { etcdServers: ['http://a:2379'], etcdPrefix: '/tenant/registry' }],
    [['--storage=etcd'], /--etcd-servers/],
    [['--storage=etcd', '--etcd-servers=http://a:2379', '--etcd-prefix=/other'], /--etcd-prefix/],
  ];
  for (const [args, expect] of cases) {
    if (expect instanceof RegExp) {
      assert.throws(() => parseServeFlags(args), (err) => err instanceof UsageError && expect.test(err.message), args.join(' '));
    } else {
      const config = parseServeFlags(args);
      assert.deepEqual({ etcdServers: config.etcdServers, etcdPrefix: config.etcdPrefix }, expect, args.join(' '));
    }
  }
});

test('--etcd-servers alone means etcd storage, as kube-apiserver\'s flags say it; with another --storage it is refused', () => {
  const kubeadm = parseServeFlags(['--etcd-servers=https://127.0.0.1:2379']);
  assert.deepEqual([kubeadm.storage, kubeadm.etcdServers], ['etcd', ['https://127.0.0.1:2379']]);
  assert.equal(parseServeFlags([]).storage, 'sqlite');
  assert.throws(() => parseServeFlags(['--storage=sqlite', '--etcd-servers=https://127.0.0.1:2379']), (err) => err instanceof UsageError && err.message === '--etcd-servers is for --storage etcd, not sqlite');
});

test('--etcd-cafile, --etcd-certfile and --etcd-keyfile set TLS to etcd; a certificate needs its key', () => {
  const etcd = ['--storage=etcd', '--etcd-servers=https://a:2379'];
  const cases: Array<[string[], { etcdCaFile?: string; etcdCertFile?: string; etcdKeyFile?: string } | RegExp]> = [
    [etcd, {}],
    [[...etcd, '--etcd-cafile=/pki/ca.crt'], { etcdCaFile: '/pki/ca.crt' }],
    [[...etcd, '--etcd-cafile=/pki/ca.crt', '--etcd-certfile=/pki/c.crt', '--etcd-keyfile=/pki/c.key'], { etcdCaFile: '/pki/ca.crt', etcdCertFile: '/pki/c.crt', etcdKeyFile: '/pki/c.key' }],
    [[...etcd, '--etcd-certfile=/pki/c.crt', '--etcd-keyfile=/pki/c.key'], { etcdCertFile: '/pki/c.crt', etcdKeyFile: '/pki/c.key' }],
    [[...etcd, '--etcd-certfile=/pki/c.crt'], /--etcd-keyfile/],
    [[...etcd, '--etcd-keyfile=/pki/c.key'], /--etcd-certfile/],
  ];
  for (const [args, expect] of cases) {
    if (expect instanceof RegExp) {
      assert.throws(() => parseServeFlags(args), (err) => err instanceof UsageError && expect.test(err.message), args.join(' '));
    } else {
      const { etcdCaFile, etcdCertFile, etcdKeyFile } = parseServeFlags(args);
      const tls = Object.fromEntries(Object.entries({ etcdCaFile, etcdCertFile, etcdKeyFile }).filter(([, v]) => v !== undefined));
      assert.deepEqual(tls, expect, args.join(' '));
    }
  }
  for (const flag of ['--etcd-cafile', '--etcd-certfile', '--etcd-keyfile']) assert.match(serveUsage, new RegExp(flag));
});

test('--controllers, --simulated-nodes, --simulated-pod-run-time and --simulated-max-grace-period', () => {
  const parsed = parseServeFlags(['--controllers=*,-garbagecollector', '--simulated-nodes', '3', '--simulated-pod-run-time', '1500ms', '--simulated-max-grace-period', '2s']);
  assert.deepEqual([parsed.controllers, parsed.simulatedNodes, parsed.simulatedPodRunMs, parsed.simulatedMaxGracePeriodMs], [['*', '-garbage-collector-controller'], 3, 1500, 2000]);
  const defaults = parseServeFlags([]);
  assert.deepEqual([defaults.controllers, defaults.simulatedNodes], [['*'], 0]);
  assert.throws(() => parseServeFlags(['--controllers=*,-deployment']), /"deployment" is not in the list of known controllers/);
  assert.throws(() => parseServeFlags(['--simulated-nodes=-1']), /invalid --simulated-nodes "-1"/);
  assert.throws(() => parseServeFlags(['--simulated-nodes=2001']), /a count from 0 to 2000/);
  for (const flag of ['--controllers', '--simulated-nodes', '--simulated-pod-run-time', '--simulated-max-grace-period']) assert.match(serveUsage, new RegExp(flag));
});

test('--leader-elect and its timings, with kube-controller-manager\'s names, defaults and checks', () => {
  const rows: { args: string[]; expected: Partial<Config> }[] = [
    { args: [], expected: { leaderElect: true, leaderElectLeaseDurationMs: 15_000, leaderElectRenewDeadlineMs: 10_000, leaderElectRetryPeriodMs: 2_000 } },
    { args: ['--leader-elect'], expected: { leaderElect: true } },
    { args: ['--leader-elect=false'], expected: { leaderElect: false } },
    {
      args: ['--leader-elect-lease-duration', '1s', '--leader-elect-renew-deadline', '600ms', '--leader-elect-retry-period', '200ms'],
      expected: { leaderElectLeaseDurationMs: 1_000, leaderElectRenewDeadlineMs: 600, leaderElectRetryPeriodMs: 200 },
    },
    // Timings that could not elect do not matter when nothing is elected.
    { args: ['--leader-elect=false', '--leader-elect-renew-deadline=20s'], expected: { leaderElect: false, leaderElectRenewDeadlineMs: 20_000 } },
  ];
  for (const { args, expected } of rows) {
    const parsed = parseServeFlags(args);
    for (const [key, value] of Object.entries(expected)) assert.deepEqual(parsed[key as keyof Config], value, `${args.join(' ')}: ${key}`);
  }
  assert.throws(() => parseServeFlags(['--leader-elect=yes']), /invalid argument "yes" for "--leader-elect" flag/);
  assert.throws(() => parseServeFlags(['--leader-elect-renew-deadline=20s']), /the lease duration must be greater than the renew deadline/);
  assert.throws(() => parseServeFlags(['--leader-elect-retry-period=9s']), /the renew deadline must be greater than the retry period/);
  for (const flag of ['--leader-elect', '--leader-elect-lease-duration', '--leader-elect-renew-deadline', '--leader-elect-retry-period']) assert.match(serveUsage, new RegExp(flag));
});

test('--release-idle-memory is on unless set to false, bare meaning true', () => {
  assert.equal(parseServeFlags([]).releaseIdleMemory, true);
  assert.equal(parseServeFlags(['--release-idle-memory']).releaseIdleMemory, true);
  assert.equal(parseServeFlags(['--release-idle-memory=false']).releaseIdleMemory, false);
  assert.throws(() => parseServeFlags(['--release-idle-memory=off']), /invalid argument "off" for "--release-idle-memory" flag: strconv.ParseBool: parsing "off": invalid syntax/);
  assert.match(serveUsage, /--release-idle-memory/);
});

test('--http2-max-streams-per-connection takes a count, 0 (the default) for kube-apiserver\'s 100', () => {
  assert.equal(parseServeFlags([]).http2MaxStreamsPerConnection, 0);
  assert.equal(parseServeFlags(['--http2-max-streams-per-connection', '250']).http2MaxStreamsPerConnection, 250);
  assert.equal(parseServeFlags(['--http2-max-streams-per-connection=0']).http2MaxStreamsPerConnection, 0);
  assert.match(serveUsage, /--http2-max-streams-per-connection/);
  for (const flag of ['-1', String(2 ** 31)]) {
    assert.throws(() => parseServeFlags([`--http2-max-streams-per-connection=${flag}`]),
      (err) => err instanceof UsageError && err.message === `invalid --http2-max-streams-per-connection "${flag}": a count, 0 for the default (100)`, flag);
  }
  // What is not an integer, in pflag's words.
  for (const flag of ['', '1.5', 'many']) {
    assert.throws(() => parseServeFlags([`--http2-max-streams-per-connection=${flag}`]),
      (err) => err instanceof UsageError && err.message === `invalid argument "${flag}" for "--http2-max-streams-per-connection" flag: strconv.ParseInt: parsing "${flag}": invalid syntax`, flag);
  }
});

test('v1.36\'s audit log rotation defaults (100 MB, 100 files, 366 days), and the lookup and redirect flags', () => {
  const config = parseServeFlags([]);
  assert.deepEqual([config.auditLogMaxSizeMB, config.auditLogMaxBackups, config.auditLogMaxAgeDays], [100, 100, 366]);
  const off = parseServeFlags(['--audit-log-maxsize=0', '--audit-log-maxbackup=0', '--audit-log-maxage=0']);
  assert.deepEqual([off.auditLogMaxSizeMB, off.auditLogMaxBackups, off.auditLogMaxAgeDays], [0, 0, 0], '0 turns a limit off');
  assert.deepEqual([config.serviceAccountLookup, config.aggregatorRejectForwardingRedirect], [true, true]);
  const flipped = parseServeFlags(['--service-account-lookup=false', '--aggregator-reject-forwarding-redirect=false']);
  assert.deepEqual([flipped.serviceAccountLookup, flipped.aggregatorRejectForwardingRedirect], [false, false]);
  assert.equal(parseServeFlags(['--service-account-lookup']).serviceAccountLookup, true, 'bare, as pflag reads a boolean');
});

test('kube-apiserver\'s operational flags are taken and checked with upstream\'s and pflag\'s words', () => {
  const taken = parseServeFlags([
    '--profiling=false', '--contention-profiling', '--debug-socket-path=/run/debug.sock', '--enable-aggregator-routing=true', '--watch-cache=true',
    '--watch-cache-sizes=pods#0,events#0', '--storage-media-type=application/json', '--storage-backend=etcd3', '--delete-collection-workers=2',
    '--storage-initialization-timeout=30s', '--livez-grace-period=10s', '--logging-format=json', '--log-flush-frequency=5s', '--kubelet-timeout=5s',
    '--max-connection-bytes-per-sec=0', '--permit-port-sharing', '--permit-address-sharing=true', '--disabled-metrics=apiserver_request_total,etcd_request_duration_seconds',
    '--allow-metric-labels=apiserver_request_total,verb=GET,LIST', '--show-hidden-metrics-for-version=1.35', '--etcd-count-metric-poll-period=1m',
    '--etcd-db-metric-poll-interval=30s', '--enable-logs-handler=false', '--default-watch-cache-size=100', '--kubelet-port=10250',
  ]);
  assert.equal(taken.storageInitializationTimeoutMs, 30_000);
  assert.equal(taken.logFormat, 'json', 'upstream\'s --logging-format');
  assert.equal(taken.permitPortSharing, true);
  assert.equal(taken.profiling, false);
  assert.equal(parseServeFlags([]).profiling, true, 'on by default, as kube-apiserver\'s');
  assert.deepEqual(taken.disabledMetrics, ['apiserver_request_total', 'etcd_request_duration_seconds']);
  assert.deepEqual(taken.flagWarnings, [
    'Flag --enable-logs-handler has been deprecated, Log handler functionality is deprecated',
    'Flag --default-watch-cache-size has been deprecated, watch caches are sized automatically and this flag will be removed in a future version',
    'Flag --kubelet-port has been deprecated, kubelet-port is deprecated and will be removed.',
  ]);
  const refused: Array<[string[], string]> = [
    [['--profiling=maybe'], 'invalid argument "maybe" for "--profiling" flag: strconv.ParseBool: parsing "maybe": invalid syntax'],
    [['--watch-cache-sizes=pods'], 'invalid value of watch cache size: pods'],
    [['--watch-cache-sizes=pods#x'], 'invalid size of watch cache size: pods#x'],
    [['--watch-cache-sizes=pods#-1'], 'watch cache size cannot be negative: pods#-1'],
    [['--storage-media-type=foo/bar'], '--storage-media-type "foo/bar" invalid, allowed values: application/json, application/vnd.kubernetes.protobuf, application/yaml'],
    [['--storage-backend=etcd2'], "--storage-backend invalid, allowed values: etcd3. If not specified, it will default to 'etcd3'"],
    [['--storage-initialization-timeout=-1s'], '--storage-initialization-timeout can not be negative value'],
    [['--livez-grace-period=-1s'], '--livez-grace-period can not be a negative value'],
    [['--logging-format=xml'], 'format: Invalid value: "xml": Unsupported log format'],
    [['--logging-format=json', '--vmodule=server=2'], 'vmodule: Forbidden: Only supported for text log format'],
    [['--vmodule=server'], 'invalid argument "server" for "--vmodule" flag: "server" does not have the pattern=N format'],
    [['--log-text-split-stream'], 'options.text.splitStream: Forbidden: Feature LoggingAlphaOptions is disabled'],
    [['--disabled-metrics=bad-name'], '--disabled-metrics must be fully qualified metric names matching "^[a-zA-Z_:][a-zA-Z0-9_:]*$", got "bad-name"'],
    [['--allow-metric-labels=nolabel=x'], '--allow-metric-labels must have a list of kv pair with format `metricName,labelName=labelValue, labelValue,...`'],
    [['--show-hidden-metrics-for-version=1.30'], "--show-hidden-metrics-for-version must be omitted or have the value '1.35'. Only the previous minor version is allowed"],
    [['--delete-collection-workers=many'], 'invalid argument "many" for "--delete-collection-workers" flag: strconv.ParseInt: parsing "many": invalid syntax'],
    [['--kubelet-timeout=soon'], 'invalid argument "soon" for "--kubelet-timeout" flag: time: invalid duration "soon"'],
    [['--etcd-servers-overrides=/events'], '--etcd-servers-overrides invalid, must be of format: group/resource#servers, where servers are URLs, semicolon separated'],
    [['--etcd-servers-overrides=/events#http://127.0.0.1:4001'], '--etcd-servers-overrides is not supported: Plinth keeps every resource in one storage'],
  ];
  for (const [args, message] of refused) assert.throws(() => parseServeFlags(args), (err: Error) => err instanceof UsageError && err.message === message, args.join(' '));
  assert.doesNotThrow(() => parseServeFlags(['--watch-cache=false', '--watch-cache-sizes=pods']), 'the sizes are checked only with the cache on');
});

test('--feature-gates takes kube-apiserver v1.36\'s gates as upstream\'s feature gate does', () => {
  const config = parseServeFlags(['--feature-gates=kube:WatchList=false,InPlacePodVerticalScaling=true', '--feature-gates', 'StorageVersionAPI=1,KMSv1=T']);
  assert.equal(config.featureGates.WatchList, false, 'one Plinth acts on');
  assert.deepEqual([config.featureGates.StorageVersionAPI, config.featureGates.KMSv1], [true, true], 'others kept, Go\'s ParseBool values');
  assert.deepEqual(config.flagWarnings, [
    'Setting GA feature gate InPlacePodVerticalScaling=true. It will be removed in a future release.',
    'Setting deprecated feature gate KMSv1=true. It will be removed in a future release.',
  ]);
  // AllAlpha and AllBeta set the gates of their stage not set by name.
  const all = parseServeFlags(['--feature-gates=AllAlpha=true,AllBeta=false,WatchList=true']);
  assert.deepEqual([all.featureGates.CBORServingAndStorage, all.featureGates.AllowUnsafeMalformedObjectDeletion], [true, true]);
  assert.deepEqual([all.featureGates.APIResponseCompression, all.featureGates.ListFromCacheSnapshot, all.featureGates.WatchList], [false, false, true]);
  assert.deepEqual([config.featureGates.NodeDeclaredFeatures, all.featureGates.NodeDeclaredFeatures], [true, false], 'NodeDeclaredFeatures: beta, on by default');
  const refused: Array<[string, string]> = [
    ['NoSuchGate=true', 'unrecognized feature gate: NoSuchGate'],
    ['WatchList=maybe', 'invalid value of WatchList=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax'],
    ['WatchList', 'missing bool value for WatchList'],
    ['InPlacePodVerticalScaling=false', 'cannot set feature gate InPlacePodVerticalScaling to false, feature is locked to true'],
    ['scheduler:WatchList=true', 'component not registered: scheduler'],
  ];
  for (const [given, message] of refused) assert.throws(() => parseServeFlags([`--feature-gates=${given}`]), (err: Error) => err instanceof UsageError && err.message === message, given);
});

test('--request-timeout sets how long a request may wait for its priority level\'s seat: a quarter of it, at most a minute', () => {
  assert.equal(parseServeFlags([]).inflightQueueWaitMs, 15_000);
  assert.equal(parseServeFlags(['--request-timeout', '2m']).inflightQueueWaitMs, 30_000);
  assert.equal(parseServeFlags(['--request-timeout', '10m']).inflightQueueWaitMs, 60_000);
});

test('--secure-port is a Go integer from 0 to 65535, in pflag\'s and upstream\'s words', () => {
  assert.equal(parseServeFlags(['--secure-port=0x1F90']).securePort, 8080, 'pflag\'s base prefixes');
  assert.equal(parseServeFlags(['--secure-port', '65535']).securePort, 65535);
  const refused: Array<[string[], string]> = [
    [['--secure-port='], 'invalid argument "" for "--secure-port" flag: strconv.ParseInt: parsing "": invalid syntax'],
    [['--secure-port=abc'], 'invalid argument "abc" for "--secure-port" flag: strconv.ParseInt: parsing "abc": invalid syntax'],
    [['--secure-port=1.5'], 'invalid argument "1.5" for "--secure-port" flag: strconv.ParseInt: parsing "1.5": invalid syntax'],
    [['--secure-port=-1'], '--secure-port -1 must be between 0 and 65535, inclusive. 0 picks a free port'],
    [['--secure-port=65536'], '--secure-port 65536 must be between 0 and 65535, inclusive. 0 picks a free port'],
    [['--secure-port'], 'flag needs an argument: --secure-port'],
  ];
  for (const [args, message] of refused) assert.throws(() => parseServeFlags(args), (err: Error) => err instanceof UsageError && err.message === message, args.join(' '));
});

test('--bind-address is an IP address as pflag reads one: trimmed, an empty value the default, anything else refused', () => {
  assert.equal(parseServeFlags(['--bind-address=']).bindAddress, '127.0.0.1', 'not every interface');
  assert.equal(parseServeFlags(['--bind-address', ' ::1 ']).bindAddress, '::1');
  assert.equal(parseServeFlags(['--advertise-address=']).advertiseAddress, undefined);
  for (const given of ['nope', '999.1.1.1', 'fe80::1%eth0', '[::1]', 'localhost']) {
    assert.throws(() => parseServeFlags([`--bind-address=${given}`]), (err: Error) => err instanceof UsageError
      && err.message === `invalid argument "${given}" for "--bind-address" flag: failed to parse IP: "${given}"`, given);
  }
});

test('the command line as kube-apiserver\'s pflag reads it: unknown flags, missing values, arguments, repeated flags, _ for -', () => {
  const refused: Array<[string[], string]> = [
    [['--nope'], 'unknown flag: --nope'],
    [['--data-dir'], 'flag needs an argument: --data-dir'],
    [['-x'], 'unknown shorthand flag: \'x\' in -x'],
    [['serve'], '"plinth serve" does not take any arguments, got ["serve"]'],
    [['--anonymous-auth', 'false'], '"plinth serve" does not take any arguments, got ["false"]'],
    [['--data-dir='], '--data-dir must name a directory (default "./data")'],
  ];
  for (const [args, message] of refused) assert.throws(() => parseServeFlags(args), (err: Error) => err instanceof UsageError && err.message === message, args.join(' '));
  // String slices add up, as pflag's; other flags keep the last value.
  assert.deepEqual(parseServeFlags(['--authorization-mode=Node', '--authorization-mode', 'RBAC']).authorizationModes, ['Node', 'RBAC']);
  assert.deepEqual(parseServeFlags(['--etcd-servers=http://a:2379', '--etcd-servers=http://b:2379']).etcdServers, ['http://a:2379', 'http://b:2379']);
  assert.equal(parseServeFlags(['--secure-port=1', '--secure-port=2']).securePort, 2);
  // component-base's WordSepNormalizeFunc: kube-apiserver takes --secure_port for --secure-port.
  assert.equal(parseServeFlags(['--secure_port=7443']).securePort, 7443);
  // A value that starts with a dash is the flag's, as pflag takes it.
  assert.throws(() => parseServeFlags(['--min-request-timeout', '-1']), (err: Error) => err instanceof UsageError && err.message === '--min-request-timeout can not be negative value');
});

test('durations are Go\'s, refused in pflag\'s words with the flag named; negative ones where upstream refuses them', () => {
  assert.equal(parseServeFlags(['--event-ttl=.5h']).eventTtlSeconds, 1800, 'Go takes .5h');
  assert.equal(parseServeFlags(['--request-timeout=1m30s']).requestTimeoutMs, 90_000);
  const refused: Array<[string[], string]> = [
    [['--event-ttl=1x'], 'invalid argument "1x" for "--event-ttl" flag: time: unknown unit "x" in duration "1x"'],
    [['--event-ttl=5'], 'invalid argument "5" for "--event-ttl" flag: time: missing unit in duration "5"'],
    [['--event-ttl=-1s'], '--event-ttl can not be negative value'],
    [['--request-timeout=-1s'], '--request-timeout can not be negative value'],
    [['--etcd-compaction-interval=soon'], 'invalid argument "soon" for "--etcd-compaction-interval" flag: time: invalid duration "soon"'],
    [['--leader-elect-retry-period=2'], 'invalid argument "2" for "--leader-elect-retry-period" flag: time: missing unit in duration "2"'],
    [['--authorization-mode=Webhook', '--authorization-webhook-config-file=k', '--authorization-webhook-cache-authorized-ttl=x'],
      'invalid argument "x" for "--authorization-webhook-cache-authorized-ttl" flag: time: invalid duration "x"'],
    [['--authentication-token-webhook-config-file=k', '--authentication-token-webhook-cache-ttl=-2m'], '--authentication-token-webhook-cache-ttl can not be negative value'],
    [['--audit-webhook-config-file=k', '--audit-webhook-initial-backoff=1'], 'invalid argument "1" for "--audit-webhook-initial-backoff" flag: time: missing unit in duration "1"'],
    [['--service-account-max-token-expiration=1y'], 'invalid argument "1y" for "--service-account-max-token-expiration" flag: time: unknown unit "y" in duration "1y"'],
    [['--simulated-pod-run-time=-1s'], '--simulated-pod-run-time can not be negative value'],
  ];
  for (const [args, message] of refused) assert.throws(() => parseServeFlags(args), (err: Error) => err instanceof UsageError && err.message === message, args.join(' '));
});

test('counts: Go integers, negatives refused in upstream\'s words', () => {
  const refused: Array<[string[], string]> = [
    [['--max-requests-inflight=-1'], '--max-requests-inflight can not be negative value'],
    [['--max-mutating-requests-inflight=x'], 'invalid argument "x" for "--max-mutating-requests-inflight" flag: strconv.ParseInt: parsing "x": invalid syntax'],
    [['--audit-log-maxage=-1'], '--audit-log-maxage -1 can\'t be a negative number'],
    [['--simulated-nodes=many'], 'invalid argument "many" for "--simulated-nodes" flag: strconv.ParseInt: parsing "many": invalid syntax'],
    [['--v=x'], 'invalid argument "x" for "-v, --v" flag: strconv.Atoi: parsing "x": invalid syntax'],
    [['-v'], 'flag needs an argument: \'v\' in -v'],
  ];
  for (const [args, message] of refused) assert.throws(() => parseServeFlags(args), (err: Error) => err instanceof UsageError && err.message === message, args.join(' '));
});

test('a file flag given empty means none, as upstream\'s: the data dir\'s default', () => {
  const config = parseServeFlags(['--token-auth-file=', '--client-ca-file=', '--kubeconfig=', '--encryption-provider-config=', '--admission-control-config-file=',
    '--audit-policy-file=', '--audit-log-path=', '--service-account-signing-key-file=', '--service-account-key-file=', '--oidc-ca-file=']);
  assert.deepEqual([config.tokenAuthFile, config.clientCaFile, config.kubeconfigPath, config.encryptionProviderConfig, config.admissionControlConfigFile, config.auditPolicyFile,
    config.auditLogPath, config.serviceAccountSigningKeyFile, config.serviceAccountKeyFiles], [undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, []]);
});

test('--service-cluster-ip-range and --service-node-port-range are checked when read, naming the flag', () => {
  assert.throws(() => parseServeFlags(['--service-cluster-ip-range=foo']), (err: Error) => err instanceof UsageError && err.message === '--service-cluster-ip-range: invalid service cluster IP range "foo"');
  assert.throws(() => parseServeFlags(['--service-node-port-range=30000-20000']), (err: Error) => err instanceof UsageError
    && err.message === 'invalid argument "30000-20000" for "--service-node-port-range" flag: invalid service node port range "30000-20000"');
  assert.equal(parseServeFlags(['--service-node-port-range=30000+99']).serviceNodePortRange, '30000+99');
});
