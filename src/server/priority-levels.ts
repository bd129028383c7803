// API Priority and Fairness' dispatching: each priority level serves at most its share of
// the server's concurrency, and holds what is past it in queues, as upstream's queue sets
// (apiserver/pkg/util/flowcontrol/fairqueuing) do:
//
// - the server's limit is --max-requests-inflight plus --max-mutating-requests-inflight;
//   a level's nominal limit is that times its nominalConcurrencyShares over all levels'
//   shares, rounded up. Every 10 s the levels' limits move by their demand: a level lends
//   up to its lendablePercent of its nominal limit to busier ones and borrows up to its
//   borrowingLimitPercent (seat-borrowing.ts);
// - a request takes the seats its work is estimated at (work-estimate.ts): one for most, up
//   to ten for a large list, and a write whose event goes to many watches holds some for a
//   few milliseconds after its answer; it starts once its seats fit in the level's limit (or
//   it is the only one running);
// - a level whose limitResponse is Reject refuses a request past its limit at once;
// - a Queue level puts it in one of its queues: the flow (the schema and its
//   distinguisher) is hashed as upstream hashes it and dealt a hand of `handSize` queues
//   (shuffle sharding, upstream's dealer), of which the request joins the one whose
//   waiting requests have the least work; a queue holding `queueLengthLimit` refuses it; a
//   request waiting longer than the wait limit is refused;
// - freed seats go to the queue whose head would finish first in virtual time (fair
//   queuing in seat-seconds: see Level).
//
// Refusals are counted per level to answer `Retry-After` as upstream's dropped-requests
// tracker does (1 s, doubled while the level keeps dropping, at most 32).
import { createHash } from 'node:crypto';
import type { LevelConfig } from '../auth/flow-schemas.ts';
import { allocateSeats, Integrator, updateDemand, type AllocationItem, type DemandStats } from './seat-borrowing.ts';
import { maxSeatsOf, oneSeat, type WorkEstimate } from './work-estimate.ts';
import { TimingRatio, type TimingReading } from './timing-ratio.ts';

export type { LevelConfig };

export type Refusal = 'concurrency-limit' | 'queue-full' | 'time-out';
/** A waiting request its client gave up on: taken out of its queue, not counted as refused. */
export type Abandoned = 'abandoned';

