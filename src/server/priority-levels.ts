// API Priority and Fairness' dispatching: each priority level serves at most its share of
// the server's concurrency, and holds what is past it in queues, as upstream's queue sets
// (apiserver/pkg/util/flowcontrol/fairqueuing) do in their simplest shape:
//
// - the server's limit is --max-requests-inflight plus --max-mutating-requests-inflight;
//   a level's is that times its nominalConcurrencyShares over all levels' shares, rounded
//   up (upstream's nominal concurrency limit). Levels do not lend or borrow seats yet, and
//   every request takes one seat;
// - a level whose limitResponse is Reject refuses a request past its limit at once;
// - a Queue level puts it in one of its queues: the flow (the schema and its
//   distinguisher) is hashed as upstream hashes it and dealt a hand of `handSize` queues
//   (shuffle sharding, upstream's dealer), of which the request joins the shortest; a
//   queue holding `queueLengthLimit` refuses it; a request waiting longer than the wait
//   limit is refused;
// - a freed seat goes to the next queue with requests in turn (upstream orders queues by
//   virtual finish time, which with equal requests comes to the same turns).
//
// Refusals are counted per level to answer `Retry-After` as upstream's dropped-requests
// tracker does (1 s, doubled while the level keeps dropping, at most 32).
import { createHash } from 'node:crypto';
import type { LevelConfig } from '../auth/flow-schemas.ts';

export type { LevelConfig };

export type Refusal = 'concurrency-limit' | 'queue-full' | 'time-out';
/** A waiting request its client gave up on: taken out of its queue, not counted as refused. */
export type Abandoned = 'abandoned';

export interface Admitted {
  release(): void;
}

interface Waiter {
  grant(): void;
  timer: NodeJS.Timeout;
}

/** upstream's hashFlowID: SHA-256 of the schema's name, a zero byte and the distinguisher; the first 8 bytes little-endian. */
export function flowHash(schema: string, distinguisher: string): bigint {
  const sum = createHash('sha256').update(schema).update(Buffer.of(0)).update(distinguisher).digest();
  return sum.readBigUInt64LE(0);
}

/** upstream's shuffle-sharding Dealer.Deal: `handSize` distinct queues out of `deckSize`, from the hash. */
export function dealHand(hash: bigint, deckSize: number, handSize: number): number[] {
  const remainders: number[] = [];
  let value = hash;
  for (let i = 0; i < handSize; i++) {
    const size = BigInt(deckSize - i);
    const next = value / size;
    remainders.push(Number(value - size * next));
    value = next;
  }
  return remainders.map((card, i) => {
    for (let j = i; j > 0; j--) if (card >= remainders[j - 1]!) card++;
    return card;
  });
}

/** upstream's droppedRequestsStats: the Retry-After a level answers while it refuses requests. */
class DroppedRequests {
  #history: Array<{ second: number; count: number }> = [];
  #second = 0;
  #count = 0;
  #retryAfter = 1;
  #raisedAt = 0;

  get retryAfter(): number {
    return this.#retryAfter;
  }

  record(second: number): void {
    if (second === this.#second) {
      this.#count++;
      return;
    }
    this.#remember(this.#second, this.#count);
    this.#second = second;
    this.#count = 1;
    this.#update(second);
  }

  #remember(second: number, count: number): void {
    this.#history.push({ second, count });
    const keep = Math.min(2 * this.#retryAfter, 32);
    while (this.#history.length > 0 && second - this.#history[0]!.second > keep) this.#history.shift();
  }

  #update(now: number): void {
    let dropped = 0;
    for (let i = this.#history.length - 1; i >= 0; i--) {
      const { second, count } = this.#history[i]!;
      if (now - second > this.#retryAfter) break;
      if (second < now) dropped += count;
    }
    if (now - this.#raisedAt >= this.#retryAfter && dropped >= 3 * this.#retryAfter) {
      this.#retryAfter = Math.min(this.#retryAfter * 2, 32);
      this.#raisedAt = now;
    } else if (dropped < this.#retryAfter && this.#retryAfter > 1) {
      this.#retryAfter--;
    }
  }
}

class Level {
  limit = 0;
  executing = 0;
  waiting = 0;
  queuing: LevelConfig['queuing'];
  queues: Waiter[][] = [];
  /** Which queue gets the next freed seat, then the ones after it. */
  #turn = 0;
  /** Rotates where the shortest queue of a hand is looked for first (upstream's enqueues offset). */
  #enqueues = 0;
  readonly dropped = new DroppedRequests();

  configure(limit: number, queuing: LevelConfig['queuing']): void {
    this.limit = limit;
    const same = queuing !== undefined && this.queuing !== undefined && queuing.queues === this.queuing.queues;
    this.queuing = queuing;
    if (!same) {
      // Requests already waiting keep their turn: they move to the new queues in order.
      const waiting = this.queues.flat();
      this.queues = Array.from({ length: queuing?.queues ?? (waiting.length > 0 ? 1 : 0) }, () => []);
      if (waiting.length > 0) this.queues[0]!.push(...waiting);
    }
    this.dispatch();
  }

