// CEL loads on first use. The library registers its whole standard library as it loads
// (~20 ms), which every start-up paid, while most servers evaluate no CEL at all (no
// admission policies, no webhook match conditions, no CRD validation rules). Code that
// may wait awaits loadCel() (an admission plugin's evaluation, a controller's sync, the
// Store before a write of a type whose strategy uses CEL); the synchronous code after it
// calls cel().
export type CelApi = typeof import('./api.ts');

let loaded: CelApi | undefined;
let loading: Promise<CelApi> | undefined;

export function loadCel(): Promise<CelApi> {
  loading ??= import('./api.ts').then((api) => (loaded = api));
  return loading;
}

/** Whether loadCel() has resolved. */
export function celLoaded(): boolean {
  return loaded !== undefined;
}

/** CEL, once loadCel() has resolved; a bug in the caller otherwise. */
export function cel(): CelApi {
  if (loaded === undefined) throw new Error('CEL is used before it was loaded: await loadCel() first');
  return loaded;
}
