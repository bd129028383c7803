// Static types for CRD rules, as upstream's SchemaDeclType gives a structural schema's
// nodes to cel-go's checker: an object with properties is an object type with those
// fields (a resource root, or an embedded resource, also apiVersion, kind and
// metadata.name/generateName; unknown fields are not selectable), an object with
// additionalProperties a map(string, T), an array a list(T), int-or-string dyn, a string
// by its format (timestamp, duration, bytes), and nodes with no type not exposed at all.
// A rule is checked against its node's type when the CRD is written, so a rule that
// compares a string with an int, or an object with a map, is refused as upstream refuses
// it; evaluation stays dynamically typed. Errors are worded as cel-go's checker words them.

import { checkJoiningNull, escapePropertyName, rewriteHasOperands, typedEnvironment } from './environment.ts';
import { comparableWithNull } from './library.ts';
import { checkFailure, mapIndexError, objectPrefix, typeName } from './checker-errors.ts';
import { formatType } from './schema-formats.ts';
import { undefinedFieldErrors } from './type-check.ts';
import { isObject } from '../api/json.ts';
import type { Environment } from '@marcbachmann/cel-js';

type Raw = Record<string, unknown>;

const isEmbedded = (s: unknown) => isObject(s) && s['x-kubernetes-embedded-resource'] === true;
const hasType = (s: unknown, type: string) => isObject(s) && s.type === type;

/**
 * A resource's properties with apiVersion, kind and metadata (name and generateName only)
 * as rules see them: the schema's own when it declares all of them so, else these.
 */
function withTypeAndObjectMeta(properties: Raw): Raw {
  const meta = properties.metadata;
  const declared = hasType(properties.kind, 'string') && hasType(properties.apiVersion, 'string') && hasType(meta, 'object')
    && isObject((meta as Raw).properties) && hasType(((meta as Raw).properties as Raw).name, 'string') && hasType(((meta as Raw).properties as Raw).generateName, 'string');
  if (declared) return properties;
  return {
    ...properties, kind: { type: 'string' }, apiVersion: { type: 'string' },
    metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } },
  };
}

/**
 * The schema as rules see it (undefined: not exposed): objects closed to the fields they
 * declare, a resource's type and object meta added, nodes with no type left out, int-or-string
 * open (`{}`). For the walk that finds undefined fields, `has()` included.
 */
export function celView(schema: unknown, resourceRoot: boolean): Raw | undefined {
  if (!isObject(schema)) return undefined;
  // Kept per node: each of a node's rules, and each rule above it, walks the same view.
  const views = resourceRoot ? rootViews : nodeViews;
  if (views.has(schema)) return views.get(schema);
  const view = viewOf(schema, resourceRoot);
  views.set(schema, view);
  return view;
}

const rootViews = new WeakMap<Raw, Raw | undefined>();
const nodeViews = new WeakMap<Raw, Raw | undefined>();

function viewOf(schema: Raw, resourceRoot: boolean): Raw | undefined {
  if (schema['x-kubernetes-int-or-string'] === true) return {};
  switch (schema.type) {
    case 'array': {
      const items = celView(schema.items, isEmbedded(schema.items));
      return items === undefined ? undefined : { type: 'array', items };
    }
    case 'object': {
      if (isObject(schema.additionalProperties)) {
        const values = celView(schema.additionalProperties, isEmbedded(schema.additionalProperties));
        return values === undefined ? undefined : { type: 'object', additionalProperties: values };
      }
      const own = isObject(schema.properties) ? schema.properties : {};
      const properties: Raw = {};
      for (const [name, sub] of Object.entries(resourceRoot || isEmbedded(schema) ? withTypeAndObjectMeta(own) : own)) {
        const view = celView(sub, isEmbedded(sub));
        if (view !== undefined) properties[name] = view;
      }
      return { type: 'object', properties };
    }
    case 'string':
    case 'boolean':
    case 'number':
    case 'integer': return { type: schema.type };
    default: return undefined;
  }
}

interface Declaring {
  env: Environment;
  next: number;
  /** Follows a built-in type's $refs (a CRD's structural schema has none). */
  resolve: (schema: Raw) => Raw;
  /** A node with no type is dyn (a built-in type's oneOf: Quantity), not hidden as a CRD's. */
  typelessIsDyn: boolean;
  /** The object types declared per resolved node, and the nodes being declared (recursive types are dyn). */
  declared: Map<Raw, string | undefined>;
  declaring: Set<Raw>;
}

