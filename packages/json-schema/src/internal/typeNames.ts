/**
 * Type names as tools publish them (BFCL's `dict`/`float`/`tuple`/`any`, Python's `str`/`list(str)`, Java's
 * `String`/`HashMap`/`ArrayList`, JavaScript's `Array`) mapped to JSON Schema types.
 *
 * @internal
 */

/** A JSON Schema type name. */
export type JsonType = "null" | "boolean" | "integer" | "number" | "string" | "array" | "object"

/** What a published type name means: a JSON type (with an item type for `list(str)`), no constraint, or unknown. */
export type Meaning =
  | { readonly _tag: "Type"; readonly type: JsonType; readonly items?: JsonType }
  | { readonly _tag: "Any" }
  | { readonly _tag: "Unknown" }

const table: Readonly<Record<string, JsonType | "any">> = {
  null: "null", none: "null", nil: "null", nonetype: "null",
  boolean: "boolean", bool: "boolean",
  integer: "integer", int: "integer", long: "integer", short: "integer", byte: "integer", bigint: "integer",
  int8: "integer", int16: "integer", int32: "integer", int64: "integer", uint: "integer", uint32: "integer",
  uint64: "integer", biginteger: "integer",
  number: "number", float: "number", double: "number", decimal: "number", bigdecimal: "number", real: "number",
  float32: "number", float64: "number", numeric: "number",
  string: "string", str: "string", char: "string", character: "string", text: "string", charsequence: "string",
  object: "object", dict: "object", dictionary: "object", map: "object", hashmap: "object", treemap: "object",
  linkedhashmap: "object", hash: "object", record: "object", struct: "object",
  array: "array", list: "array", tuple: "array", arraylist: "array", linkedlist: "array", vector: "array",
  set: "array", hashset: "array", sequence: "array", collection: "array", iterable: "array",
  any: "any", "": "any", "*": "any", mixed: "any", unknown: "any", object_any: "any"
}

const generic = /^([A-Za-z_][A-Za-z0-9_]*)\s*[([<]\s*([A-Za-z_][A-Za-z0-9_]*)\s*[)\]>]$/

/** The meaning of one published type name (case and surrounding space ignored). */
export const meaning = (name: string): Meaning => {
  const plain = table[name.trim().toLowerCase()]
  if (plain === "any") return { _tag: "Any" }
  if (plain !== undefined) return { _tag: "Type", type: plain }
  const m = generic.exec(name.trim())
  if (m !== null) {
    const outer = table[m[1]!.toLowerCase()]
    const inner = table[m[2]!.toLowerCase()]
    if (outer === "array") return inner === undefined || inner === "any" ? { _tag: "Type", type: "array" } : { _tag: "Type", type: "array", items: inner }
    if (outer === "object") return { _tag: "Type", type: "object" }
  }
  return { _tag: "Unknown" }
}

/** Whether a string is already a JSON Schema type name. */
export const isJsonType = (name: unknown): name is JsonType =>
  name === "null" || name === "boolean" || name === "integer" || name === "number" || name === "string" ||
  name === "array" || name === "object"
