/**
 * The prover's data model: schema nodes (a schema plus where it sits in its root), the outcome of one
 * obligation, and the context (roots, dialects, work budget, co-inductive assumptions).
 *
 * @internal
 */
import type { Dialect, JsonSchema } from "@toolgate/json-schema/JsonSchema"
import { Pointer as P } from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import { equals } from "@toolgate/json-schema/JsonValue"
import type { Expansions } from "./subschemaCloud.js"
import { foreign } from "./subschemaKeywords.js"
import type { Known } from "./subschemaSame.js"

/** A schema inside one side's root: `ptr` is its JSON pointer (undefined for a synthetic node); `skip` lists keywords already handled. */
export interface Node {
  readonly schema: JsonSchema
  readonly ptr: string | undefined
  readonly skip?: ReadonlySet<string>
  /** An empty schema standing where a cloud part would be, only so messages can point there. */
  readonly standIn?: boolean
  /** The dialect of the root the node stands in: its validator ignores the other dialect's keywords (none for a synthetic node). */
  readonly dialect?: Dialect
}

/** One reason for drift: pointers into each schema and a sentence a person can act on. */
export interface Reason {
  readonly cloudPath: string
  readonly localPath: string
  readonly message: string
}

/** The result of one obligation `cloud ⊑ local`. */
export type Outcome =
  | { readonly _tag: "Proven" }
  | Counter
  | { readonly _tag: "Unknown"; readonly construct: string; readonly path: string }

/** A counterexample: its reasons and candidate witnesses, and the later obligations' counterexamples (`more`). */
export interface Counter {
  readonly _tag: "Counter"
  readonly reasons: ReadonlyArray<Reason>
  readonly witnesses: ReadonlyArray<JsonValue>
  readonly more?: ReadonlyArray<Counter>
}

/** The proven outcome (shared). */
export const proven: Outcome = { _tag: "Proven" }

/** A counterexample candidate (verified later against the real validators). */
export const counter = (reason: Reason, witnesses: ReadonlyArray<JsonValue | undefined>): Outcome => ({
  _tag: "Counter",
  reasons: [reason],
  witnesses: witnesses.filter((w): w is JsonValue => w !== undefined)
})

/** An outcome that cannot be decided. */
export const unknown = (construct: string, path: string): Outcome => ({ _tag: "Unknown", construct, path })

/** Maps the witnesses of a counterexample (to put a nested witness into its parent value). */
export const mapWitnesses = (o: Outcome, f: (w: JsonValue) => JsonValue | undefined): Outcome => o._tag !== "Counter" ? o : mapCounter(o, f)

const mapCounter = (o: Counter, f: (w: JsonValue) => JsonValue | undefined): Counter => ({
  ...o,
  witnesses: o.witnesses.map(f).filter((w): w is JsonValue => w !== undefined),
  ...(o.more === undefined ? {} : { more: o.more.map((m) => mapCounter(m, f)) })
})

const MAX_MORE = 8

/**
 * Runs obligations in order: the first counterexample leads, and the later obligations still run so their
 * counterexamples ride along (`more`: a candidate of the first may fail verification where a later one
 * holds); otherwise the first unknown; otherwise proven.
 */
export const all = (steps: ReadonlyArray<() => Outcome>): Outcome => {
  let first: Outcome | undefined
  let lead: Counter | undefined
  for (const step of steps) {
    const o = step()
    if (o._tag === "Counter") {
      const next: Counter = lead === undefined ? o : { ...lead, more: [...(lead.more ?? []), { _tag: "Counter" as const, reasons: o.reasons, witnesses: o.witnesses }, ...(o.more ?? [])].slice(0, MAX_MORE) }
      if ((next.more?.length ?? 0) >= MAX_MORE) return next
      lead = next
    }
    if (o._tag === "Unknown" && first === undefined) first = o
  }
  return lead ?? first ?? proven
}

/** The prover's context: both roots, their dialects, the remaining budget and the co-inductive assumptions. */
export interface Ctx {
  readonly cloudRoot: JsonSchema
  readonly localRoot: JsonSchema
  readonly cloudDialect: Dialect
  readonly localDialect: Dialect
  budget: number
  /** Whether either root uses `$ref` at all (only then are assumptions kept). */
  readonly refs: boolean
  /** Descents into properties/items so far on the current path; an assumption only holds behind one. */
  guard: number
  /** The pairs on the current path: the guard when each was entered, and its depth on the path. */
  readonly assumptions: Map<string, { readonly guard: number; readonly depth: number }>
  /** Outcomes of pairs already decided in this check that relied on no assumption above them. */
  memo?: Map<string, Outcome>
  /** The shallowest assumption an obligation relied on so far (Infinity: none). */
  used?: number
  /** Failed obligations asked so far whether their cloud side is empty by a `not` (a few per check). */
  refutations?: number
  /** Whether this is a proof with the roles swapped (a local subschema inside a cloud one, for `not`); never nested. */
  readonly swapped?: boolean
  /** The local schema's first construct whose validator semantics are not trusted (`null`: none), once computed. */
  untrusted?: { readonly construct: string; readonly path: string } | null
  /** The roots as given, where the prover reads rewritten ones (embedded resources folded): what the validators compile. */
  readonly given?: { readonly cloud: JsonSchema; readonly local: JsonSchema }
  /** The same for the cloud schema. */
  cloudUntrusted?: { readonly construct: string; readonly path: string } | null
  /**
   * Whether the finite decisions below may compile no validator: set while a structural proof is tried in
   * front of a decision that would compile one, so that attempt stays as cheap as a proof without values.
   */
  quick?: boolean
  /** Cloud expansions of this check by their views' node objects, and the steps each took (see `expand`). */
  readonly expanded?: Expansions
  /** Pairs shown to differ modulo annotations in this check, and the equality steps left (see `sameAsOne`). */
  same?: Known
}

