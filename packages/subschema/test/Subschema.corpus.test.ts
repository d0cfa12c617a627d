/**
 * Every tool in corpus/tools.jsonl (after `JsonSchema.upgrade`): the schema against itself, a
 * narrowed copy against it, and widened copies against it (one required property made optional, a type
 * widened with null, an enum value added, an extra property under a closed object). Tallies are pinned, with
 * the reasons for `Unsupported`, and every `Drift` witness is re-checked with the real validators.
 */
import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as JsonSchema from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import * as Subschema from "../src/Subschema.js"
import * as Validator from "@toolgate/json-schema/Validator"
import { corpus } from "@toolgate/test-support/corpus"

type Obj = Record<string, JsonValue>

const clone = <A>(x: A): A => JSON.parse(JSON.stringify(x))

const props = (s: Obj): Obj => (typeof s["properties"] === "object" && s["properties"] !== null && !Array.isArray(s["properties"]) ? s["properties"] as Obj : {})

const firstProp = (s: Obj, pred: (p: Obj) => boolean): string | undefined =>
  Object.keys(props(s)).find((k) => {
    const p = props(s)[k]
    return typeof p === "object" && p !== null && !Array.isArray(p) && pred(p as Obj)
  })

/** The narrowed copy: everything required, closed, a string bounded, a number bounded below. */
const narrowed = (local: Obj): Obj => {
  const n = clone(local)
  n["required"] = [...new Set([...(Array.isArray(n["required"]) ? n["required"] as Array<string> : []), ...Object.keys(props(n))])]
  n["additionalProperties"] = false
  const s = firstProp(n, (p) => p["type"] === "string" && p["maxLength"] === undefined)
  if (s !== undefined) (props(n)[s] as Obj)["maxLength"] = 1000
  const m = firstProp(n, (p) => (p["type"] === "integer" || p["type"] === "number") && p["minimum"] === undefined && p["exclusiveMinimum"] === undefined)
  if (m !== undefined) (props(n)[m] as Obj)["minimum"] = 0
  return n
}

/** The widened copies, each with its kind. */
const widened = (local: Obj): Array<readonly [string, Obj, Obj]> => {
  const out: Array<readonly [string, Obj, Obj]> = []
  const req = local["required"]
  if (Array.isArray(req) && req.length > 0) {
    const w = clone(local)
    w["required"] = req.slice(1)
    out.push(["required made optional", w, local])
  }
  const t = firstProp(local, (p) => typeof p["type"] === "string" && p["type"] !== "null" && p["enum"] === undefined && p["const"] === undefined)
  if (t !== undefined) {
    const w = clone(local)
    const p = props(w)[t] as Obj
    p["type"] = [p["type"]!, "null"]
    out.push(["type widened", w, local])
  }
  const e = firstProp(local, (p) => Array.isArray(p["enum"]) && p["enum"].length > 0)
  if (e !== undefined) {
    const w = clone(local)
    const p = props(w)[e] as Obj
    p["enum"] = [...(p["enum"] as Array<JsonValue>), "__toolgate_extra__"]
    if (typeof p["type"] === "string" && p["type"] !== "string") delete p["type"]
    out.push(["enum value added", w, local])
  }
  const closed = clone(local)
  closed["additionalProperties"] = false
  const w = clone(closed)
  w["properties"] = { ...props(w), toolgate_extra: { type: "string" } }
  out.push(["extra property under a closed object", w, closed])
  return out
}

const check = (cloud: Obj, local: Obj): Subschema.Verdict => {
  const v = Subschema.check(cloud, local)
  if (v._tag === "Drift") {
    const c = Either.getOrThrow(Validator.compile(cloud)), l = Either.getOrThrow(Validator.compile(local))
    assert.isTrue(c.isValid(v.witness) && !l.isValid(v.witness), JSON.stringify({ cloud, local, v }))
  }
  return v
}

describe("Subschema over the tool corpus", () => {
  it("self, narrowed and widened copies of every tool schema", { timeout: 900_000 }, async () => {
    const lines = fs.readFileSync(path.join(corpus, "tools.jsonl"), "utf8").split("\n").filter((l) => l.length > 0)
    const tally: Record<string, Record<string, number>> = {}
    const unsupported: Record<string, number> = {}
    const wrong: Array<string> = []
    const count = (kind: string, v: Subschema.Verdict, want: "Subtype" | "Drift") => {
      const k = (tally[kind] ??= {})
      k[v._tag] = (k[v._tag] ?? 0) + 1
      if (v._tag === "Unsupported") {
        const why = `${kind}: ${v.construct.replace(/`[^`]*`/g, "`…`").replace(/"[^"]*"/g, "\"…\"").slice(0, 70)}`
        unsupported[why] = (unsupported[why] ?? 0) + 1
      } else if (v._tag !== want) wrong.push(`${kind}: ${v._tag}`)
    }
    for (const [i, line] of lines.entries()) {
      // a minute of proofs in one synchronous stretch starves the worker's messages to vitest on a loaded
      // machine ("Timeout calling onTaskUpdate"): let the event loop run every 50 tools
      if (i % 50 === 0) await new Promise((resolve) => setImmediate(resolve))
      const local = JsonSchema.upgrade((JSON.parse(line) as { parameters: unknown }).parameters).schema
      count("self", check(clone(local) as Obj, local as Obj), "Subtype")
      if (typeof local !== "object" || local["type"] !== "object") continue
      count("narrowed", check(narrowed(local as Obj), local as Obj), "Subtype")
      for (const [kind, cloud, l] of widened(local as Obj)) count(kind, check(cloud, l), "Drift")
    }
    console.log("corpus tallies", tally, "Unsupported reasons", unsupported)
    assert.deepStrictEqual(wrong, [])
    assert.deepStrictEqual(tally, {
      self: { Subtype: 8031 },
      // Notion's API-post-page and projects_write (overlapping oneOf branches) prove by equality modulo
      // annotations; push_flex_message and broadcast_flex_message (79 $refs, a recursive anyOf of flex
      // components) decide within the default budget: each pair of subschemas is proven once per check
      narrowed: { Subtype: 8031 },
      "required made optional": { Drift: 6769, Unsupported: 3 },
      "type widened": { Drift: 6962, Unsupported: 3 },
      "enum value added": { Drift: 1478 },
      "extra property under a closed object": { Drift: 8028, Unsupported: 3 }
    })
    // every "no verified witness" here is a tool whose object cannot be satisfied (a required property typed
    // `array` or `integer` with a string `enum`): the cloud is empty, so neither a proof nor a witness exists
    assert.deepStrictEqual(unsupported, {
      "required made optional: no verified witness for: `…` is required locally but optional in the c": 3,
      "type widened: no verified witness for: the cloud schema allows a null here; the loca": 3,
      "extra property under a closed object: no verified witness for: `…` is allowed by the cloud schema but the lo": 3
    })
  })
})
