/**
 * Layer 1, the drift gate: before the first billed request of a session, every tool the relay exports is
 * proved against the toolkit's local schema (`cloud ⊑ local`, by `Subschema.check` on the upgraded cloud
 * schema). A relay that predates the export or cannot be reached degrades with one warning; anything else
 * that is not a proof fails the session. It never retries a drift and never repairs: it gates.
 *
 * @since 0.1.0
 */
import { JsonSchema, type JsonValue } from "@toolgate/json-schema"
import { Subschema } from "@toolgate/subschema"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Errors from "./Errors.js"
import * as Decode from "./Decode.js"
import { type RelayProfileContractError, RelayProfileUnreachable, SchemaDriftError, UnsupportedCloudToolSchema } from "./Errors.js"
import { RelayProfile } from "./RelayProfile.js"
import * as Telemetry from "./Telemetry.js"

/** What the gate reads of a toolkit (a `Toolkit.Toolkit<R>` fits): its tools by name with their local JSON Schemas. */
export interface Checkable {
  readonly tools: ReadonlyMap<string, { readonly name: string; readonly jsonSchema: JsonSchema.JsonSchema }>
}

/** The gate's answer when it does not fail: every exported tool proven, or the gate could not run. */
export type Verdict = Data.TaggedEnum<{
  /** Every tool the relay exports is proven safe for the local executor (`tools`, in the relay's order). */
  Proven: { readonly tools: ReadonlyArray<string> }
  /** The relay predates the export or could not be reached (`detail` says how); layer 2 is the backstop. */
  Degraded: { readonly reason: "predates" | "unreachable"; readonly detail: string }
}>

/** Constructors and matchers of `Verdict`. */
export const Verdict = Data.taggedEnum<Verdict>()

/** Why the gate failed: a proven drift, a construct it cannot prove, a relay profile that breaks the wire contract, or (failing closed) an unreachable relay. */
export type GateError = SchemaDriftError | UnsupportedCloudToolSchema | RelayProfileContractError | RelayProfileUnreachable

/** The drift gate service. */
export interface Service {
  readonly check: (toolkit: Checkable) => Effect.Effect<Verdict, GateError>
}

/** The drift gate tag. */
export class DriftGate extends Context.Tag("@toolgate/runtime/DriftGate")<DriftGate, Service>() {}

/** How the gate proves, and how many verdicts it keeps. */
export interface Options {
  /** The prover of an upgraded cloud schema (default `Subschema.check`); tests pass a counting one. */
  readonly prove?: Prove
  /** Verdicts kept by content (default 10,000; the oldest go first). */
  readonly cacheSize?: number
  /**
   * What an unreachable relay means: `degrade` (default, as the contract says: one warning, the turn runs on
   * layer 2) or `fail` (`RelayProfileUnreachable`: for deployments where a blocked or slow probe must not
   * switch the gate off). A relay that predates the export degrades either way.
   */
  readonly onUnreachable?: "degrade" | "fail"
}

/** Proves `cloud ⊑ local` (`Subschema.check` unless a test counts calls). */
export type Prove = (cloud: JsonSchema.JsonSchema, local: JsonSchema.JsonSchema) => Subschema.Verdict

/** One exported tool's verdict: the proof's (`Subtype` · `Drift` · `Unsupported`), or `UnknownTool` when the toolkit cannot execute it. */
export type ToolVerdict =
  | { readonly _tag: "Subtype"; readonly tool: string }
  | { readonly _tag: "Drift"; readonly tool: string; readonly reasons: ReadonlyArray<Subschema.Reason>; readonly witness: JsonValue.JsonValue }
  | { readonly _tag: "Unsupported"; readonly tool: string; readonly construct: string; readonly path: string }
  | { readonly _tag: "UnknownTool"; readonly tool: string }

/**
 * `prove` on the cloud schema as the relay sent it: upgraded first, reading keywords beside a draft-07 `$ref` as
 * draft-07 does (ignored), the broadest reading of a schema the relay's side enforces.
 */
const upgradedBy = (prove: Prove): Prove => (cloud, local) => prove(JsonSchema.upgrade(cloud, { refSiblings: "ignore" }).schema, local)

/**
 * Every exported tool's verdict, in the relay's order: its cloud schema (as sent) proved against the local
 * schema of the same name by `proveExported` (default: upgraded, then `Subschema.check`). The gate and
 * `toolgate check` both fold this list.
 *
 * @since 0.1.0
 */
export const verdicts = (
  exported: ReadonlyMap<string, JsonSchema.JsonSchema>,
  local: ReadonlyMap<string, JsonSchema.JsonSchema>,
  proveExported: Prove = upgradedBy(Subschema.check)
): ReadonlyArray<ToolVerdict> =>
  Array.from(exported, ([tool, cloud]): ToolVerdict => {
    const schema = local.get(tool)
    if (schema === undefined) return { _tag: "UnknownTool", tool }
    const v = proveExported(cloud, schema)
    return v._tag === "Subtype"
      ? { _tag: "Subtype", tool }
      : v._tag === "Drift"
      ? { _tag: "Drift", tool, reasons: v.reasons, witness: v.witness }
      : { _tag: "Unsupported", tool, construct: v.construct, path: v.path }
  })

/**
 * The gate's fold of `verdicts`: any drift (an unknown tool included) wins over an unsupported construct,
 * since a proven drift is certain, and the error lists every drifted tool; else every tool is proven.
 *
 * @since 0.1.0
 */
