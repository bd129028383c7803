// How many requests start in one turn of the event loop.
//
// Node's HTTP/2 writes a session's answers when the turn that made them ends. A client
// with 32 requests in flight on one connection sends them together; started all in one
// turn, their 32 answers leave together at its end, and server and client then take turns
// being idle: the client waits for the whole batch while the server works through it, and
// the server waits while the client reads it and sends the next. Starting a few per turn
// sends the first answers while the server works on the rest, so both keep busy: with the
// shared benchmark client (32 in flight, HTTP/2), 8 per turn took gets from ~7,000 to
// ~12,000/s on two cores; 4 and 16 did less well, 2 worse than none.

/** Requests started per turn; the rest wait for the next turns, in arrival order. */
export const requestsPerTurn = 8;

export class TurnLimiter {
  readonly #perTurn: number;
  #startedThisTurn = 0;
  #waiting: (() => void)[] = [];
  #turnScheduled = false;

  constructor(perTurn = requestsPerTurn) {
    this.#perTurn = perTurn;
  }

  /** Starts `start` now if this turn has room, else in a later turn, after those waiting before it. */
  admit(start: () => void): void {
    if (this.#startedThisTurn < this.#perTurn && this.#waiting.length === 0) {
      this.#startedThisTurn++;
      start();
    } else {
      this.#waiting.push(start);
    }
    this.#scheduleTurn();
  }

  /** Requests admitted and not started yet. */
  get waiting(): number {
    return this.#waiting.length;
  }

  #scheduleTurn(): void {
    if (this.#turnScheduled) return;
    this.#turnScheduled = true;
    setImmediate(() => this.#nextTurn());
  }

  #nextTurn(): void {
    this.#turnScheduled = false;
    const starting = this.#waiting.splice(0, this.#perTurn);
    this.#startedThisTurn = starting.length;
    for (const start of starting) start();
    // Another turn: to start what still waits, or to open a fresh count for what arrives.
    if (this.#waiting.length > 0 || starting.length > 0) this.#scheduleTurn();
  }
}