export interface Admitted {
  release(): void;
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

/**
 * A level's virtual clock as upstream's metrics show it (seat-seconds), from its
 * configuration on: R as last brought up to date (current_r), and at its last dispatch
 * from a queue R (dispatch_r),
 * the dispatched request's start S (latest_s), and the least and greatest S over the
 * queues with a request waiting (next_s_bounds), less each queue's estimated work in
 * progress (next_discounted_s_bounds).
 */
export interface LevelClock {
  currentR: number;
  dispatch?: { r: number; s: number; sMin: number; sMax: number; dsMin: number; dsMax: number };
}

/** A level's seats as the metrics show them (apiserver_flowcontrol_*_limit_seats, demand_seats_*, target_seats), and its clock. */
export interface LevelSeats {
  level: string;
  nominal: number;
  lower: number;
  upper: number;
  current: number;
  demand: Readonly<DemandStats>;
  target: number;
  clock?: LevelClock;
  /** Upstream's timing ratio histograms of the level (priority_level_seat_utilization, priority_level_request_utilization by phase, demand_seats). */
  utilization?: { seats: TimingReading; executing: TimingReading; waiting: TimingReading; demand: TimingReading };
}

/** What a request shows of itself while it waits (upstream's dump_requests). */
export interface QueuedRequest {
  user: string;
  verb: string;
  path: string;
  namespace: string;
  name: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
}

/** How a request asks for its seats: its work, its client leaving, what it shows of itself. */
export interface AcquireOptions {
  work?: WorkEstimate;
  /** Handed a function that takes the request out of its queue (its client went away); once it has its seats, the function does nothing. */
  whenAbandoned?: (abandon: () => void) => void;
  /** What it shows of itself, asked only if it waits. */
  describe?: () => QueuedRequest;
  /** Told the length of its queue once it joined it (a request served at once joined an empty one, as upstream's are all queued first). */
  enqueued?: (queueLength: number) => void;
}

/** A level as upstream's debug dump shows it. */
export interface LevelDump {
  name: string;
  exempt: boolean;
  configured: boolean;
  activeQueues: number;
  idle: boolean;
  waiting: number;
  executing: number;
  /** Seats its requests hold (running, or fanning their event out) and wait for. */
  seatsInUse: number;
  waitingSeats: number;
  dispatched: number;
  rejected: number;
  timedOut: number;
  cancelled: number;
  queues: QueueDump[];
}

export interface QueueDump {
  waiting: ReadonlyArray<{ schema: string; flow: string; arrived: number; work: WorkEstimate; request?: QueuedRequest }>;
  executing: number;
  seatsInUse: number;
  /** Virtual time, seat-seconds: when its next request is dispatched, and its waiting requests' work. */
  nextDispatchR: number;
  waitingWork: number;
}

/** How often the levels' limits are worked out again from their demand (upstream's borrowingAdjustmentPeriod). */
export const adjustmentPeriodMs = 10_000;

interface Waiter {
  schema: string;
  flow: string;
  work: WorkEstimate;
  /** The seats it needs to start: its work's most. */
  seats: number;
  /** Its work in seat-seconds (upstream's totalWork), and the virtual time it arrived at. */
  totalWork: number;
  arrivalR: number;
  arrived: number;
  request: QueuedRequest | undefined;
  /** Told the queue it was dispatched from. */
  grant(from: Queue): void;
  timer: NodeJS.Timeout;
}

/** One of a level's queues: who waits in it, what it dispatched that still runs, and its virtual time. */
interface Queue {
  waiting: Waiter[];
  waitingSeats: number;
  /** The waiting requests' work, seat-seconds (upstream's TotalWorkSum). */
  waitingWork: number;
  executing: number;
  seatsInUse: number;
  /** The virtual time its next request is dispatched at (upstream's nextDispatchR). */
  nextDispatchR: number;
}

const newQueue = (): Queue => ({ waiting: [], waitingSeats: 0, waitingWork: 0, executing: 0, seatsInUse: 0, nextDispatchR: 0 });

/** How long upstream reckons a request runs before it knows (its estimatedServiceDuration), in seconds. */
const estimatedServiceSeconds = 0.003;

/** Upstream's buckets: seat utilization (0.99 and 1 to show saturation), request utilization, seat demand. */
export const seatUtilizationBounds = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1];
export const requestUtilizationBounds = [0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.25, 0.5, 0.75, 1];
export const seatDemandBounds = [0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.7, 2, 2.8, 4, 6];

/** A request's work in seat-seconds: its seats while it runs, and its final seats while its event goes out. */
function totalWork(work: WorkEstimate): number {
  return work.initialSeats * estimatedServiceSeconds + work.finalSeats * work.additionalLatencyMs / 1000;
}

const isActive = (queue: Queue) => queue.waiting.length > 0 || queue.executing > 0;

/**
 * A priority level: its seats, its demand, and for a level that queues, upstream's fair
 * queuing for server requests. Virtual time (R, in seat-seconds) advances at the rate the
 * busy queues would each be served at, min(seats requested, limit) over the active queues;
 * a request joining an idle queue starts it at the current R; each dispatch moves its
 * queue's next dispatch R on by the request's work (3 ms of its seats, and its final seats'
 * time), corrected by how long it really ran when it ends; the queue whose head would
 * finish first in virtual time goes next, ties in turn; and a queue never dispatches
 * before its head arrived in virtual time.
 */
