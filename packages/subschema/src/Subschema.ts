/**
 * The subschema prover: proves `cloud ⊑ local` (every value the cloud schema accepts, the local schema
 * accepts), or shows a witness the cloud accepts and the local validator rejects, or says which construct
 * it cannot model. Sound by construction: `Subtype` only with a proof, `Drift` only with a witness both
 * real validators agreed on, everything else `Unsupported`. Pure, total and bounded by a work budget.
 *
 * @since 0.1.0
 */
import * as JsonSchema from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import { isJsonValue } from "@toolgate/json-schema/JsonValue"
import * as Cache from "@toolgate/json-schema/SchemaCache"
import type * as Validator from "@toolgate/json-schema/Validator"
import * as Either from "effect/Either"
import { bundle } from "./internal/subschemaBundle.js"
import { expansions } from "./internal/subschemaCloud.js"
import { misjudged, untrusted } from "./internal/subschemaKeywords.js"
import { invalidLocal } from "./internal/subschemaLocal.js"
import { withoutDynamicRefs } from "./internal/subschemaLower.js"
import type { Ctx, Outcome } from "./internal/subschemaModel.js"
import { MAX_SUBSCHEMAS } from "./internal/subschemaModel.js"
import { prove } from "./internal/subschemaProve.js"
import { quick } from "./internal/subschemaQuick.js"
import { allBases } from "./internal/subschemaTypes.js"
import * as Validators from "./internal/subschemaValidator.js"
import { sample, variants } from "./internal/subschemaWitness.js"
import * as DriftReason from "./Reason.js"

/** One reason for drift: JSON pointers into each schema and a sentence a person can act on. */
export type Reason = DriftReason.Reason

/** A reason as one line that stands alone (see `Reason.explain`). */
export const explain = DriftReason.explain

/** The verdict: proven, drift with a verified witness, or a construct the prover cannot model. */
export type Verdict =
  | { readonly _tag: "Subtype" }
  | { readonly _tag: "Drift"; readonly reasons: ReadonlyArray<Reason>; readonly witness: JsonValue }
  | { readonly _tag: "Unsupported"; readonly construct: string; readonly path: string }

/** Options of `check`. */
export interface Options {
  /** The work budget in steps (default 20,000); running out is `Unsupported`. */
  readonly budget?: number
}

/** The default work budget. */
export const defaultBudget = 20_000

const subtype: Verdict = { _tag: "Subtype" }
/** Verdicts by content (budget and both stable keys), the least recently used dropped past 10,000 or 32 Mi characters of keys. */
const byKey = new Cache.Lru<Verdict>(10_000)
/** Verdicts by the pair's identity, then budget. */
const byPair = Cache.byPair((_cloud: JsonSchema.JsonSchema, _local: JsonSchema.JsonSchema) => new Map<number, Verdict>())
const MAX_WITNESSES = 24
/** A schema's canonical text, once per schema object (a cloud schema meets many local ones). */
const keyOf = Cache.byIdentity(JsonSchema.stableKey)

/** Proves `cloud ⊑ local`, or returns a verified witness of drift, or the construct it cannot model. */
export const check = (cloud: JsonSchema.JsonSchema, local: JsonSchema.JsonSchema, options?: Options): Verdict => {
  try {
    if (!safeIsSchema(cloud)) return { _tag: "Unsupported", construct: "the cloud schema is not a schema", path: "" }
    if (!safeIsSchema(local)) return { _tag: "Unsupported", construct: "the local schema is not a schema", path: "" }
    if (cloud === local) return subtype
    const asked = options?.budget
    const budget = typeof asked === "number" && !Number.isNaN(asked) ? Math.max(0, Math.min(Math.floor(asked), 10_000_000)) : defaultBudget
    const known = byPair(cloud, local)
    let verdict = known.get(budget)
    if (verdict === undefined) known.set(budget, verdict = byContent(cloud, local, budget))
    return verdict
  } catch (e) {
    return { _tag: "Unsupported", construct: e instanceof RangeError ? "a schema nested too deeply" : "an internal limit", path: "" }
  }
}

/** The verdict for a pair by content: deeply equal schemas at once, then the content cache, then the prover. */
const byContent = (cloud: JsonSchema.JsonSchema, local: JsonSchema.JsonSchema, budget: number): Verdict => {
  const ck = keyOf(cloud), lk = keyOf(local)
  if (ck === undefined || lk === undefined) return { _tag: "Unsupported", construct: "a schema that is not plain JSON or is nested too deeply", path: "" }
  if (ck === lk) return subtype
  if (ck.length + lk.length > MAX_TEXT || size(cloud) + size(local) > MAX_SUBSCHEMAS) {
    return { _tag: "Unsupported", construct: "a schema too large to prove", path: "" }
  }
  const key = `${budget}\u0000${ck}\u0000${lk}`
  let verdict = byKey.get(key)
  if (verdict === undefined) byKey.set(key, verdict = run(cloud, local, budget, ck.includes("\"$ref\"") || lk.includes("\"$ref\""), lk))
  return verdict
}

