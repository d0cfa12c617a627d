/**
 * The drift gate's pure part: prove each exported tool against the toolkit, with verdicts cached by the
 * content of both schemas, and fold the verdicts into one outcome.
 *
 * @internal
 */
import { JsonSchema, Subschema } from "@toolgate/json-schema"
import type { JsonValue } from "@toolgate/json-schema"

/** Proves `cloud ⊑ local` (`Subschema.check` unless a test counts calls). */
export type Prove = (cloud: JsonSchema.JsonSchema, local: JsonSchema.JsonSchema) => Subschema.Verdict

/** What the gate reads of a toolkit: its tools by name, each with its local JSON Schema. */
export interface Tools {
  readonly tools: ReadonlyMap<string, { readonly name: string; readonly jsonSchema: JsonSchema.JsonSchema }>
}

/** The folded outcome of one gate run. */
export type Outcome =
  | { readonly _tag: "Proven"; readonly tools: ReadonlyArray<string> }
  | {
    readonly _tag: "Drift"
    readonly tool: string
    readonly reasons: ReadonlyArray<Subschema.Reason>
    readonly witness: JsonValue.JsonValue
    readonly drifted: ReadonlyArray<string>
  }
  | { readonly _tag: "Unsupported"; readonly tool: string; readonly construct: string; readonly path: string }

/** The witness of an `unknown-tool` drift: the arguments of the simplest call (no local schema exists to reject them). */
export const unknownToolWitness: JsonValue.JsonValue = Object.freeze({}) as JsonValue.JsonValue

const MAX_DEPTH = 1_000

/**
 * A verdict cache keyed by the canonical text of both schemas (keys sorted, so property order does not
 * matter). The text itself is the key, not a digest of it: equal keys mean equal content, never a collision.
 */
export class ProofCache {
  readonly #verdicts = new Map<string, Subschema.Verdict>()
  readonly #texts = new WeakMap<object, string | null>()
  constructor(readonly limit: number, readonly prove: Prove) {}

  /** The verdict for a pair: cached by content, else proved on the upgraded cloud schema and cached. */
  verdict(cloud: JsonSchema.JsonSchema, local: JsonSchema.JsonSchema): Subschema.Verdict {
    const ck = this.#text(cloud), lk = this.#text(local)
    const key = ck === undefined || lk === undefined ? undefined : `${ck.length}:${ck}${lk}`
    const known = key === undefined ? undefined : this.#verdicts.get(key)
    if (known !== undefined) return known
    const verdict = this.prove(JsonSchema.upgrade(cloud).schema, local)
    if (key !== undefined) {
      if (this.#verdicts.size >= this.limit) this.#verdicts.delete(this.#verdicts.keys().next().value!)
      this.#verdicts.set(key, verdict)
    }
    return verdict
  }

  /** The canonical text of a schema, remembered per object (the same profile object costs one walk). */
  #text(schema: JsonSchema.JsonSchema): string | undefined {
    if (typeof schema !== "object" || schema === null) return JSON.stringify(schema)
    const known = this.#texts.get(schema)
    if (known !== undefined) return known ?? undefined
    const text = canonical(schema, 0)
    this.#texts.set(schema, text ?? null)
    return text
  }
}

/** JSON text with object keys sorted; `undefined` for non-JSON content or nesting past `MAX_DEPTH`. */
const canonical = (u: unknown, depth: number): string | undefined => {
  if (u === null || typeof u === "boolean" || typeof u === "string") return JSON.stringify(u)
  if (typeof u === "number") return Number.isFinite(u) ? JSON.stringify(u) : undefined
  if (typeof u !== "object" || depth > MAX_DEPTH) return undefined
  const parts: Array<string> = []
  if (Array.isArray(u)) {
    for (const item of u as ReadonlyArray<unknown>) {
      const t = canonical(item, depth + 1)
      if (t === undefined) return undefined
      parts.push(t)
    }
    return `[${parts.join(",")}]`
  }
  const proto = Object.getPrototypeOf(u)
  if (proto !== Object.prototype && proto !== null) return undefined
  for (const key of Object.keys(u).sort()) {
    const d = Object.getOwnPropertyDescriptor(u, key)
    if (d === undefined || !("value" in d)) return undefined
    const t = canonical(d.value, depth + 1)
    if (t === undefined) return undefined
    parts.push(`${JSON.stringify(key)}:${t}`)
  }
  return `{${parts.join(",")}}`
}

/**
 * Proves every exported tool, in the relay's order. Any drift (an unknown tool included) wins over an
 * unsupported construct: a proven drift is certain, and the error lists every drifted tool.
 */
export const gate = (
  exported: ReadonlyMap<string, JsonSchema.JsonSchema>,
  toolkit: Tools,
  proofs: ProofCache
): Outcome => {
  const proven: Array<string> = []
  const drifted: Array<string> = []
  let drift: Extract<Outcome, { _tag: "Drift" }> | undefined
  let unsupported: Extract<Outcome, { _tag: "Unsupported" }> | undefined
  for (const [name, cloud] of exported) {
    const tool = toolkit.tools.get(name)
    const verdict: Subschema.Verdict = tool === undefined ? unknownTool(name) : proofs.verdict(cloud, tool.jsonSchema)
    switch (verdict._tag) {
      case "Subtype":
        proven.push(name)
        break
      case "Drift":
        drifted.push(name)
        drift ??= { _tag: "Drift", tool: name, reasons: verdict.reasons, witness: verdict.witness, drifted }
        break
      case "Unsupported":
        unsupported ??= { _tag: "Unsupported", tool: name, construct: verdict.construct, path: verdict.path }
    }
  }
  return drift ?? unsupported ?? { _tag: "Proven", tools: proven }
}

/** The drift verdict for a tool the relay exports and the toolkit cannot execute. */
const unknownTool = (name: string): Subschema.Verdict => ({
  _tag: "Drift",
  reasons: [{
    cloudPath: "",
    localPath: "",
    message: `unknown-tool: the relay exports \`${name}\`, which this toolkit cannot execute`
  }],
  witness: unknownToolWitness
})