class Level {
  readonly name: string;
  exempt = false;
  /** The seats it is configured with, lends down to, and borrows up to. */
  nominal = 0;
  lower = 0;
  upper = 0;
  /** The seats it serves at once now; an exempt level's is shown, never enforced. */
  limit = 0;
  target = 0;
  /** Whether the configuration still names it: one it no longer names is dropped once idle. */
  configured = true;
  /** The most seats one of its requests may take (0: the server's most). */
  maxSeats = 0;
  executing = 0;
  waiting = 0;
  /** The seats its requests hold (running, or just answered and still fanning out), and wait for. */
  seatsInUse = 0;
  waitingSeats = 0;
  dispatched = 0;
  rejected = 0;
  timedOut = 0;
  cancelled = 0;
  readonly demand: Integrator;
  readonly demandStats: DemandStats = { average: 0, deviation: 0, highWatermark: 0, smoothed: 0 };
  queuing: LevelConfig['queuing'];
  queues: Queue[] = [];
  /** Virtual time now, and when it was last brought up to date (ms). */
  currentR = 0;
  #lastSync: number;
  /** Its last dispatch from a queue, for the metrics. */
  lastDispatch: LevelClock['dispatch'];
  /** Each flow's hand of queues, dealt once (a hash and a deal are a few µs). */
  #hands = new Map<string, number[]>();
  /** The queue last dispatched from: ties go to the ones after it (upstream's robinIndex). */
  #robin = -1;
  /** Rotates where the hand's queues are looked at first (upstream's enqueues offset). */
  #enqueues = 0;
  readonly dropped = new DroppedRequests();
  readonly #now: () => number;
  /** Told the schema of a head that could not be dispatched for want of seats. */
  readonly #noAccommodation: ((level: string, schema: string) => void) | undefined;

  /**
   * Upstream's utilization metrics over time: seats in use and requests running against its
   * seats, requests waiting against its queues' room, and its seat demand against its seats.
   */
  readonly utilization: { seats: TimingRatio; executing: TimingRatio; waiting: TimingRatio; demand: TimingRatio };

  constructor(name: string, now: () => number, noAccommodation?: (level: string, schema: string) => void) {
    this.name = name;
    this.#now = now;
    this.#noAccommodation = noAccommodation;
    const t = now();
    this.#lastSync = t;
    this.demand = new Integrator(now);
    this.utilization = {
      seats: new TimingRatio(seatUtilizationBounds, 0, 1, t),
      executing: new TimingRatio(requestUtilizationBounds, 0, 1, t),
      waiting: new TimingRatio(requestUtilizationBounds, 0, 1, t),
      demand: new TimingRatio(seatDemandBounds, 0, 1, t),
    };
  }

  /**
   * The denominators of its utilization: its seats now, or a tenth of the server's when it
   * has none (upstream's concurrency denominator), and its queues' room (one when it has none).
   */
  noteLimits(serverLimit: number): void {
    const now = this.#now();
    const seats = this.limit > 0 ? this.limit : Math.max(1, Math.round(serverLimit / 10));
    const { utilization } = this;
    utilization.seats.setDenominator(seats, now);
    utilization.executing.setDenominator(seats, now);
    utilization.demand.setDenominator(seats, now);
    const queuing = this.queuing;
    utilization.waiting.setDenominator(Math.max(1, queuing?.queueLengthLimit ?? 0) * (queuing !== undefined && queuing.queues > 0 ? queuing.queues : 1), now);
  }

  configure(queuing: LevelConfig['queuing']): void {
    const same = queuing !== undefined && this.queuing !== undefined && queuing.queues === this.queuing.queues && queuing.handSize === this.queuing.handSize;
    this.syncTime();
    this.queuing = queuing;
    if (!same) {
      this.#hands.clear();
      this.#robin = -1;
      // Requests already waiting keep their turn: they move to the new queues in order.
      const waiting = this.queues.flatMap((queue) => queue.waiting);
      this.queues = Array.from({ length: queuing?.queues ?? (waiting.length > 0 ? 1 : 0) }, newQueue);
      if (waiting.length > 0) {
        const first = this.queues[0]!;
        first.waiting.push(...waiting);
        first.waitingSeats = waiting.reduce((sum, waiter) => sum + waiter.seats, 0);
        first.waitingWork = waiting.reduce((sum, waiter) => sum + waiter.totalWork, 0);
        first.nextDispatchR = this.currentR;
      }
    }
  }

