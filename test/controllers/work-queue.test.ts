import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Backoff, Controller, WorkQueue } from '../../src/controllers/runtime/index.ts';
import { barrier, FakeClock } from './fake-clock.ts';

describe('WorkQueue', () => {
  test('a key added again while it waits is handed out once', async () => {
    const queue = new WorkQueue({ clock: new FakeClock() });
    queue.add('a');
    queue.add('b');
    queue.add('a');
    assert.equal(queue.length, 2);
    assert.equal(await queue.get(), 'a');
    assert.equal(await queue.get(), 'b');
    assert.equal(queue.length, 0);
  });

  test('a key added while being processed waits until done, then is handed out again', async () => {
    const queue = new WorkQueue({ clock: new FakeClock() });
    queue.add('a');
    assert.equal(await queue.get(), 'a');
    queue.add('a');
    queue.add('a');
    assert.equal(queue.length, 0, 'not ready while a worker has it');
    // A second worker waiting gets the next other key, not "a".
    const second = queue.get();
    queue.add('b');
    assert.equal(await second, 'b');
    queue.done('a');
    assert.equal(queue.length, 1, 'queued once, however often it was added meanwhile');
    assert.equal(await queue.get(), 'a');
    queue.done('a');
    queue.done('b');
    assert.equal(queue.length, 0);
  });

  test('a key not added again while processed is not handed out again', async () => {
    const queue = new WorkQueue({ clock: new FakeClock() });
    queue.add('a');
    assert.equal(await queue.get(), 'a');
    queue.done('a');
    assert.equal(queue.length, 0);
    assert.equal(queue.processing, 0);
  });

  test('a waiting worker is handed the first key added', async () => {
    const queue = new WorkQueue({ clock: new FakeClock() });
    const got = queue.get();
    queue.add('a');
    assert.equal(await got, 'a');
    assert.equal(queue.processing, 1);
  });

  test('addAfter adds once the delay has passed on the clock', () => {
    const clock = new FakeClock();
    const queue = new WorkQueue({ clock });
    queue.addAfter('a', 100);
    clock.advance(99);
    assert.equal(queue.length, 0);
    clock.advance(1);
    assert.equal(queue.length, 1);
    assert.equal(clock.pending, 0);
  });

  test('of two delayed adds of one key the earlier stands', () => {
    const clock = new FakeClock();
    const queue = new WorkQueue({ clock });
    queue.addAfter('a', 100);
    queue.addAfter('a', 300);
    assert.deepEqual(clock.pendingDelays, [100]);
    queue.addAfter('a', 50);
    assert.deepEqual(clock.pendingDelays, [50], 'the later timer is cancelled');
    clock.advance(50);
    assert.equal(queue.length, 1);
    assert.equal(queue.delayed, 0);
  });

  test('addRateLimited waits twice as long after each failure, up to the cap', () => {
    const clock = new FakeClock();
    const queue = new WorkQueue({ clock, backoff: { baseMs: 10, maxMs: 100 } });
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      queue.addRateLimited('a');
      delays.push(clock.pendingDelays[0]!);
      clock.advance(delays[i]! - 1);
      assert.equal(queue.length, 0, `retry ${i + 1} not before its delay`);
      clock.advance(1);
      assert.equal(queue.length, 1, `retry ${i + 1} after its delay`);
      queue.get();
      queue.done('a');
    }
    assert.deepEqual(delays, [10, 20, 40, 80, 100, 100]);
    assert.equal(queue.retries('a'), 6);
  });

  test('backoff is per key', () => {
    const clock = new FakeClock();
    const queue = new WorkQueue({ clock, backoff: { baseMs: 10, maxMs: 1000 } });
    queue.addRateLimited('a');
    clock.advance(10);
    queue.addRateLimited('a');
    queue.addRateLimited('b');
    assert.deepEqual(clock.pendingDelays, [10, 20]);
    assert.equal(queue.retries('a'), 2);
    assert.equal(queue.retries('b'), 1);
  });

  test('forget starts the key\'s backoff over', () => {
    const clock = new FakeClock();
    const queue = new WorkQueue({ clock, backoff: { baseMs: 10, maxMs: 1000 } });
    queue.addRateLimited('a');
    clock.advance(10);
    queue.addRateLimited('a');
    clock.advance(20);
    queue.forget('a');
    assert.equal(queue.retries('a'), 0);
    queue.addRateLimited('a');
    assert.deepEqual(clock.pendingDelays, [10]);
  });

  test('shutDown answers waiting workers with undefined, drops queued keys and cancels timers', async () => {
    const clock = new FakeClock();
    const queue = new WorkQueue({ clock });
    queue.add('a');
    assert.equal(await queue.get(), 'a');
    const waiting = queue.get();
    queue.addAfter('b', 100);
    queue.addRateLimited('c');
    queue.add('a');
    queue.shutDown();
    assert.equal(await waiting, undefined);
    assert.equal(await queue.get(), undefined);
    assert.equal(clock.pending, 0, 'no timer left behind');
    queue.add('d');
    queue.addAfter('d', 10);
    queue.addRateLimited('d');
    assert.equal(queue.length, 0);
    assert.equal(clock.pending, 0);
    queue.done('a');
    assert.equal(queue.length, 0, 'a key added meanwhile is not queued again after shutDown');
    await queue.whenIdle();
  });

  test('whenIdle resolves once nothing is queued or being processed', async () => {
    const queue = new WorkQueue({ clock: new FakeClock() });
    queue.add('a');
    const order: string[] = [];
    const idle = queue.whenIdle().then(() => order.push('idle'));
    const key = (await queue.get())!;
    order.push(`got ${key}`);
    queue.done(key);
    await idle;
    assert.deepEqual(order, ['got a', 'idle']);
  });
});

