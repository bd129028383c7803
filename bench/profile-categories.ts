// Where the server's CPU goes, by part of the request flow: a V8 CPU profile (the
// inspector's Profiler.stop) summed into the categories the README's performance notes
// use. Each sample counts for the nearest frame of ours (src/ or a package) that a rule
// names, walking up from the sampled frame; Node's internals count only when no frame of
// ours is on the stack (the HTTP/2 session reading a socket, a timer's microtasks).

export interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  samples: number[];
  /** Microseconds since the previous sample. */
  timeDeltas: number[];
}

export interface CpuBreakdown {
  /** Microseconds sampled, idle included. */
  totalUs: number;
  /** Microseconds not idle. */
  busyUs: number;
  /** Busy microseconds by category, largest first. */
  categories: Array<{ name: string; us: number }>;
  /** Busy microseconds by function (its own samples), largest first. */
  functions: Array<{ name: string; us: number }>;
}

const rules: Array<[name: string, test: (url: string) => boolean]> = [
  ['storage (SQLite, group commit)', (u) => u.includes('/src/storage/')],
  ['watch cache and fan-out', (u) => u.includes('/src/cache/')],
  ['managed fields, apply', (u) => u.includes('/src/apply/')],
  ['storage encode/decode (JSON)', (u) => u.endsWith('/src/registry/codec.ts')],
  ['validation and defaulting', (u) => /\/src\/(schema\/|registry\/validation\/|registry\/builtin\/|api\/(quantity|labels|field-errors)\.ts)/.test(u)],
  ['admission', (u) => u.includes('/src/admission/')],
  ['authentication, authorization', (u) => u.includes('/src/auth/')],
  ['metrics, limits, logs', (u) => /prom-client|\/src\/server\/(metrics|fair-queue|audit)/.test(u)],
  ['request body decode, answer encode', (u) => /\/src\/(encoding\/|endpoints\/(http|object-body|answer)\.ts)/.test(u)],
  ['Store (registry)', (u) => u.includes('/src/registry/')],
  ['routing, filters, handlers', (u) => /\/src\/(endpoints|server|api)\//.test(u)],
  ['HTTP/2, TLS, streams (Node)', (u) => /^node:(internal\/(http2|tls|streams|stream_base|net|js_stream)|_tls|net|events)/.test(u)],
];

const other = 'other (microtasks, Node internals)';

/** Sums a profile's samples by category and by function. */
export function cpuBreakdown(profile: CpuProfile): CpuBreakdown {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const categoryOf = new Map<number, string>();
  const categorize = (id: number): string => {
    const known = categoryOf.get(id);
    if (known !== undefined) return known;
    const leaf = byId.get(id)!.callFrame.functionName;
    let found: string | undefined;
    if (leaf === '(garbage collector)') found = 'garbage collection';
    else if (leaf === '(idle)') found = 'idle';
    for (const ours of [true, false]) {
      for (let cur: number | undefined = id; cur !== undefined && found === undefined; cur = parent.get(cur)) {
        const url = byId.get(cur)!.callFrame.url;
        if (ours && url.startsWith('node:')) continue;
        found = rules.find(([, test]) => test(url))?.[0];
      }
    }
    found ??= other;
    categoryOf.set(id, found);
    return found;
  };
  const categories = new Map<string, number>();
  const functions = new Map<string, number>();
  let totalUs = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    totalUs += us;
    const category = categorize(id);
    categories.set(category, (categories.get(category) ?? 0) + us);
    if (category === 'idle') return;
    const frame = byId.get(id)!.callFrame;
    const name = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/(src|node_modules)\//, '$1/')}${frame.url === '' ? '' : `:${frame.lineNumber + 1}`}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
  });
  const idle = categories.get('idle') ?? 0;
  categories.delete('idle');
  const sorted = (m: Map<string, number>) => [...m].map(([name, us]) => ({ name, us })).sort((a, b) => b.us - a.us);
  return { totalUs, busyUs: totalUs - idle, categories: sorted(categories), functions: sorted(functions) };
}
