/**
 * The enforce pass of OpenAI strict mode (contract section 1.3 and 1.4), run on a sanitized copy: every
 * object closed with every key required, optional properties made nullable, nested pure unions spliced
 * flat, tuples and `$defs` strictified. A node strict mode cannot describe throws `NotStrict`.
 *
 * @internal
 */
import type { JsonSchema } from "../JsonSchema.js"
import { type JsonObject, type JsonValue, typeOf } from "../JsonValue.js"
import { append } from "./pointer.js"
import {
  acceptsNull, type Changes, type Draft, draft, hasType, isObject, isPureUnion, maxDepth, NotStrict, nullSchema, own,
  set, show, typesOf
} from "./normalizeOpenAiNode.js"
import { relink } from "./normalizeOpenAiRefs.js"

/** Strictifies a sanitized schema; its root must be a plain object schema, as a tool's parameters are. */
export const enforce = (schema: JsonSchema, changes: Changes): JsonObject => {
  if (!isObject(schema) || typesOf(schema)?.length !== 1 || !hasType(schema, "object")) {
    throw new NotStrict("", "is not `type: \"object\"`, and strict mode takes only an object for a tool's parameters")
  }
  if (own(schema, "anyOf") !== undefined || own(schema, "oneOf") !== undefined) {
    throw new NotStrict("", "is a union, and strict mode takes only a plain object for a tool's parameters")
  }
  const ctx: Ctx = { changes, nodes: new Map() }
  const out = node(schema, "", 0, ctx)
  relink(out, ctx.nodes, changes)
  return out
}

/** One run: its changes, and the output node built for each input pointer (so `$ref`s can follow). */
interface Ctx {
  readonly changes: Changes
  readonly nodes: Map<string, Draft>
}

/** Keywords rebuilt by the object rules rather than copied. */
const objectKeys: ReadonlySet<string> = new Set(["properties", "required", "additionalProperties"])

const node = (schema: JsonSchema | JsonValue, path: string, depth: number, ctx: Ctx): Draft => {
  const checked = representable(schema, path, depth)
  const out = draft()
  if (typesOf(checked) === undefined && own(checked, "anyOf") === undefined && own(checked, "oneOf") === undefined &&
    own(checked, "$ref") === undefined) {
    const inferred = inferType(checked)
    if (inferred === undefined) {
      throw new NotStrict(path, "has no `type`, `anyOf` or `$ref` once unsupported keywords are removed, so strict mode cannot describe it")
    }
    set(out, "type", inferred)
    ctx.changes.push({ path, change: `\`type: ${show(inferred)}\` inferred from the \`enum\` values` })
  }
  const isObjectNode = hasType(checked, "object")
  for (const key of Object.keys(checked)) {
    if (!objectKeys.has(key)) keyword(checked, key, out, path, depth, ctx)
    else if (!isObjectNode) ctx.changes.push({ path: append(path, key), change: `removed \`${key}\`: the node is not an object` })
  }
  if (isObjectNode) close(checked, out, path, depth, ctx)
  if (hasType(checked, "array") && own(checked, "items") === undefined && own(checked, "prefixItems") === undefined) {
    throw new NotStrict(path, "is an array without `items`: strict mode needs the item type")
  }
  ctx.nodes.set(path, out)
  return out
}

/** The node as a schema object strict mode can take at all (no boolean, no `allOf`, not too deep). */
const representable = (schema: JsonSchema | JsonValue, path: string, depth: number): JsonObject => {
  if (typeof schema === "boolean") {
    throw new NotStrict(path, `is the boolean schema \`${schema}\` (${schema ? "any value" : "no value"}), which strict mode cannot type`)
  }
  if (!isObject(schema)) throw new NotStrict(path, "is not a schema (neither an object nor a boolean)")
  if (depth > maxDepth) throw new NotStrict(path, `nests deeper than ${maxDepth} schema levels`)
  if (own(schema, "allOf") !== undefined) {
    throw new NotStrict(path, "uses `allOf`, which strict mode does not support (only `anyOf`)")
  }
  if (own(schema, "anyOf") !== undefined && own(schema, "oneOf") !== undefined) {
    throw new NotStrict(path, "has both `anyOf` and `oneOf`, which strict mode cannot combine")
  }
  return schema
}

const keyword = (schema: JsonObject, key: string, out: Draft, path: string, depth: number, ctx: Ctx): void => {
  const value = schema[key]!
  const at = append(path, key)
  if (key === "anyOf" || key === "oneOf") return splice(value, key, schema, out, path, depth, ctx)
  if (key === "prefixItems" || (key === "items" && Array.isArray(value))) {
    if (!Array.isArray(value)) throw new NotStrict(path, `has a \`${key}\` that is not a list of schemas`)
    return set(out, key, value.map((v, i) => node(v, append(at, i), depth + 1, ctx)))
  }
  if (key === "items" || key === "additionalItems") {
    // `false` closes a tuple (no further items): it is a rule, not a node to type
    return set(out, key, value === false ? false : node(value, at, depth + 1, ctx))
  }
  if ((key === "$defs" || key === "definitions") && isObject(value)) {
    const defs = draft()
    for (const name of Object.keys(value)) set(defs, name, node(value[name]!, append(at, name), depth + 1, ctx))
    return set(out, key, defs)
  }
  set(out, key, value)
}

