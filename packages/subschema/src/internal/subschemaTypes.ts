/**
 * JSON types as the prover splits them: `number` is `integer` ∪ `fraction`, so `integer` where local
 * says `number` is narrowing and a fraction is a value the local `integer` rejects.
 *
 * @internal
 */
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import { typeOf } from "@toolgate/json-schema/JsonValue"
import type { Node } from "./subschemaModel.js"
import { emptyTypes } from "./subschemaEmpty.js"
import { kw } from "./subschemaModel.js"

/** A base type: JSON's types with numbers split into whole and fractional ones. */
export type Base = "null" | "boolean" | "integer" | "fraction" | "string" | "array" | "object"

/** Every base type, in the order witnesses prefer them. */
export const allBases: ReadonlyArray<Base> = ["object", "string", "integer", "fraction", "boolean", "null", "array"]

const byName: Readonly<Record<string, ReadonlyArray<Base>>> = {
  null: ["null"],
  boolean: ["boolean"],
  integer: ["integer"],
  number: ["integer", "fraction"],
  string: ["string"],
  array: ["array"],
  object: ["object"]
}

/** The base types a `type` keyword value allows; `undefined` when absent; `"invalid"` when malformed. */
export const typesOf = (v: JsonValue | undefined): ReadonlySet<Base> | undefined | "invalid" => {
  if (v === undefined) return undefined
  const names = typeof v === "string" ? [v] : Array.isArray(v) ? v : undefined
  if (names === undefined) return "invalid"
  const out = new Set<Base>()
  for (const n of names) {
    const bases = typeof n === "string" && Object.prototype.hasOwnProperty.call(byName, n) ? byName[n] : undefined
    if (bases === undefined) return "invalid"
    for (const b of bases) out.add(b)
  }
  return out
}

/** The base type of a value. */
export const baseOf = (v: JsonValue): Base => {
  const t = typeOf(v)
  return t === "number" ? "fraction" : t
}

/**
 * The base types a node's own `type` allows as the validator reads it: Ajv's `nullable: true` adds `null`
 * (with `type` only: without one the schema does not compile). Undefined for any type, `"invalid"` when malformed.
 */
export const declaredTypes = (n: Node): ReadonlySet<Base> | undefined | "invalid" => {
  const t = typesOf(kw(n, "type"))
  return t !== undefined && t !== "invalid" && kw(n, "nullable") === true && !t.has("null") ? new Set([...t, "null" as const]) : t
}

/**
 * The base types a conjunction of cloud nodes allows (malformed `type` keywords are dropped:
 * over-approximation), less those its own bounds leave empty (`minLength` above `maxLength`, …).
 */
export const cloudTypes = (nodes: ReadonlyArray<Node>): ReadonlySet<Base> => {
  // an expansion's nodes (kept for the check, see `expand`) are read again and again, never changed
  let types = typesOfView.get(nodes)
  if (types === undefined) typesOfView.set(nodes, types = typesNow(nodes))
  return types
}

const typesOfView = new WeakMap<ReadonlyArray<Node>, ReadonlySet<Base>>()

const typesNow = (nodes: ReadonlyArray<Node>): ReadonlySet<Base> => {
  const out = new Set<Base>(allBases)
  for (const n of nodes) {
    const t = declaredTypes(n)
    if (t !== undefined && t !== "invalid") for (const b of [...out]) if (!t.has(b)) out.delete(b)
    // ajv-formats' int32/int64 reject every non-integer number (other types pass a numeric format)
    const f = kw(n, "format")
    if (f === "int32" || f === "int64") out.delete("fraction")
    const not = kw(n, "not")
    if (typeof not === "object" && not !== null && !Array.isArray(not) && Object.keys(not).length === 1) {
      const nt = typesOf((not as { readonly [k: string]: JsonValue })["type"])
      if (nt !== undefined && nt !== "invalid") for (const b of nt) out.delete(b)
    }
  }
  for (const b of emptyTypes(nodes, out)) out.delete(b)
  return out
}

/** A type name for messages. */
export const typeName = (b: Base): string => (b === "fraction" ? "non-integer number" : b)

/** Whether a base type is numeric. */
export const isNumeric = (b: Base): boolean => b === "integer" || b === "fraction"