export const fold = (
  verdicts: ReadonlyArray<ToolVerdict>
): Either.Either<Verdict, SchemaDriftError | UnsupportedCloudToolSchema> => {
  const drifted = verdicts.filter((v) => v._tag === "Drift" || v._tag === "UnknownTool")
  const first = drifted[0]
  if (first !== undefined) {
    return Either.left(
      new SchemaDriftError({
        tool: first.tool,
        reasons: first._tag === "Drift" ? first.reasons : [{
          cloudPath: "",
          localPath: "",
          message: `unknown-tool: the relay exports \`${first.tool}\`, which this toolkit cannot execute`
        }],
        // an unknown tool's witness: the simplest call (no local schema exists to reject it)
        witness: first._tag === "Drift" ? first.witness : {},
        drifted: drifted.map((v) => v.tool)
      })
    )
  }
  const unsupported = verdicts.find((v) => v._tag === "Unsupported")
  return unsupported === undefined
    ? Either.right(Verdict.Proven({ tools: verdicts.map((v) => v.tool) }))
    : Either.left(new UnsupportedCloudToolSchema({ tool: unsupported.tool, construct: unsupported.construct, path: unsupported.path }))
}

/** The most characters the verdict cache's keys (both schemas' canonical texts) hold in all: 32 Mi. */
const maxKeyChars = 32 * 1024 * 1024

/**
 * `prove` with its verdicts kept by the content of both schemas (`JsonSchema.stableKey`), at most `limit`
 * and `maxKeyChars` of keys (a backend's huge schemas cannot hold gigabytes), the oldest going first. A
 * schema's key is remembered per object: a warm check (the cached probe, the same toolkit) walks no schema
 * and upgrades none, which keeps it well under a millisecond for 50 tools.
 */
const cached = (limit: number, prove: Prove): Prove => {
  const kept = new Map<string, Subschema.Verdict>()
  let chars = 0
  const keys = new WeakMap<object, string | undefined>()
  const keyOf = (schema: JsonSchema.JsonSchema): string | undefined => {
    if (typeof schema !== "object") return String(schema)
    if (!keys.has(schema)) keys.set(schema, JsonSchema.stableKey(schema))
    return keys.get(schema)
  }
  return (cloud, local) => {
    const ck = keyOf(cloud), lk = keyOf(local)
    if (ck === undefined || lk === undefined) return prove(cloud, local)
    const key = `${ck.length}:${ck}${lk}`
    const known = kept.get(key)
    if (known !== undefined) return known
    const verdict = prove(cloud, local)
    kept.set(key, verdict)
    chars += key.length
    while (kept.size > 1 && (kept.size > limit || chars > maxKeyChars)) {
      const oldest = kept.keys().next().value!
      kept.delete(oldest)
      chars -= oldest.length
    }
    return verdict
  }
}

/** The options that are data, as a Schema (defaults filled in). */
const Settings = Schema.Struct({
  cacheSize: Schema.optionalWith(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)), { exact: true, default: () => 10_000 }),
  onUnreachable: Schema.optionalWith(Schema.Literal("degrade", "fail"), { exact: true, default: () => "degrade" as const })
})

const decodeSettings = Decode.options("DriftGate", Settings)

/** The gate's span: `DriftGate.check`, with `error.type` when it fails. */
const checkSpan = Telemetry.span("DriftGate.check")

/**
 * Builds the gate over the `RelayProfile` in context, with its own verdict cache (shared by every session of the layer);
 * options that are not valid fail with `InvalidOptions`.
 */
export const makeWith = (options: Options = {}): Effect.Effect<Service, Errors.InvalidOptions, RelayProfile> =>
  Effect.gen(function*() {
    const settings = yield* decodeSettings(options)
    const profile = yield* RelayProfile
    const prove = cached(settings.cacheSize, upgradedBy(options.prove ?? Subschema.check))
    const check = Effect.fnUntraced(function*(toolkit: Checkable) {
      const probe = yield* profile.probe()
      if (probe._tag === "Unreachable" && settings.onUnreachable === "fail") {
        return yield* new RelayProfileUnreachable({ detail: `the relay is unreachable (${probe.cause})` })
      }
      if (probe._tag !== "Exported") {
        const verdict = probe._tag === "Predates"
          ? Verdict.Degraded({ reason: "predates", detail: "the relay predates the tool schema export" })
          : Verdict.Degraded({ reason: "unreachable", detail: `the relay is unreachable (${probe.cause})` })
        yield* Effect.logWarning(
          `Drift gate skipped: ${verdict.detail}; tool arguments are still validated locally before execution.`
        ).pipe(Effect.annotateLogs({ "drift_gate.reason": verdict.reason }))
        return verdict
      }
      yield* Effect.annotateCurrentSpan({ "toolgate.drift_gate.tools": probe.toolSchemas.size, "toolgate.relay_profile.version": probe.version })
      const local = new Map(Array.from(toolkit.tools, ([name, tool]) => [name, tool.jsonSchema]))
      return yield* fold(verdicts(probe.toolSchemas, local, prove))
    }, checkSpan)
    return DriftGate.of({ check })
  })

/** The gate proving with `Subschema.check` (the defaults are valid options: it cannot fail). */
export const make: Effect.Effect<Service, never, RelayProfile> = Effect.orDie(makeWith())

/** The gate over the `RelayProfile` in context. */
export const layer: Layer.Layer<DriftGate, never, RelayProfile> = Layer.effect(DriftGate, make)

/** The gate with `options` (`onUnreachable: "fail"`, a cache size) over the `RelayProfile` in context. */
export const layerWith = (options: Options): Layer.Layer<DriftGate, Errors.InvalidOptions, RelayProfile> =>
  Layer.effect(DriftGate, makeWith(options))