  get idle(): boolean {
    return this.executing === 0 && this.waiting === 0 && this.seatsInUse === 0;
  }

  /**
   * Whether a request of `seats` fits now: within the limit; one wider than the whole
   * limit only when nothing else runs (as upstream's, so that it is not held forever).
   */
  fits(seats: number): boolean {
    if (this.exempt) return true;
    if (seats > this.limit) return this.executing === 0;
    return this.seatsInUse + seats <= this.limit;
  }

  /** The seats its requests hold and wait for, or the requests running or waiting, changed. */
  noteDemand(): void {
    const now = this.#now();
    const demand = this.seatsInUse + this.waitingSeats;
    this.demand.set(demand, now);
    const { utilization } = this;
    utilization.seats.set(this.seatsInUse, now);
    utilization.executing.set(this.executing, now);
    utilization.waiting.set(this.waiting, now);
    utilization.demand.set(demand, now);
  }

  /** Brings virtual time up to now, at the rate the queues' state since the last time gave it. */
  syncTime(): void {
    const now = this.#now();
    const seconds = (now - this.#lastSync) / 1000;
    this.#lastSync = now;
    if (seconds <= 0 || this.queues.length === 0) return;
    // Every queued request's seats are its queue's (the level's limit counts no others).
    const requested = this.seatsInUse + this.waitingSeats;
    if (requested === 0) return;
    let active = 0;
    for (const queue of this.queues) if (isActive(queue)) active++;
    if (active > 0) this.currentR += seconds * Math.min(requested, this.limit) / active;
  }

  /**
   * The queue of the flow's hand whose waiting requests have the least work, looked for from
   * a rotating start (upstream's shuffle sharding).
   */
  queueFor(schema: string, flow: string): Queue {
    const key = `${schema}\0${flow}`;
    let hand = this.#hands.get(key);
    if (hand === undefined) {
      const queuing = this.queuing!;
      hand = dealHand(flowHash(schema, flow), queuing.queues, Math.min(queuing.handSize, queuing.queues));
      // Flows come and go: past a few thousand the hands are dealt afresh.
      if (this.#hands.size >= 4096) this.#hands.clear();
      this.#hands.set(key, hand);
    }
    const offset = this.#enqueues++ % hand.length;
    let best: Queue | undefined;
    let bestWork = Infinity;
    for (let i = 0; i < hand.length; i++) {
      const queue = this.queues[hand[(offset + i) % hand.length]!]!;
      if (queue.waitingWork < bestWork) {
        best = queue;
        bestWork = queue.waitingWork;
      }
    }
    return best!;
  }

  /** A queue that was idle starts at the current virtual time (call with the time synced). */
  #wake(queue: Queue): void {
    if (!isActive(queue)) queue.nextDispatchR = this.currentR;
  }

  /** Upstream's anti-windup: a queue never dispatches before its head arrived in virtual time. */
  #bound(queue: Queue): void {
    const head = queue.waiting[0];
    if (head !== undefined && queue.nextDispatchR < head.arrivalR) queue.nextDispatchR = head.arrivalR;
  }

  /** A request joins its queue to wait. */
  enqueue(queue: Queue, waiter: Waiter): void {
    this.syncTime();
    this.#wake(queue);
    waiter.arrivalR = this.currentR;
    queue.waiting.push(waiter);
    queue.waitingSeats += waiter.seats;
    queue.waitingWork += waiter.totalWork;
    this.waiting++;
    this.waitingSeats += waiter.seats;
    this.#bound(queue);
    this.noteDemand();
  }