describe('Backoff', () => {
  test('doubles from the base to the cap and forgets', () => {
    const backoff = new Backoff({ baseMs: 5, maxMs: 1000 });
    const delays = Array.from({ length: 10 }, () => backoff.next('k'));
    assert.deepEqual(delays, [5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000]);
    backoff.forget('k');
    assert.equal(backoff.next('k'), 5);
  });

  test('stays at the cap however many failures', () => {
    const backoff = new Backoff({ baseMs: 5, maxMs: 1000 });
    for (let i = 0; i < 2000; i++) backoff.next('k');
    assert.equal(backoff.next('k'), 1000);
  });
});

describe('Controller', () => {
  test('never reconciles one key in two workers at once, and reconciles it again after', async () => {
    const running = new Set<string>();
    const overlaps: string[] = [];
    const calls: string[] = [];
    const firstStarted = barrier();
    const release = barrier();
    const secondDone = barrier();
    const controller = new Controller({
      name: 'test',
      informers: [],
      workers: 4,
      clock: new FakeClock(),
      log: () => {},
      async reconcile(key) {
        if (running.has(key)) overlaps.push(key);
        running.add(key);
        calls.push(key);
        if (calls.length === 1) {
          firstStarted.resolve();
          await release.promise;
        }
        running.delete(key);
        if (calls.length === 2) secondDone.resolve();
      },
    });
    await controller.start();
    controller.queue.add('a');
    await firstStarted.promise;
    // Three idle workers, and "a" added again while the first still has it.
    controller.queue.add('a');
    controller.queue.add('a');
    assert.equal(controller.queue.length, 0);
    release.resolve();
    await secondDone.promise;
    await controller.idle();
    assert.deepEqual(calls, ['a', 'a'], 'once more after, for both adds');
    assert.deepEqual(overlaps, []);
    await controller.stop();
  });

  test('a failing reconcile is retried after its backoff; success forgets the failures', async () => {
    const clock = new FakeClock();
    const logs: string[] = [];
    let failuresLeft = 3;
    let attempts = 0;
    const attempted: { resolve(): void }[] = [];
    const nextAttempt = () => new Promise<void>((resolve) => attempted.push({ resolve }));
    const controller = new Controller({
      name: 'test',
      informers: [],
      clock,
      backoff: { baseMs: 10, maxMs: 1000 },
      log: (m) => logs.push(m),
      async reconcile() {
        attempts++;
        for (const a of attempted.splice(0)) a.resolve();
        if (failuresLeft-- > 0) throw new Error('backend hiccup');
      },
    });
    await controller.start();
    let attempt = nextAttempt();
    controller.queue.add('k');
    await attempt;
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      await controller.idle();
      delays.push(clock.pendingDelays[0]!);
      assert.equal(controller.queue.retries('k'), i + 1);
      attempt = nextAttempt();
      clock.advance(delays[i]!);
      await attempt;
    }
    await controller.idle();
    assert.deepEqual(delays, [10, 20, 40]);
    assert.equal(attempts, 4);
    assert.equal(controller.queue.retries('k'), 0, 'forgotten after the success');
    assert.equal(clock.pending, 0);
    assert.deepEqual(logs, Array(3).fill('test controller: k: backend hiccup'));
    await controller.stop();
  });

  test('a reconcile asking to look again later is run again after that delay', async () => {
    const clock = new FakeClock();
    let attempts = 0;
    const controller = new Controller({
      name: 'test',
      informers: [],
      clock,
      log: () => {},
      reconcile: async () => (++attempts < 3 ? { requeueAfterMs: 1000 } : undefined),
    });
    await controller.start();
    controller.queue.add('k');
    await controller.idle();
    assert.equal(attempts, 1);
    assert.deepEqual(clock.pendingDelays, [1000]);
    clock.advance(1000);
    await controller.idle();
    assert.equal(attempts, 2);
    clock.advance(1000);
    await controller.idle();
    assert.equal(attempts, 3);
    assert.equal(clock.pending, 0);
    await controller.stop();
  });

  test('stop waits for the reconcile in flight, abandons the queue and leaves no timer', async () => {
    const clock = new FakeClock();
    const order: string[] = [];
    const started = barrier();
    const release = barrier();
    const logs: string[] = [];
    const controller = new Controller({
      name: 'test',
      informers: [],
      clock,
      log: (m) => logs.push(m),
      async reconcile(key) {
        order.push(`reconcile ${key}`);
        if (key === 'slow') {
          started.resolve();
          await release.promise;
          order.push('slow finished');
          throw new Error('failed while stopping');
        }
      },
    });
    await controller.start();
    controller.queue.addAfter('later', 5000);
    controller.queue.addRateLimited('retry');
    controller.queue.add('slow');
    await started.promise;
    controller.queue.add('queued');
    const stopped = controller.stop().then(() => order.push('stopped'));
    release.resolve();
    await stopped;
    assert.deepEqual(order, ['reconcile slow', 'slow finished', 'stopped']);
    assert.equal(clock.pending, 0, 'no timer left behind');
    assert.deepEqual(logs, [], 'a failure after stop is neither logged nor retried');
    controller.queue.add('after');
    assert.equal(controller.queue.length, 0);
  });
});