const MAX_TEXT = 1_000_000

/** The number of subschemas in a schema, counted up to the limit. */
const size = (s: JsonSchema.JsonSchema): number => {
  let n = 0
  const stack: Array<JsonSchema.JsonSchema> = [s]
  while (stack.length > 0 && n <= MAX_SUBSCHEMAS) {
    const x = stack.pop()!
    n++
    for (const c of JsonSchema.subschemas(x)) stack.push(c.schema)
  }
  return n
}

const safeIsSchema = (u: unknown): u is JsonSchema.JsonSchema => {
  try {
    return JsonSchema.isSchema(u)
  } catch {
    return false
  }
}

/** A 2020-12 schema with its embedded resources folded into pointers where that is certain; otherwise itself. */
const folded = (s: JsonSchema.JsonSchema, dialect: JsonSchema.Dialect): JsonSchema.JsonSchema => dialect === "2020-12" ? bundle(s) ?? s : s

const run = (cloud: JsonSchema.JsonSchema, local: JsonSchema.JsonSchema, budget: number, refs: boolean, localKey: string): Verdict => {
  const cloudDialect = JsonSchema.dialect(cloud), localDialect = JsonSchema.dialect(local)
  // the prover reads the folded roots; witnesses, the local compile and the doubts use the schemas as given
  const ctx: Ctx = {
    cloudRoot: folded(cloud, cloudDialect),
    localRoot: folded(local, localDialect),
    given: { cloud, local },
    cloudDialect,
    localDialect,
    budget,
    refs,
    guard: 0,
    assumptions: new Map(),
    expanded: expansions()
  }
  const o: Outcome = prove(ctx, [{ schema: ctx.cloudRoot, ptr: "", dialect: cloudDialect }], { schema: ctx.localRoot, ptr: "", dialect: localDialect })
  if (o._tag === "Proven") {
    const ajvDiffers = misjudged(local) ?? misjudged(cloud)
    if (ajvDiffers !== undefined) return { _tag: "Unsupported", ...ajvDiffers }
    const broken = invalidLocal(local, ctx.localDialect, localKey)
    return broken === undefined ? subtype : { _tag: "Unsupported", construct: `the local schema does not compile: ${broken.message}`, path: broken.path }
  }
  // running out of budget is reported as that, not as whichever construct was being proven then
  const exhausted = ctx.budget < 0
  const spent = `work budget exhausted (${budget} steps)`
  const cloudDoubt = untrusted(cloud, ctx.cloudDialect)
  const doubt = cloudDoubt ?? untrusted(local, ctx.localDialect)
  const doubted: Verdict | undefined = doubt === undefined ? undefined : { _tag: "Unsupported", construct: exhausted ? spent : o._tag === "Unknown" ? o.construct : doubt.construct, path: o._tag === "Unknown" ? o.path : doubt.path }
  // Ajv applies a draft-07 `$ref`'s siblings: stricter than the specification on the cloud side, the
  // executor's own rule on the local side, so a witness both real validators agree on is drift either way.
  // Ajv's dynamic references are no evidence of what the cloud accepts: a witness must also pass a lower
  // bound of the cloud that evaluates none. The local validator is the executor's own, whatever it holds.
  const bound = cloudDoubt?.construct === "$dynamicRef" || cloudDoubt?.construct === "$recursiveRef" ? withoutDynamicRefs(cloud) : undefined
  if (doubted !== undefined && cloudDoubt !== undefined && cloudDoubt.construct !== "draft-07 $ref with sibling keywords" && bound === undefined) return doubted
  // on an instance of its own: it shares the cloud's `$id`s, which Ajv will not hold twice with two contents
  let lowerCompiled: Lower | undefined
  const lower = bound === undefined ? undefined : () => lowerCompiled ??= Either.flatMap(Validators.isolated(), (v) => v.compile(bound))
  if (o._tag === "Counter") {
    // every counterexample whose own witness both validators confirm names its reason, so one run of
    // `toolgate check` lists each drift the prover found; the first confirmed witness is the verdict's
    const reasons: Array<Reason> = []
    let witness: { readonly value: JsonValue } | undefined // (a witness may be `null`)
    for (const c of [o, ...(o.more ?? [])]) {
      const w = verified(cloud, local, c.witnesses, lower)
      if (w === undefined) continue
      witness ??= { value: w }
      for (const r of c.reasons) if (!reasons.some((d) => d.message === r.message && d.localPath === r.localPath)) reasons.push(r)
    }
    if (witness !== undefined) return { _tag: "Drift", reasons, witness: witness.value }
  }
  // no verified witness, or a construct it cannot model: samples of the whole cloud may still show drift,
  // and so may one plain value of each type where the cloud cannot be sampled
  ctx.budget = Math.max(ctx.budget, 400)
  const root = [{ schema: ctx.cloudRoot, ptr: "", dialect: ctx.cloudDialect }]
  const sampled = [sample(ctx, root), ...allBases.flatMap((b) => variants(ctx, root, b, 2))]
  const w = verified(cloud, local, sampled, lower) ?? verified(cloud, local, [...plain, ...literals(local)], lower)
  if (w !== undefined) {
    const l = Validators.shared.compile(local)
    // the issue at the deepest field names what the local schema rejects, not the arguments as a whole
    const issue = Either.isRight(l) ? deepest(l.right.validate(w)) : undefined
    const message = `the cloud schema allows ${JSON.stringify(w).slice(0, 60)}; the local schema rejects it${issue === undefined ? "" : ` (${issue.message})`}`
    return { _tag: "Drift", reasons: [{ cloudPath: "", localPath: o._tag === "Counter" ? o.reasons[0]?.localPath ?? "" : o.path, message }], witness: w }
  }
  if (doubted !== undefined) return doubted
  if (o._tag === "Counter") {
    const r = o.reasons[0]
    return { _tag: "Unsupported", construct: exhausted ? spent : `no verified witness for: ${r?.message ?? "a difference"}`, path: r?.localPath ?? "" }
  }
  return { _tag: "Unsupported", construct: exhausted ? spent : o.construct, path: o.path }
}