/** `anyOf` (or `oneOf`, read as `anyOf`) with its branches strictified and nested pure unions spliced flat. */
const splice = (
  list: JsonValue, key: string, schema: JsonObject, out: Draft, path: string, depth: number, ctx: Ctx
): void => {
  const at = append(path, key)
  if (!Array.isArray(list) || list.length === 0) throw new NotStrict(path, `has an \`${key}\` that is not a non-empty list of schemas`)
  if (key === "oneOf") {
    ctx.changes.push({ path: at, change: "`oneOf` became `anyOf` (strict mode has no `oneOf`; validation against the original still rejects a value matching two branches)" })
  }
  const branches: Array<JsonValue> = []
  for (let i = 0; i < list.length; i++) {
    const strict = node(list[i]!, append(at, i), depth + 1, ctx)
    if (!isPureUnion(strict)) {
      branches.push(strict)
      continue
    }
    for (const b of own(strict, "anyOf") as ReadonlyArray<JsonValue>) branches.push(b)
    const inner = own(strict, "description")
    const hoist = inner !== undefined && own(schema, "description") === undefined && own(out, "description") === undefined
    if (hoist) set(out, "description", inner)
    ctx.changes.push({
      path: append(at, i),
      change: `a nested \`anyOf\` was spliced into its parent${
        inner === undefined ? "" : hoist ? "; its description moved up to the parent" : "; its description was dropped (the parent has one)"
      }`
    })
  }
  set(out, "anyOf", branches)
}

/** The object rules: closed, every declared key required, the optional ones made nullable. */
const close = (schema: JsonObject, out: Draft, path: string, depth: number, ctx: Ctx): void => {
  const extra = own(schema, "additionalProperties")
  if (extra !== undefined && extra !== false) {
    throw new NotStrict(path, `accepts undeclared keys (\`additionalProperties: ${show(extra)}\`); strict mode would close the object and the model could no longer send them`)
  }
  const props = own(schema, "properties")
  if (props !== undefined && !isObject(props)) throw new NotStrict(path, "has `properties` that is not an object")
  if (props === undefined && extra === undefined && path !== "") {
    throw new NotStrict(path, "is a free-form object (no `properties`); strict mode would close it to `{}` and the model could send nothing in it")
  }
  const names = props === undefined ? [] : Object.keys(props)
  const required = requiredOf(schema, path, new Set(names))
  const map = draft()
  for (const name of names) {
    const at = append(append(path, "properties"), name)
    const strict = node(props![name]!, at, depth + 1, ctx)
    set(map, name, required.has(name) ? strict : nullable(strict, at, name, ctx))
  }
  set(out, "properties", map)
  set(out, "required", names)
  set(out, "additionalProperties", false)
  if (extra === undefined) ctx.changes.push({ path, change: "closed with `additionalProperties: false`" })
}

const requiredOf = (schema: JsonObject, path: string, declared: ReadonlySet<string>): ReadonlySet<string> => {
  const required = own(schema, "required")
  if (required === undefined) return new Set()
  if (!Array.isArray(required) || !required.every((r) => typeof r === "string")) {
    throw new NotStrict(path, "has a `required` that is not a list of property names")
  }
  for (const name of required as ReadonlyArray<string>) {
    if (!declared.has(name)) {
      throw new NotStrict(path, `requires \`${name}\`, which \`properties\` does not declare; a closed object could never hold it`)
    }
  }
  return new Set(required as ReadonlyArray<string>)
}

/** An optional property made nullable: `null` is what a strict model sends for "absent". */
const nullable = (strict: Draft, at: string, name: string, ctx: Ctx): Draft => {
  const lead = `\`${name}\` was optional: now required`
  if (acceptsNull(strict)) {
    ctx.changes.push({ path: at, change: `${lead}; it already accepts \`null\`, which stands for absent` })
    return strict
  }
  if (isPureUnion(strict)) {
    const out = draft()
    for (const k of Object.keys(strict)) set(out, k, strict[k]!)
    set(out, "anyOf", [...(own(strict, "anyOf") as ReadonlyArray<JsonValue>), nullSchema()])
    ctx.nodes.set(at, out)
    ctx.changes.push({ path: at, change: `${lead}, with a \`{"type":"null"}\` branch appended to its \`anyOf\`` })
    return out
  }
  ctx.changes.push({ path: at, change: `${lead} and nullable, as \`anyOf: [<schema>, {"type":"null"}]\`` })
  return { anyOf: [strict, nullSchema()] }
}

/** The type of an untyped `enum` of scalars: one name when homogeneous, a list otherwise; else `undefined`. */
const inferType = (schema: JsonObject): JsonValue | undefined => {
  const values = own(schema, "enum")
  if (!Array.isArray(values) || values.length === 0) return undefined
  const seen = new Set<string>()
  for (const v of values) {
    const t = typeOf(v)
    if (t === "object" || t === "array") return undefined
    seen.add(t)
  }
  if (seen.has("number")) seen.delete("integer")
  const types = [...seen]
  return types.length === 1 ? types[0]! : types
}