  /** The queue of the flow's hand with the fewest waiting; undefined when it is full. */
  queueFor(hash: bigint): Waiter[] | undefined {
    const queuing = this.queuing!;
    const hand = dealHand(hash, queuing.queues, Math.min(queuing.handSize, queuing.queues));
    const offset = this.#enqueues++ % hand.length;
    let best: Waiter[] | undefined;
    for (let i = 0; i < hand.length; i++) {
      const queue = this.queues[hand[(offset + i) % hand.length]!]!;
      if (best === undefined || queue.length < best.length) best = queue;
    }
    return best !== undefined && best.length < queuing.queueLengthLimit ? best : undefined;
  }

  dispatch(): void {
    while (this.executing < this.limit && this.waiting > 0 && this.#grantNext()) { /* next */ }
  }

  /** Gives a seat to the head of the next queue in turn with requests: whether there was one. */
  #grantNext(): boolean {
    for (let i = 0; i < this.queues.length; i++) {
      const queue = this.queues[(this.#turn + i) % this.queues.length]!;
      if (queue.length === 0) continue;
      this.#turn = (this.#turn + i + 1) % this.queues.length;
      this.waiting--;
      this.executing++;
      queue.shift()!.grant();
      return true;
    }
    return false;
  }
}

export class PriorityLevels {
  readonly #serverLimit: number;
  readonly #maxWaitMs: number;
  readonly #now: () => number;
  readonly #levels = new Map<string, Level>();
  #configured: readonly LevelConfig[] | undefined;
  #seats: Array<readonly [level: string, seats: number]> = [];

  /** `serverLimit`: the seats of all levels together; `maxWaitMs`: how long a request may wait in a queue. */
  constructor(opts: { serverLimit: number; maxWaitMs: number; now?: () => number }) {
    this.#serverLimit = opts.serverLimit;
    this.#maxWaitMs = opts.maxWaitMs;
    this.#now = opts.now ?? Date.now;
  }

  /** Each level's limit from its shares of the server's (upstream's nominal concurrency limit). */
  configure(levels: readonly LevelConfig[]): void {
    if (levels === this.#configured) return;
    this.#configured = levels;
    const shares = levels.reduce((sum, level) => sum + level.shares, 0);
    this.#seats = [];
    for (const config of levels) {
      const limit = shares > 0 ? Math.ceil(this.#serverLimit * config.shares / shares) : 0;
      this.#seats.push([config.name, limit]);
      if (config.exempt) continue;
      let level = this.#levels.get(config.name);
      if (level === undefined) this.#levels.set(config.name, (level = new Level()));
      level.configure(limit, config.queuing);
    }
  }

  /** Every level's nominal seats, exempt ones' too (apiserver_flowcontrol_nominal_limit_seats). */
  seats(): ReadonlyArray<readonly [level: string, seats: number]> {
    return this.#seats;
  }

  /** The limit a level serves at once now (tests, metrics). */
  limitOf(name: string): number | undefined {
    return this.#levels.get(name)?.limit;
  }

  /**
   * A seat at the level for the flow: granted now or after waiting, or refused with the
   * reason. `whenAbandoned` is handed a function that takes a waiting request out of its
   * queue (its client went away); called once the request has its seat, it does nothing.
   */
  acquire(levelName: string, schema: string, distinguisher: string, whenAbandoned?: (abandon: () => void) => void): Admitted | Refusal | Promise<Admitted | Refusal | Abandoned> {
    const level = this.#levels.get(levelName);
    if (level === undefined) return { release: () => {} };
    if (level.executing < level.limit && level.waiting === 0) return this.#seat(level);
    if (level.queuing === undefined) return this.#refuse(level, 'concurrency-limit');
    const queue = level.queueFor(flowHash(schema, distinguisher));
    if (queue === undefined) return this.#refuse(level, 'queue-full');
    return new Promise((resolve) => {
      /** Takes the waiter out of its queue: whether it was still there. */
      const leave = () => {
        for (const q of level.queues) {
          const at = q.indexOf(waiter);
          if (at < 0) continue;
          q.splice(at, 1);
          level.waiting--;
          clearTimeout(waiter.timer);
          return true;
        }
        return false;
      };
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(waiter.timer);
          resolve(this.#seated(level));
        },
        timer: setTimeout(() => {
          if (leave()) resolve(this.#refuse(level, 'time-out'));
        }, this.#maxWaitMs),
      };
      queue.push(waiter);
      level.waiting++;
      whenAbandoned?.(() => {
        if (leave()) resolve('abandoned');
      });
    });
  }

  /** The Retry-After a refusal at the level answers. */
  retryAfter(levelName: string): number {
    return this.#levels.get(levelName)?.dropped.retryAfter ?? 1;
  }

  #seat(level: Level): Admitted {
    level.executing++;
    return this.#seated(level);
  }

  #seated(level: Level): Admitted {
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        level.executing--;
        level.dispatch();
      },
    };
  }

  #refuse(level: Level, reason: Refusal): Refusal {
    level.dropped.record(Math.floor(this.#now() / 1000));
    return reason;
  }
}
