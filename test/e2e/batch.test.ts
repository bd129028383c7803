// Jobs and CronJobs through kubectl: apply, the Job and CronJob tables, immutable templates, bad schedules.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startServerProcess, type ServerProcess } from '../helpers/server.ts';

const run = promisify(execFile);

let server: ServerProcess;
let workDir: string;
before(async () => {
  server = await startServerProcess();
  workDir = mkdtempSync(path.join(os.tmpdir(), 'batch-e2e-'));
});
after(async () => {
  await server?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

/** kubectl's stdout, or its stderr as the error's message. */
async function kubectl(...args: string[]): Promise<string> {
  try {
    const { stdout } = await run('/usr/bin/kubectl', ['--kubeconfig', server.kubeconfigPath, '--cache-dir', path.join(workDir, 'cache'), ...args], { timeout: 30_000 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(e.stderr ?? e.message);
  }
}

function file(name: string, obj: unknown): string {
  const p = path.join(workDir, name);
  writeFileSync(p, JSON.stringify(obj));
  return p;
}

const job = (image: string) => ({
  apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi' },
  spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image }] } } },
});

test('kubectl apply of a Job: generated selector, defaults, table, immutable template', async () => {
  const ns = 'batch-job';
  await kubectl('create', 'ns', ns);
  await kubectl('-n', ns, 'apply', '-f', file('job.json', job('perl:5.34')));
  const created = JSON.parse(await kubectl('-n', ns, 'get', 'job', 'pi', '-o', 'json'));
  const uid = created.metadata.uid;
  assert.deepEqual(created.spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
  assert.equal(created.spec.template.metadata.labels['job-name'], 'pi');
  assert.equal(created.spec.template.metadata.labels['controller-uid'], uid);
  assert.deepEqual([created.spec.completions, created.spec.backoffLimit, created.spec.completionMode], [1, 6, 'NonIndexed']);
  assert.deepEqual(created.status, {});

  const table = await kubectl('-n', ns, 'get', 'jobs');
  assert.match(table, /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE$/m);
  assert.match(table, /^pi\s+Running\s+0\/1\s+\d+s$/m);

  // The status subresource is where a controller reports progress.
  const status = { status: { succeeded: 1, startTime: '2024-01-01T00:00:00Z', completionTime: '2024-01-01T00:00:42Z', conditions: [{ type: 'Complete', status: 'True' }] } };
  await kubectl('-n', ns, 'patch', 'job', 'pi', '--subresource=status', '--type=merge', '-p', JSON.stringify(status));
  assert.match(await kubectl('-n', ns, 'get', 'jobs'), /^pi\s+Complete\s+1\/1\s+42s\s+\d+s$/m);
  const wide = await kubectl('-n', ns, 'get', 'jobs', '-o', 'wide');
  assert.match(wide, /CONTAINERS\s+IMAGES\s+SELECTOR/);
  assert.match(wide, new RegExp(`pi\\s+perl:5\\.34\\s+batch\\.kubernetes\\.io/controller-uid=${uid}`));

  await assert.rejects(kubectl('-n', ns, 'apply', '-f', file('job2.json', job('perl:5.36'))), (err: Error) => {
    assert.match(err.message, /The Job "pi" is invalid: spec\.template: Invalid value: .*: field is immutable/);
    return true;
  });
});

test('kubectl apply of a CronJob: defaults and table; a bad schedule answers 422', async () => {
  const ns = 'batch-cronjob';
  await kubectl('create', 'ns', ns);
  const cronJob = (schedule: string) => ({
    apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'hello' },
    spec: { schedule, timeZone: 'Europe/Paris', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'hello', image: 'busybox' }] } } } } },
  });
  await kubectl('-n', ns, 'apply', '-f', file('cronjob.json', cronJob('*/5 * * * *')));
  const created = JSON.parse(await kubectl('-n', ns, 'get', 'cronjob', 'hello', '-o', 'json'));
  assert.deepEqual(
    [created.spec.concurrencyPolicy, created.spec.suspend, created.spec.successfulJobsHistoryLimit, created.spec.failedJobsHistoryLimit],
    ['Allow', false, 3, 1],
  );
  const table = await kubectl('-n', ns, 'get', 'cronjobs');
  assert.match(table, /^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE$/m);
  assert.match(table, /^hello\s+\*\/5 \* \* \* \*\s+Europe\/Paris\s+False\s+0\s+<none>\s+\d+s$/m);

  await assert.rejects(kubectl('-n', ns, 'apply', '-f', file('bad.json', { ...cronJob('*/5 * * *'), metadata: { name: 'bad' } })), (err: Error) => {
    assert.match(err.message, /The CronJob "bad" is invalid: spec\.schedule: Invalid value: "\*\/5 \* \* \*": expected exactly 5 fields, found 4: \[\*\/5 \* \* \*\]/);
    return true;
  });
});
