// Type checking of admission policy expressions against the schemas of the kinds a policy
// matches, as upstream's policy status controller reports it in status.typeChecking: a
// field an expression reads from `object` or `oldObject` that the kind does not have is a
// warning, worded as cel-go's checker words it ("undefined field 'x'", with the line and a
// caret under the access). Plinth's expressions are otherwise dynamically typed, so this
// finds misspelt fields, not every type error cel-go's static types would.

import { compile, escapePropertyName, rewriteHasOperands } from './environment.ts';
import { checkerError } from './errors.ts';
import { isObject } from '../api/json.ts';

type Raw = Record<string, unknown>;
type Ast = { op: string; args: any; pos?: number; start?: number };


/** The name a property has in CEL (undefined: none). */
type FieldNames = (name: string) => string | undefined;

/** Follows $ref (and a single-entry allOf) to the schema a node stands for. */
export type SchemaResolver = (schema: Raw) => Raw;

/** A schema whose fields are all known: properties, and neither extra properties nor unknown fields allowed. */
function closed(schema: Raw): boolean {
  return isObject(schema.properties) && schema.additionalProperties === undefined && schema['x-kubernetes-preserve-unknown-fields'] !== true
    && schema['x-kubernetes-int-or-string'] !== true && schema['x-kubernetes-embedded-resource'] !== true;
}

function property(schema: Raw, field: string, names: FieldNames): Raw | undefined {
  const properties = schema.properties as Raw;
  for (const [name, sub] of Object.entries(properties)) if (names(name) === field && isObject(sub)) return sub;
  return undefined;
}

interface Found {
  message: string;
  offset: number;
  /** Placed at the `[` after the offset (an index), not at the dot before it (a field). */
  bracket?: boolean;
}

function walk(node: Ast, scope: ReadonlyMap<string, Raw | undefined>, resolve: SchemaResolver, found: Found[], names: FieldNames, objectIndex = false): Raw | undefined {
  if (node === null || typeof node !== 'object' || typeof node.op !== 'string') return undefined;
  const here = (n: Raw | undefined) => (n === undefined ? undefined : resolve(n));
  switch (node.op) {
    case 'id': return here(scope.get(node.args as string));
    case '.':
    case '.?': {
      const [operand, field] = node.args as [Ast, string];
      const schema = walk(operand, scope, resolve, found, names, objectIndex);
      if (schema === undefined) return undefined;
      if (closed(schema)) {
        const sub = property(schema, field, names);
        if (sub === undefined && node.op === '.') found.push({ message: `undefined field '${field}'`, offset: node.pos ?? node.start ?? 0 });
        return here(sub);
      }
      return here(isObject(schema.additionalProperties) ? schema.additionalProperties : undefined);
    }
    case '[]':
    case '[?]': {
      const [operand, index] = node.args as [Ast, Ast];
      walk(index, scope, resolve, found, names, objectIndex);
      const schema = walk(operand, scope, resolve, found, names, objectIndex);
      if (schema === undefined) return undefined;
      if (objectIndex && node.op === '[]' && closed(schema)) {
        // An object's fields are selected, not indexed: cel-go has no `_[_]` for object types.
        const literal = index?.op === 'value' ? index.args : undefined;
        const type = typeof literal === 'string' ? 'string' : typeof literal === 'bigint' ? 'int' : typeof literal === 'number' ? 'double' : 'dyn';
        found.push({ message: `found no matching overload for '_[_]' applied to '(object, ${type})'`, offset: (operand as { end?: number }).end ?? 0, bracket: true });
        return undefined;
      }
      return here(isObject(schema.items) ? schema.items : isObject(schema.additionalProperties) ? schema.additionalProperties : undefined);
    }
    case 'rcall': {
      const [name, receiver, args] = node.args as [string, Ast, Ast[]];
      if (name === 'bind' && receiver?.op === 'id' && receiver.args === 'cel' && args.length === 3 && args[0]?.op === 'id') {
        // cel.bind(v, init, body): v has init's schema in body.
        const inner = new Map(scope);
        inner.set(args[0].args as string, walk(args[1]!, scope, resolve, found, names, objectIndex));
        return walk(args[2]!, inner, resolve, found, names, objectIndex);
      }
      const range = walk(receiver, scope, resolve, found, names, objectIndex);
      const macro = ['all', 'exists', 'exists_one', 'existsOne', 'map', 'filter', 'transformList', 'transformMap', 'transformMapEntry'].includes(name);
      if (macro && args[0]?.op === 'id') {
        const element = range === undefined ? undefined : isObject(range.items) ? range.items : isObject(range.additionalProperties) ? range.additionalProperties : undefined;
        const inner = new Map(scope);
        const twoVariables = args.length >= 3 && args[1]?.op === 'id' && name !== 'map' && name !== 'filter';
        if (twoVariables) {
          inner.set(args[0].args as string, undefined);
          inner.set(args[1]!.args as string, element);
        } else inner.set(args[0].args as string, isObject(range?.items) ? element : undefined);
        for (const a of args.slice(twoVariables ? 2 : 1)) walk(a, inner, resolve, found, names, objectIndex);
        return undefined;
      }
      for (const a of args) walk(a, scope, resolve, found, names, objectIndex);
      return undefined;
    }
    case 'call': {
      const [, args] = node.args as [string, Ast[]];
      for (const a of args) walk(a, scope, resolve, found, names, objectIndex);
      return undefined;
    }
    default: {
      const parts = Array.isArray(node.args) ? (node.args as unknown[]).flatMap((a) => (Array.isArray(a) ? a : [a])) : [node.args];
      for (const p of parts) if (isObject(p) && typeof p.op === 'string') walk(p as Ast, scope, resolve, found, names, objectIndex);
      return undefined;
    }
  }
}

/**
 * The checker's errors for an expression whose variables (`roots`: `object` and
 * `oldObject`, or `self` and `oldSelf`) have those schemas, each as cel-go prints it:
 * `ERROR: <input>:L:C: message`, the line, and a caret.
 */
export function undefinedFieldErrors(
  expression: string, variables: Readonly<Record<string, string>>, roots: Readonly<Record<string, Raw>>, resolve: SchemaResolver,
  opts: { objects?: boolean; nativeFields?: boolean; objectIndex?: boolean } = {},
): string[] {
  const compiled = compile(expression, variables, opts.objects === true ? { objects: true } : {});
  if (compiled.ast === undefined) return [];
  const found: Found[] = [];
  // A schema's properties are escaped as CEL sees a custom resource's; a built-in Go type's fields (nativeFields) are not.
  walk(compiled.ast as Ast, new Map(Object.entries(roots)), resolve, found, opts.nativeFields === true ? (name) => name : escapePropertyName, opts.objectIndex === true);
  // Offsets are the compiled text's (has() of a non-variable is rewritten: see rewriteHasOperands).
  const shown = rewriteHasOperands(expression);
  return found.map(({ message, offset: at, bracket }) => {
    // cel-go places a field access at its dot, an index at its bracket.
    let offset = at;
    if (bracket === true) offset = Math.max(0, shown.indexOf('[', at));
    else while (offset > 0 && shown[offset] !== '.') offset--;
    return checkerError(shown, offset, message);
  });
}
