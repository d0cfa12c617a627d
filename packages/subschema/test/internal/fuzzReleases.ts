/**
 * A second source of prover pairs: a real tool schema against its next (or previous) release, made the
 * ways APIs change between versions: a field made required or optional, an enum narrowed or widened, a
 * type widened or narrowed, a bound moved, a field added or removed, an object closed or opened, and
 * descriptions reworded. One to three changes per release, at any object of the schema.
 */
import type { JsonSchema } from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import type { Rng } from "@toolgate/test-support/fuzzGenerate"
import { objects } from "@toolgate/test-support/fuzzGenerate"

type Obj = Record<string, JsonValue>

const copy = <A>(x: A): A => JSON.parse(JSON.stringify(x)) as A

const isObj = (v: JsonValue | undefined): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)

const bounds = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems"] as const

/** The kinds of change, each applied to node `n` (false when it does not apply there). */
const changes: ReadonlyArray<readonly [string, (r: Rng, n: Obj) => boolean]> = [
  ["field made required", (r, n) => {
    const names = isObj(n["properties"]) ? Object.keys(n["properties"]) : []
    const req = Array.isArray(n["required"]) ? n["required"] : []
    const open = names.filter((k) => !req.includes(k))
    if (open.length === 0) return false
    n["required"] = [...req, r.pick(open)]
    return true
  }],
  ["field made optional", (r, n) => {
    const req = Array.isArray(n["required"]) ? n["required"] : []
    if (req.length === 0) return false
    const k = r.pick(req)
    n["required"] = req.filter((x) => x !== k)
    return true
  }],
  ["enum narrowed", (r, n) => {
    const e = n["enum"]
    if (!Array.isArray(e) || e.length < 2) return false
    n["enum"] = e.filter((_, i) => i !== r.int(e.length))
    return true
  }],
  ["enum widened", (_r, n) => {
    const e = n["enum"]
    if (!Array.isArray(e) || e.length === 0) return false
    n["enum"] = [...e, typeof e[0] === "number" ? (e[0] as number) + 1000 : `${String(e[0])}_v2`]
    return true
  }],
  ["type widened", (_r, n) => {
    const t = n["type"]
    if (t === "integer") n["type"] = "number"
    else if (typeof t === "string" && t !== "null") n["type"] = [t, "null"]
    else return false
    return true
  }],
  ["type narrowed", (_r, n) => {
    if (n["type"] === "number") n["type"] = "integer"
    else if (Array.isArray(n["type"]) && n["type"].length > 1) n["type"] = n["type"].slice(0, 1)
    else return false
    return true
  }],
  ["bound moved", (r, n) => {
    const present = bounds.filter((k) => typeof n[k] === "number")
    if (present.length > 0) {
      const k = r.pick(present)
      n[k] = Math.max(0, (n[k] as number) + r.pick([-1, 1, 10]))
      return true
    }
    if (n["type"] === "string") n[r.pick(["minLength", "maxLength"])] = r.pick([1, 64])
    else if (n["type"] === "integer" || n["type"] === "number") n[r.pick(["minimum", "maximum"])] = r.pick([0, 100])
    else if (n["type"] === "array") n[r.pick(["minItems", "maxItems"])] = r.pick([1, 10])
    else return false
    return true
  }],
  ["field added", (r, n) => {
    if (!isObj(n["properties"])) return false
    n["properties"] = { ...n["properties"], [`added_${r.int(100)}`]: r.pick([{ type: "string" }, { type: "integer" }, { type: "boolean" }]) }
    return true
  }],
  ["field removed", (r, n) => {
    if (!isObj(n["properties"]) || Object.keys(n["properties"]).length === 0) return false
    const k = r.pick(Object.keys(n["properties"]))
    const { [k]: _, ...rest } = n["properties"]
    n["properties"] = rest
    if (Array.isArray(n["required"])) n["required"] = n["required"].filter((x) => x !== k)
    return true
  }],
  ["object closed or opened", (_r, n) => {
    if (n["type"] !== "object" && !isObj(n["properties"])) return false
    if (n["additionalProperties"] === false) delete n["additionalProperties"]
    else n["additionalProperties"] = false
    return true
  }],
  ["description reworded", (r, n) => {
    n["description"] = `${typeof n["description"] === "string" ? n["description"] : ""} (v${r.int(10)})`
    return true
  }]
]

/** The kinds of change a release may make. */
export const kinds: ReadonlyArray<string> = changes.map(([k]) => k)

/** The next release of a tool schema: one to three changes at random objects; the kinds made, in order. */
export const release = (r: Rng, tool: JsonSchema): { readonly schema: JsonSchema; readonly made: ReadonlyArray<string> } => {
  const out = copy(tool)
  const made: Array<string> = []
  const nodes = objects(out as JsonValue)
  const want = 1 + r.int(3)
  for (let tries = 0; made.length < want && tries < 24 && nodes.length > 0; tries++) {
    const [kind, change] = r.pick(changes)
    if (change(r, r.pick(nodes))) made.push(kind)
  }
  return { schema: out, made }
}

/** A pair from two releases of one real tool, either way round (an API's old and new version). */
export const releasePair = (r: Rng, tools: ReadonlyArray<JsonSchema>): readonly [JsonSchema, JsonSchema] => {
  const tool = r.pick(tools)
  const next = release(r, tool).schema
  return r.chance(0.5) ? [tool, next] : [next, tool]
}