const deepest = (issues: ReadonlyArray<Validator.Issue>): Validator.Issue | undefined =>
  issues.reduce<Validator.Issue | undefined>((best, i) => (best === undefined || i.path.length > best.path.length ? i : best), undefined)

/** The compiled lower bound of a cloud with dynamic references. */
type Lower = Either.Either<Validator.Compiled, Validator.SchemaError>

/** One plain value of each JSON type, the last witness candidates. */
const plain: ReadonlyArray<JsonValue> = [null, true, 0, 0.5, "", [], {}]

/** Up to 16 values the local schema names in a `const` or `enum` (a value a local `not` excludes is a natural witness). */
const literals = (local: JsonSchema.JsonSchema): ReadonlyArray<JsonValue> => {
  const out: Array<JsonValue> = []
  const stack: Array<JsonSchema.JsonSchema> = [local]
  for (let seen = 0; stack.length > 0 && out.length < 16 && seen < MAX_SUBSCHEMAS; seen++) {
    const s = stack.pop()!
    if (typeof s !== "object") continue
    const c = s["const"], e = s["enum"]
    if (c !== undefined) out.push(c)
    if (Array.isArray(e)) out.push(...e.slice(0, 16 - out.length))
    for (const x of JsonSchema.subschemas(s)) stack.push(x.schema)
  }
  return out
}

/**
 * The first candidate the real cloud validator accepts and the real local validator rejects (and, when
 * given, the validator of a lower bound of the cloud accepts too).
 */
const verified = (cloud: JsonSchema.JsonSchema, local: JsonSchema.JsonSchema, ws: ReadonlyArray<JsonValue | undefined>, lower?: () => Lower): JsonValue | undefined => {
  // a candidate the quick reading shows is none (the local schema accepts it, or the cloud rejects it) needs
  // no validator; the local one is compiled for the first other, the cloud's once the local one rejects one
  const localNode = { schema: local, ptr: "", dialect: JsonSchema.dialect(local) }
  const cloudNode = { schema: cloud, ptr: "", dialect: JsonSchema.dialect(cloud) }
  let l: Either.Either<Validator.Compiled, Validator.SchemaError> | undefined
  let c: Either.Either<Validator.Compiled, Validator.SchemaError> | undefined
  const seen = new Set<string>()
  for (const w of ws.slice(0, MAX_WITNESSES * 4)) {
    if (w === undefined || !isJsonValue(w)) continue
    const k = JsonSchema.stableKey(w)
    if (k === undefined || seen.has(k)) continue
    seen.add(k)
    if (seen.size > MAX_WITNESSES) break
    try {
      if (quick(localNode, w, local) === true || quick(cloudNode, w, cloud) === false) continue
      l ??= Validators.shared.compile(local)
      if (Either.isLeft(l)) return undefined
      // the raw answers first; the issue lists (which may compile a branch to describe it) only for the
      // candidate that passed them all
      if (l.right.isValid(w)) continue
      c ??= Validators.shared.compile(cloud)
      if (Either.isLeft(c)) return undefined
      if (!c.right.isValid(w)) continue
      const b = lower?.()
      if (b !== undefined && (Either.isLeft(b) || !b.right.isValid(w))) continue
      if (l.right.validate(w).length === 0 || c.right.validate(w).length > 0) continue
      return w
    } catch {
      continue
    }
  }
  return undefined
}