  /** A waiting request leaves (its wait ran out, or its client went away): whether it was still there. */
  leave(waiter: Waiter): boolean {
    for (const queue of this.queues) {
      const at = queue.waiting.indexOf(waiter);
      if (at < 0) continue;
      this.syncTime();
      queue.waiting.splice(at, 1);
      queue.waitingSeats -= waiter.seats;
      queue.waitingWork -= waiter.totalWork;
      this.waiting--;
      this.waitingSeats -= waiter.seats;
      this.#bound(queue);
      this.noteDemand();
      // A wide request that left may have held narrower ones back.
      this.dispatch();
      return true;
    }
    return false;
  }

  /** A request runs at once: through its queue when it has one (upstream's are all queued, then dispatched). */
  startNow(seats: number, work: WorkEstimate, queue: Queue | undefined): void {
    if (queue !== undefined) {
      this.syncTime();
      this.#wake(queue);
      // Upstream's anti-windup, with the request at the head of its queue, arrived now.
      if (queue.nextDispatchR < this.currentR) queue.nextDispatchR = this.currentR;
      // Dispatched as the only request waiting at this level.
      const s = queue.nextDispatchR;
      const ds = s - queue.seatsInUse * estimatedServiceSeconds;
      this.lastDispatch = { r: this.currentR, s, sMin: s, sMax: s, dsMin: ds, dsMax: ds };
      queue.nextDispatchR += totalWork(work);
    }
    this.#start(seats, queue);
  }