/** Spends one step; false when the budget is exhausted. */
export const tick = (ctx: Ctx, n = 1): boolean => (ctx.budget -= n) >= 0

const hasOwn = Object.prototype.hasOwnProperty

/**
 * The keyword's value on a node, unless the node is boolean, the keyword was already handled, or the
 * node's dialect does not have it (a draft-07 validator ignores `dependentRequired`: it is no fact there).
 */
export const kw = (n: Node, key: string): JsonValue | undefined => {
  const s = n.schema
  // most keywords asked for are absent: that answer first, the skips and the dialect only for a present one
  if (typeof s !== "object" || !hasOwn.call(s, key)) return undefined
  if (n.skip?.has(key) === true || (n.dialect !== undefined && foreign[n.dialect].has(key))) return undefined
  return s[key]
}

/** Schemas with more subschemas than this are `Unsupported` before any work; walks over one stop there. */
export const MAX_SUBSCHEMAS = 4_000

/** Whether a value can be a schema. */
export const isSchemaValue = (v: JsonValue | undefined): v is JsonSchema =>
  typeof v === "boolean" || (typeof v === "object" && v !== null && !Array.isArray(v))

/** The child node at `tokens` under `n` (the caller has checked the value is a schema). */
export const child = (n: Node, schema: JsonSchema, ...tokens: ReadonlyArray<string | number>): Node => {
  let ptr = n.ptr
  if (ptr !== undefined) for (const t of tokens) ptr = P.append(ptr, t)
  return n.dialect === undefined ? { schema, ptr } : { schema, ptr, dialect: n.dialect }
}

/** The node without the listed keywords. */
export const without = (n: Node, ...keys: ReadonlyArray<string>): Node => ({
  schema: n.schema,
  ptr: n.ptr,
  skip: new Set([...(n.skip ?? []), ...keys]),
  ...(n.dialect === undefined ? {} : { dialect: n.dialect })
})

/**
 * Whether a cloud subschema and a local one are the same constraint by their text: only when both roots
 * read it in one dialect and it has no reference (a `$ref` resolves against its own root, and the two
 * roots' `$defs` may differ).
 */
export const sameText = (ctx: Ctx, cloud: JsonValue, local: JsonValue): boolean => {
  if (ctx.cloudDialect !== ctx.localDialect || !equals(cloud, local)) return false
  return !/"\$(ref|dynamicRef|recursiveRef|id)"/.test(JSON.stringify(cloud))
}

/** A pointer for messages: the node's own, or the root when it has none. */
export const where = (n: Node, ...tokens: ReadonlyArray<string | number>): string => {
  let p = n.ptr ?? ""
  for (const t of tokens) p = P.append(p, t)
  return p
}

/** Where a cloud conjunction sits, for messages: its first node with a pointer, else the cloud root. */
export const cloudAt = (nodes: ReadonlyArray<Node>): string => nodes.find((n) => n.ptr !== undefined)?.ptr ?? ""

/** "a" or "an" before a word, for messages. */
export const article = (word: string): string => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`)

/** A property name for messages, in backticks; one that would read as nothing (empty, blank, a backtick) as its JSON string. */
export const keyName = (k: string): string => (k.trim() === "" || k.includes("`") ? `\`${JSON.stringify(k)}\`` : `\`${k}\``)

/** A readable rendering of a JSON value for messages, kept short. */
export const show = (v: JsonValue): string => {
  const s = JSON.stringify(v)
  return s.length > 60 ? `${s.slice(0, 57)}...` : s
}

/** Whether a value is a string array. */
export const strings = (v: JsonValue | undefined): ReadonlyArray<string> =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []

/** A finite number, or undefined. */
export const num = (v: JsonValue | undefined): number | undefined =>
  typeof v === "number" && Number.isFinite(v) ? v : undefined

/** Compiles a regex as Ajv does (`u` flag); undefined when it does not compile. */
export const regex = (p: string): RegExp | undefined => {
  const cached = regexCache.get(p)
  if (cached !== undefined) return cached ?? undefined
  let r: RegExp | null
  try {
    r = new RegExp(p, "u")
  } catch {
    r = null
  }
  if (regexCache.size > 5_000) regexCache.clear()
  regexCache.set(p, r)
  return r ?? undefined
}
const regexCache = new Map<string, RegExp | null>()
