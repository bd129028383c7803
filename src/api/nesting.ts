// How deep request bodies may nest, shared by every decoder of bodies (objects, patches, options).

/**
 * The deepest nesting of objects and arrays a body may have. Go's encoding/json (and
 * sigs.k8s.io/json, which kube-apiserver decodes with) refuses more than 10,000 levels;
 * we refuse from a lower depth because an object passes through recursive code whose
 * frames are larger than Go's. On Node's default stack V8's JSON.stringify overflows
 * near 4,400 levels, the yaml package's parser near 1,000 (a clean 400) and the merge
 * patch walk between 1,024 and 1,280 (measured with test/e2e/deep-bodies.test.ts): 512
 * keeps every walk at half its limit or less. No real object comes near it: the deepest
 * built-in data (a CRD's openAPIV3Schema) nests a few dozen levels.
 */
export const maxNestingDepth = 512;

/**
 * The bracket (`{` or `[`) of the first container in `value` nested deeper than
 * `limit` (the top level is 1), or undefined. Iterative, so safe for any depth; a cyclic
 * value is infinitely deep and found the same way.
 */
export function firstTooDeep(value: unknown, limit: number = maxNestingDepth): '{' | '[' | undefined {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > limit) return Array.isArray(item) ? '[' : '{';
    const children = Array.isArray(item) ? item : Object.values(item);
    for (const child of children) if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
  }
  return undefined;
}

/**
 * Whether JSON text could nest deeper than `maxNestingDepth`, so that its parsed value
 * needs firstTooDeep's walk. Each level opens with a bracket of its own: text shorter than
 * two brackets a level, or with no more opening brackets than levels allowed (those in
 * strings only add to the count), cannot. Most bodies then need no walk: a 10-container
 * Deployment's 3.6 KB have ~70.
 */
export function mayNestTooDeep(text: string): boolean {
  if (text.length < 2 * (maxNestingDepth + 1)) return false;
  let openers = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c === 0x7b || c === 0x5b) && ++openers > maxNestingDepth) return true;
  }
  return false;
}

/** Go's JSON scanner's words for a document nested too deep, which kube-apiserver's answers carry. */
export function tooDeepMessage(opener: '{' | '['): string {
  return `invalid character '${opener}' exceeded max depth`;
}