  #start(seats: number, queue: Queue | undefined): void {
    this.executing++;
    this.seatsInUse += seats;
    this.dispatched++;
    if (queue !== undefined) {
      queue.executing++;
      queue.seatsInUse += seats;
    }
    this.noteDemand();
  }

  /** A request ended: its queue's virtual time is corrected by how long it really ran. */
  finish(queue: Queue | undefined, initialSeats: number, ranSeconds: number): void {
    this.syncTime();
    this.executing--;
    this.utilization.executing.set(this.executing, this.#now());
    if (queue === undefined) return;
    queue.executing--;
    queue.nextDispatchR += initialSeats * (ranSeconds - estimatedServiceSeconds);
    this.#bound(queue);
  }

  /** Its seats come back (at its end, or after its final seats' time). */
  free(queue: Queue | undefined, seats: number): void {
    this.syncTime();
    this.seatsInUse -= seats;
    if (queue !== undefined) queue.seatsInUse -= seats;
    this.noteDemand();
    this.dispatch();
  }

  /** Serves waiting requests while seats are free; a level left with none serves one at a time (upstream's would hold them all). */
  dispatch(): void {
    if (this.waiting === 0) return;
    this.syncTime();
    while (this.waiting > 0 && (this.seatsInUse < this.limit || this.executing === 0) && this.#dispatchNext()) { /* next */ }
  }

  /**
   * Dispatches the head of the queue that would finish it first in virtual time (ties to
   * the queues after the last one served): whether it could. A head whose seats do not fit
   * waits, and nothing else goes before it.
   */
  #dispatchNext(): boolean {
    const count = this.queues.length;
    let chosen = -1;
    let finish = Infinity;
    let sMin = Infinity;
    let sMax = -Infinity;
    let dsMin = Infinity;
    let dsMax = -Infinity;
    for (let i = 1; i <= count; i++) {
      const index = (this.#robin + i) % count;
      const queue = this.queues[index]!;
      const head = queue.waiting[0];
      if (head === undefined) continue;
      const s = queue.nextDispatchR;
      const ds = s - queue.seatsInUse * estimatedServiceSeconds;
      if (s < sMin) sMin = s;
      if (s > sMax) sMax = s;
      if (ds < dsMin) dsMin = ds;
      if (ds > dsMax) dsMax = ds;
      const at = queue.nextDispatchR + head.totalWork;
      if (at < finish) {
        finish = at;
        chosen = index;
      }
    }
    if (chosen < 0) return false;
    const queue = this.queues[chosen]!;
    const head = queue.waiting[0]!;
    if (!this.fits(head.seats)) {
      this.#noAccommodation?.(this.name, head.schema);
      return false;
    }
    this.#robin = chosen;
    this.lastDispatch = { r: this.currentR, s: queue.nextDispatchR, sMin, sMax, dsMin, dsMax };
    queue.waiting.shift();
    queue.waitingSeats -= head.seats;
    queue.waitingWork -= head.totalWork;
    this.waiting--;
    this.waitingSeats -= head.seats;
    queue.nextDispatchR += head.totalWork;
    this.#bound(queue);
    this.#start(head.seats, queue);
    head.grant(queue);
    return true;
  }
}

export class PriorityLevels {
  readonly #serverLimit: number;
  readonly #maxWaitMs: number;
  readonly #now: () => number;
  readonly #levels = new Map<string, Level>();
  #configured: readonly LevelConfig[] | undefined;
  #fairFraction = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #noAccommodation: ((level: string, schema: string) => void) | undefined;

  /**
   * `serverLimit`: the seats of all levels together; `maxWaitMs`: how long a request may
   * wait in a queue; `now`: the clock in milliseconds (the demand's integrals, Retry-After).
   * The limits move every adjustment period once `start()` is called, or at each `adjust()`.
   */
  constructor(opts: { serverLimit: number; maxWaitMs: number; now?: () => number; noAccommodation?: (level: string, schema: string) => void }) {
    this.#serverLimit = opts.serverLimit;
    this.#maxWaitMs = opts.maxWaitMs;
    this.#now = opts.now ?? (() => performance.timeOrigin + performance.now());
    this.#noAccommodation = opts.noAccommodation;
  }

  /** Moves the limits every adjustment period until `stop()`. */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.adjust(), adjustmentPeriodMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /**
   * Takes the levels configured now: each one's nominal limit from its shares of the
   * server's, what it may lend and borrow, a new level starting halfway into what it may
   * lend; then the limits are worked out again at once, as upstream does on each change.
   */
  configure(levels: readonly LevelConfig[]): void {
    if (levels === this.#configured) return;
    this.#configured = levels;
    const names = new Set(levels.map((level) => level.name));
    for (const [name, level] of this.#levels) {
      level.configured = names.has(name);
      // One no longer configured serves what it holds, then goes.
      if (!level.configured && level.idle) this.#levels.delete(name);
    }
    const shares = levels.reduce((sum, level) => sum + level.shares, 0);
    for (const config of levels) {
      const nominal = shares > 0 ? Math.ceil(this.#serverLimit * config.shares / shares) : 0;
      const lendable = Math.round(nominal * (config.lendablePercent ?? 0) / 100);
      const borrowable = config.borrowingLimitPercent === undefined ? this.#serverLimit : Math.round(nominal * config.borrowingLimitPercent / 100);
      let level = this.#levels.get(config.name);
      if (level === undefined) {
        this.#levels.set(config.name, (level = new Level(config.name, this.#now, this.#noAccommodation)));
        level.limit = nominal - Math.floor(lendable / 2);
      }
      level.exempt = config.exempt;
      // A request takes at most 15% of its level's nominal seats, and no more than one hand's share of them (upstream's max seats).
      level.maxSeats = config.queuing === undefined || config.exempt ? 0 : Math.max(1, Math.min(Math.ceil(nominal * 0.15), Math.floor(nominal / config.queuing.handSize)));
      level.nominal = nominal;
      level.lower = nominal - lendable;
      level.upper = nominal + borrowable;
      level.configure(config.exempt ? undefined : config.queuing);
    }
    // Levels left over keep their bounds while they drain, as upstream's lingering levels.
    this.adjust();
  }

  /**
   * Works the limits out again from the demand since the last time (upstream's
   * updateBorrowing). An exempt level takes what its demand reached (its limit only shown);
   * the others share what is left: each at least what it does not lend, then up to its
   * floor (its nominal limit, or its demand's high watermark if less) in proportion to
   * the way to it when that is all there is, and past that by the allocation problem over
   * their smoothed demands (which shares out the nominal limits' sum, as upstream's does).
   */
  adjust(): void {
    const levels = [...this.#levels.values()];
    let remaining = levels.reduce((sum, level) => sum + level.nominal, 0);
    const total = remaining;
    let lowerSum = 0;
    let floorSum = 0;
    const floors = new Map<Level, number>();
    const limited: Level[] = [];
    const items: AllocationItem[] = [];
    for (const level of levels) {
      updateDemand(level.demandStats, level.demand.reset());
      const highWatermark = level.demandStats.highWatermark;
      const floor = level.exempt ? Math.max(level.lower, highWatermark) : Math.max(level.lower, Math.min(level.nominal, highWatermark));
      floors.set(level, floor);
      if (level.exempt) {
        remaining -= floor;
        level.target = floor;
        continue;
      }
      limited.push(level);
      items.push({ lower: floor, upper: level.upper, target: Math.max(floor, level.demandStats.smoothed) });
      lowerSum += level.lower;
      floorSum += floor;
    }
    let limitOf: (level: Level, i: number) => number;
    this.#fairFraction = 0;
    if (remaining <= lowerSum) {
      limitOf = (level) => level.lower;
    } else if (remaining <= floorSum) {
      const fraction = (remaining - lowerSum) / (floorSum - lowerSum);
      limitOf = (level) => level.lower + Math.round((floors.get(level)! - level.lower) * fraction);
    } else {
      let shares: number[] | undefined;
      try {
        const allocation = allocateSeats(total, items);
        shares = allocation.shares;
        this.#fairFraction = allocation.fairFraction;
      } catch {
        // Bounds that cannot be met (a configuration in the middle of changing): the limits stay.
      }
      limitOf = (level, i) => (shares === undefined ? level.limit : Math.round(shares[i]!));
    }
    for (const level of levels) if (level.exempt) level.limit = floors.get(level)!;
    for (const [i, level] of limited.entries()) {
      level.target = items[i]!.target;
      level.limit = limitOf(level, i);
      level.dispatch();
    }
    for (const level of levels) level.noteLimits(this.#serverLimit);
  }

  /** Every level's seats: nominal, bounds, current limit, demand (the metrics). */
  seats(): LevelSeats[] {
    return [...this.#levels.values()].map((level) => {
      const seats: LevelSeats = {
        level: level.name, nominal: level.nominal, lower: level.lower, upper: level.upper, current: level.limit, demand: level.demandStats, target: level.target,
      };
      // The exempt level's too: upstream's serves it through a queueset without queues, whose R stays 0.
      seats.clock = { currentR: level.currentR };
      if (level.lastDispatch !== undefined) seats.clock.dispatch = level.lastDispatch;
      const now = this.#now();
      const { utilization } = level;
      seats.utilization = { seats: utilization.seats.read(now), executing: utilization.executing.read(now), waiting: utilization.waiting.read(now), demand: utilization.demand.read(now) };
      return seats;
    });
  }

  /** The fraction of its target each level was last given (apiserver_flowcontrol_seat_fair_frac). */
  get fairFraction(): number {
    return this.#fairFraction;
  }

  /** The most seats one request of the level may take (0: the server's most), for its work estimate. */
  levelMaxSeats(name: string): number {
    return this.#levels.get(name)?.maxSeats ?? 0;
  }

  /** The limit a level serves at once now (tests, metrics). */
  limitOf(name: string): number | undefined {
    const level = this.#levels.get(name);
    return level === undefined || level.exempt ? undefined : level.limit;
  }

  /**
   * Seats at the level for the flow: granted now or after waiting, or refused with the
   * reason. An exempt level's requests are never held: their seats count only as its demand.
   */
  acquire(levelName: string, schema: string, flow: string, opts: AcquireOptions = {}): Admitted | Refusal | Promise<Admitted | Refusal | Abandoned> {
    const level = this.#levels.get(levelName);
    if (level === undefined) return { release: () => {} };
    const work = opts.work ?? oneSeat;
    const seats = maxSeatsOf(work);
    if (level.queuing === undefined) {
      if (!level.fits(seats)) return this.#refuse(level, 'concurrency-limit');
      level.startNow(seats, work, undefined);
      return this.#seated(level, seats, work, undefined);
    }
    const queue = level.queueFor(schema, flow);
    if (level.waiting === 0 && level.fits(seats)) {
      opts.enqueued?.(1);
      level.startNow(seats, work, queue);
      return this.#seated(level, seats, work, queue);
    }
    if (queue.waiting.length >= level.queuing.queueLengthLimit) return this.#refuse(level, 'queue-full');
    return new Promise((resolve) => {
      const waiter: Waiter = {
        schema, flow, work, seats, totalWork: totalWork(work), arrivalR: 0, arrived: Date.now(), request: opts.describe?.(),
        grant: (from) => {
          clearTimeout(waiter.timer);
          resolve(this.#seated(level, seats, work, from));
        },
        timer: setTimeout(() => {
          if (!level.leave(waiter)) return;
          level.timedOut++;
          resolve(this.#refuse(level, 'time-out'));
        }, this.#maxWaitMs),
      };
      level.enqueue(queue, waiter);
      opts.enqueued?.(queue.waiting.length);
      opts.whenAbandoned?.(() => {
        if (!level.leave(waiter)) return;
        clearTimeout(waiter.timer);
        level.cancelled++;
        resolve('abandoned');
      });
    });
  }

  /** The Retry-After a refusal at the level answers. */
  retryAfter(levelName: string): number {
    return this.#levels.get(levelName)?.dropped.retryAfter ?? 1;
  }

  /** Every level, its queues and who waits in them, by name (upstream's /debug/api_priority_and_fairness dumps). */
  dump(): LevelDump[] {
    for (const level of this.#levels.values()) level.syncTime();
    return [...this.#levels.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((level) => ({
      name: level.name, exempt: level.exempt, configured: level.configured,
      activeQueues: level.queues.filter((queue) => queue.waiting.length > 0).length,
      idle: level.waiting === 0 && level.executing === 0,
      waiting: level.waiting, executing: level.executing, seatsInUse: level.seatsInUse, waitingSeats: level.waitingSeats,
      dispatched: level.dispatched, rejected: level.rejected, timedOut: level.timedOut, cancelled: level.cancelled,
      queues: level.queues.map((queue) => ({
        waiting: queue.waiting.map(({ schema, flow, arrived, work, request }) => ({ schema, flow, arrived, work, ...(request !== undefined ? { request } : {}) })),
        executing: queue.executing,
        seatsInUse: queue.seatsInUse,
        nextDispatchR: queue.nextDispatchR,
        waitingWork: queue.waitingWork,
      })),
    }));
  }

  /**
   * The seats taken: released when the request ends, or, for a write whose event still
   * goes out to its watches, that much later (the client does not wait for it).
   */
  #seated(level: Level, seats: number, work: WorkEstimate, queue: Queue | undefined): Admitted {
    let released = false;
    const started = this.#now();
    const free = () => {
      level.free(queue, seats);
      if (!level.configured && level.idle && this.#levels.get(level.name) === level) this.#levels.delete(level.name);
    };
    return {
      release: () => {
        if (released) return;
        released = true;
        level.finish(queue, work.initialSeats, (this.#now() - started) / 1000);
        if (work.additionalLatencyMs > 0) setTimeout(free, work.additionalLatencyMs).unref();
        else free();
      },
    };
  }

  #refuse(level: Level, reason: Refusal): Refusal {
    // The dumps count time-outs apart.
    if (reason !== 'time-out') level.rejected++;
    level.dropped.record(Math.floor(this.#now() / 1000));
    return reason;
  }
}