/** Declares the schema's type (and the object types within it) on the environment; undefined: not exposed to CEL. */
function declare(ctx: Declaring, node: unknown, resourceRoot: boolean): string | undefined {
  if (!isObject(node)) return undefined;
  const schema = ctx.resolve(node);
  if (schema['x-kubernetes-int-or-string'] === true) return 'dyn';
  const embedded = resourceRoot || isEmbedded(schema) || isEmbedded(node);
  switch (schema.type) {
    case 'array': {
      const items = declare(ctx, schema.items, isEmbedded(schema.items));
      return items === undefined ? undefined : `list<${items}>`;
    }
    case 'object': {
      if (isObject(schema.additionalProperties)) {
        const values = declare(ctx, schema.additionalProperties, isEmbedded(schema.additionalProperties));
        return values === undefined ? undefined : `map<string, ${values}>`;
      }
      if (!embedded && ctx.declared.has(schema)) return ctx.declared.get(schema);
      if (ctx.declaring.has(schema)) return 'dyn';
      ctx.declaring.add(schema);
      const own = isObject(schema.properties) ? schema.properties : {};
      const properties = embedded ? withTypeAndObjectMeta(own) : own;
      const fields: Record<string, string> = {};
      for (const [name, sub] of Object.entries(properties)) {
        const escaped = escapePropertyName(name);
        const type = declare(ctx, sub, isEmbedded(sub));
        if (escaped !== undefined && type !== undefined) fields[escaped] = type;
      }
      ctx.declaring.delete(schema);
      const name = `${objectPrefix}${ctx.next++}`;
      ctx.env.registerType(name, { fields });
      // Objects compare with objects of their own type and with null (cel-go's objects are nullable
      // messages; `!=` comes with each).
      ctx.env.registerOperator(`${name} == ${name}`, () => false);
      comparableWithNull(ctx.env, name);
      if (!embedded) ctx.declared.set(schema, name);
      return name;
    }
    case 'string': return formatType(schema.format);
    case 'boolean': return 'bool';
    case 'number': return 'double';
    case 'integer': return 'int';
    default: return ctx.typelessIsDyn ? 'dyn' : undefined;
  }
}

function declaring(env: Environment, builtIn?: { resolve: (schema: Raw) => Raw }): Declaring {
  return {
    env, next: 0, resolve: builtIn?.resolve ?? ((s) => s), typelessIsDyn: builtIn !== undefined, declared: new Map(), declaring: new Set(),
  };
}

const environments = new WeakMap<Raw, Map<string, Environment>>();

/** An environment where `self` and `oldSelf` have the schema's type (kept per schema node). */
function environmentFor(schema: Raw, resourceRoot: boolean, optionalOldSelf: boolean): Environment {
  const id = `${resourceRoot}/${optionalOldSelf}`;
  let byOptions = environments.get(schema);
  if (byOptions === undefined) environments.set(schema, (byOptions = new Map()));
  let env = byOptions.get(id);
  if (env === undefined) {
    env = typedEnvironment();
    const type = declare(declaring(env), schema, resourceRoot) ?? 'dyn';
    env.registerVariable('self', type);
    env.registerVariable('oldSelf', optionalOldSelf ? `optional<${type}>` : type);
    byOptions.set(id, env);
  }
  return env;
}

const policyEnvironments = new WeakMap<Raw, Environment>();

/**
 * An admission policy's expression checked against the kind it matches, as upstream's
 * policy type checker does for status.typeChecking: `object` and `oldObject` have the
 * kind's type (a built-in type's schema, its $refs followed; recursive and typeless nodes
 * dyn), the other variables are dyn. Undefined: no type error (or none found here; a
 * syntax error is the policy's validation's).
 */
export function policyTypeError(expression: string, kind: { schema: Raw; resolve: (schema: Raw) => Raw }): string | undefined {
  const environment = () => {
    let env = policyEnvironments.get(kind.schema);
    if (env === undefined) {
      env = typedEnvironment();
      // A built-in kind declares all of its metadata (not a custom resource's root).
      const type = declare(declaring(env, { resolve: kind.resolve }), kind.schema, false) ?? 'dyn';
      env.registerVariable('object', type);
      env.registerVariable('oldObject', type);
      for (const name of ['request', 'params', 'namespaceObject', 'variables', 'authorizer']) env.registerVariable(name, 'dyn');
      policyEnvironments.set(kind.schema, env);
    }
    return env;
  };
  return checked(environment, expression).error;
}

export interface TypedCheck {
  /** The expression's type, as cel-go names it (`bool`, `string`, `list(int)`…). */
  type?: string;
  /** cel-go's checker error: `ERROR: <input>:L:C: …`, the line and a caret. */
  error?: string;
}

/**
 * Checks a rule (or a messageExpression) against its node's schema: first the fields it
 * selects (in `has()` too, which cel-js's checker does not look into), then its types. An
 * expression that does not parse has neither a type nor an error here: its syntax error is
 * compile()'s.
 */
export function typeCheckRule(expression: string, schema: Raw, opts: { resourceRoot: boolean; optionalOldSelf: boolean }): TypedCheck {
  const view = celView(schema, opts.resourceRoot) ?? {};
  const variables = { self: 'dyn', oldSelf: opts.optionalOldSelf ? 'optional<dyn>' : 'dyn' };
  const undefinedFields = undefinedFieldErrors(expression, variables, { self: view, oldSelf: view }, (s) => s, { objectIndex: true });
  if (undefinedFields.length > 0) return { error: undefinedFields.join('\n') };
  return checked(() => environmentFor(schema, opts.resourceRoot, opts.optionalOldSelf), expression);
}

/** The expression checked in the environment, its type or error as cel-go's. */
function checked(env: () => Environment, expression: string): TypedCheck {
  // Checked (and errors shown) as compiled: has() of a non-variable rewritten (see rewriteHasOperands).
  const source = rewriteHasOperands(expression);
  let joined;
  try {
    // A conditional of a null and a nullable branch is typed as cel-go's checker types it (see checkJoiningNull).
    joined = checkJoiningNull(env(), source);
  } catch (err) {
    return { error: `ERROR: <input>: ${String((err as Error).message).split('\n')[0]}` };
  }
  const { result, checking, checker } = joined;
  if (result.valid) {
    const mapIndex = mapIndexError(checking, checker, source);
    return mapIndex === undefined ? { type: typeName(String(result.type)) } : { error: mapIndex };
  }
  const error = checkFailure(result.error, checking, checker, source);
  return error === undefined ? {} : { error };
}

