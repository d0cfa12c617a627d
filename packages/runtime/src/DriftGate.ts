/**
 * Layer 1, the drift gate: before the first billed request of a session, every tool the relay exports is
 * proved against the toolkit's local schema (`cloud ⊑ local`, by `Subschema.check` on the upgraded cloud
 * schema). A relay that predates the export or cannot be reached degrades with one warning; anything else
 * that is not a proof fails the session. It never retries a drift and never repairs: it gates.
 *
 * @since 0.1.0
 */
import { Subschema } from "@toolgate/json-schema"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Capabilities } from "./Capabilities.js"
import { type CapabilitiesContractError, CapabilitiesUnreachable, SchemaDriftError, UnsupportedCloudToolSchema } from "./Errors.js"
import { gate, ProofCache, type Prove, type Tools } from "./internal/driftProofs.js"

/** What the gate reads of a toolkit (a `Toolkit.Toolkit<R>` fits): its tools by name with their local JSON Schemas. */
export type Checkable = Tools

/** The gate's answer when it does not fail: every exported tool proven, or the gate could not run. */
export type Verdict = Data.TaggedEnum<{
  /** Every tool the relay exports is proven safe for the local executor (`tools`, in the relay's order). */
  Proven: { readonly tools: ReadonlyArray<string> }
  /** The relay predates the export or could not be reached (`detail` says how); layer 2 is the backstop. */
  Degraded: { readonly reason: "predates" | "unreachable"; readonly detail: string }
}>

/** Constructors and matchers of `Verdict`. */
export const Verdict = Data.taggedEnum<Verdict>()

/** Why the gate failed: a proven drift, a construct it cannot prove, a broken capabilities envelope, or (failing closed) an unreachable relay. */
export type GateError = SchemaDriftError | UnsupportedCloudToolSchema | CapabilitiesContractError | CapabilitiesUnreachable

/** The drift gate service. */
export interface Service {
  readonly check: (toolkit: Checkable) => Effect.Effect<Verdict, GateError>
}

/** The drift gate tag. */
export class DriftGate extends Context.Tag("@toolgate/runtime/DriftGate")<DriftGate, Service>() {}

/** How the gate proves, and how many verdicts it keeps. */
export interface Options {
  /** The prover (default `Subschema.check`); tests pass a counting one. */
  readonly prove?: Prove
  /** Verdicts kept by content (default 10,000; the oldest go first). */
  readonly cacheSize?: number
  /**
   * What an unreachable relay means: `degrade` (default, as the contract says: one warning, the turn runs on
   * layer 2) or `fail` (`CapabilitiesUnreachable`: for deployments where a blocked or slow probe must not
   * switch the gate off). A relay that predates the export degrades either way.
   */
  readonly onUnreachable?: "degrade" | "fail"
}

/** Builds the gate over `Capabilities`, with its own verdict cache (shared by every session of the layer). */
export const makeWith = (options: Options = {}): Effect.Effect<Service, never, Capabilities> =>
  Effect.gen(function*() {
    const capabilities = yield* Capabilities
    const size = options.cacheSize
    const proofs = new ProofCache(
      typeof size === "number" && size >= 1 ? Math.floor(size) : 10_000,
      options.prove ?? ((cloud, local) => Subschema.check(cloud, local))
    )
    const check = Effect.fn("DriftGate.check")(function*(toolkit: Checkable) {
      const probe = yield* capabilities.probe()
      if (probe._tag === "Unreachable" && options.onUnreachable === "fail") {
        return yield* new CapabilitiesUnreachable({ detail: `the relay is unreachable (${probe.cause})` })
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
      yield* Effect.annotateCurrentSpan({ "drift_gate.tools": probe.toolSchemas.size, "capabilities.version": probe.version })
      const outcome = gate(probe.toolSchemas, toolkit, proofs)
      switch (outcome._tag) {
        case "Proven":
          return Verdict.Proven({ tools: outcome.tools })
        case "Drift":
          return yield* new SchemaDriftError({
            tool: outcome.tool,
            reasons: outcome.reasons,
            witness: outcome.witness,
            drifted: outcome.drifted
          })
        case "Unsupported":
          return yield* new UnsupportedCloudToolSchema({ tool: outcome.tool, construct: outcome.construct, path: outcome.path })
      }
    })
    return DriftGate.of({ check })
  })

/** The gate proving with `Subschema.check`. */
export const make: Effect.Effect<Service, never, Capabilities> = makeWith()

/** The gate over the `Capabilities` in context. */
export const layer: Layer.Layer<DriftGate, never, Capabilities> = Layer.effect(DriftGate, make)

/** The gate with `options` (`onUnreachable: "fail"`, a cache size) over the `Capabilities` in context. */
export const layerWith = (options: Options): Layer.Layer<DriftGate, never, Capabilities> => Layer.effect(DriftGate, makeWith(options))
