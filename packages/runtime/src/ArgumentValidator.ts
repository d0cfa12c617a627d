/**
 * Layer 2 as a service: every call's raw arguments are prepared (parsed, defaulted, coerced under the
 * `lenient` policy, validated against the tool's local schema, decoded for an Effect Schema tool) before
 * an executor may see them. An invalid call fails with `InvalidToolArguments`, carrying the
 * `invalid_args` envelope to feed back; it never reaches `execute`.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Arguments, type Coercion, type JsonSchema, type JsonValue as J, RefAware, type Validator } from "@toolgate/json-schema"
import * as Decode from "./Decode.js"
import * as EnvConfig from "./EnvConfig.js"
import * as Errors from "./Errors.js"
import * as Shape from "./internal/argumentShape.js"
import * as Telemetry from "./Telemetry.js"
import * as Policies from "./internal/argumentPolicy.js"
import type * as Tool from "./Tool.js"
import * as ToolEnvelope from "./ToolEnvelope.js"

/** Options of `make`: the default policy, per-tool policies, tool chaining. */
export type Options = Policies.Options

/** `lenient` (the default) repairs near-miss arguments before validating; `strict` only validates. */
export type Policy = Arguments.Policy

/** What `prepare` needs to know about the call. */
export interface PrepareOptions {
  readonly callId: string
  /** The provider was sent an OpenAI-strict schema: `null` for an optional property means "absent". */
  readonly fromStrictProvider?: boolean
}

/** Arguments that hold sentinel refs (tool chaining on): valid once the refs are resolved, not before. */
export interface Referencing {
  readonly _tag: "Referencing"
  readonly tool: string
  readonly callId: string
  readonly raw: unknown
  readonly value: J.JsonValue
  readonly coercions: ReadonlyArray<Coercion.Coercion>
  readonly refs: ReadonlyArray<RefAware.Located>
}

/** What `prepare` gives: arguments ready for `Tool.run`, or (tool chaining on) arguments with refs to resolve. */
export type Outcome<A> = Tool.Prepared<A> | Referencing

/** The argument validator. */
export interface Service {
  /** The policy a tool's calls are prepared under. */
  readonly policyFor: (tool: string) => Policy
  /** Whether schemas are widened to accept sentinel refs. */
  readonly toolChaining: boolean
  /** Prepares one call's raw arguments for `tool`, or fails with why they cannot run. */
  readonly prepare: <A>(
    tool: Tool.Tool<A, any>,
    raw: unknown,
    options: PrepareOptions
  ) => Effect.Effect<Outcome<A>, Errors.InvalidToolArguments | Errors.InvalidToolSchema>
}

/** The argument validator's tag. */
export class ArgumentValidator extends Context.Tag("@toolgate/runtime/ArgumentValidator")<ArgumentValidator, Service>() {}

const text = (u: unknown, fallback: string): string => typeof u === "string" ? u : fallback

const invalid = (tool: string, callId: string, issues: ReadonlyArray<Validator.Issue>) =>
  new Errors.InvalidToolArguments({ tool, callId, issues, envelope: ToolEnvelope.fromIssues(issues, tool) })

/** The raw arguments (JSON text or a value) hold a sentinel ref somewhere. */
const holdsRefs = (raw: unknown): boolean => {
  if (typeof raw !== "string") return RefAware.refs(raw).length > 0
  try {
    return RefAware.refs(JSON.parse(raw)).length > 0
  } catch {
    return false
  }
}

/**
 * With tool chaining on: the tool's own schema first, then (only for a call it rejects) the widened one. The
 * widened schema's issues name the ref branch ("integer or object"), so they are the model's only when the
 * call holds refs; otherwise it is told what the tool's own schema says, as with tool chaining off.
 */
const prepareChained = (schema: JsonSchema.JsonSchema, raw: unknown, options: Arguments.Options): Arguments.Prepared => {
  const plain = Arguments.prepare(schema, raw, options)
  if (plain._tag !== "Invalid") return plain
  const wide = Arguments.prepare(RefAware.widen(schema), raw, options)
  return wide._tag === "Invalid" && !holdsRefs(raw) ? plain : wide
}

const decodeOptions = Decode.options("ArgumentValidator", Policies.OptionsSchema)

/** An argument validator with `options` (policy `lenient`, no overrides, tool chaining off by default); options of the wrong kind are `InvalidOptions`. */
export const make = (options: Options = {}): Effect.Effect<Service, Errors.InvalidOptions> =>
  Effect.map(decodeOptions(options), (decoded) => {
    // the per-tool policies are read from the caller's own value (decoded, a record would lose a tool named `__proto__`)
    const policyFor = Policies.policyOf({ ...(decoded.policy === undefined ? {} : { policy: decoded.policy }), policies: options.policies })
    const toolChaining = decoded.toolChaining === true
    const maxDepth = decoded.maxArgumentDepth ?? Shape.defaultMaxDepth
    /** One call's outcome, plainly: what the executor may receive, or the typed error the call fails with. */
    const outcomeOf = <A>(tool: Tool.Tool<A, any>, raw: unknown, name: string, callId: string, options: Arguments.Options) => {
      if (tool.schemaError !== undefined) return new Errors.InvalidToolSchema({ tool: name, path: "", detail: tool.schemaError })
      // a value too deep (or not well-formed text) is refused before any recursive code walks it
      const raised = typeof raw === "string" ? undefined : Shape.check(raw, maxDepth)
      if (raised !== undefined) return invalid(name, callId, [raised])
      const result = toolChaining ? prepareChained(tool.jsonSchema, raw, options) : Arguments.prepare(tool.jsonSchema, raw, options)
      if (result._tag === "SchemaError") return new Errors.InvalidToolSchema({ tool: name, path: result.path, detail: result.message })
      if (result._tag === "Invalid") return invalid(name, callId, result.issues)
      // what coercion built (or parsed from text) is checked; the caller's own value passed above
      const shape = result.value === raw ? undefined : Shape.check(result.value, maxDepth)
      if (shape !== undefined) return invalid(name, callId, [shape])
      const base = { tool: name, callId, raw, value: result.value, coercions: result.coercions }
      const refs = toolChaining ? RefAware.refs(result.value) : []
      if (refs.length > 0) return { _tag: "Referencing", ...base, refs } satisfies Referencing as Outcome<A>
      const decoded = tool.decode(result.value)
      if (decoded._tag === "Left") return invalid(name, callId, decoded.left)
      return { _tag: "Prepared", ...base, args: decoded.right } satisfies Tool.Prepared<A> as Outcome<A>
    }
    const prepare = <A>(tool: Tool.Tool<A, any>, raw: unknown, prepareOptions: PrepareOptions): Effect.Effect<Outcome<A>, Errors.InvalidToolArguments | Errors.InvalidToolSchema> => {
      const name = text(tool.name, "")
      const callId = text(prepareOptions?.callId, "")
      const policy = policyFor(name)
      const options = { policy, fromStrictProvider: prepareOptions?.fromStrictProvider === true, keepEmptyStrings: tool.keepEmptyStrings === true }
      return Effect.suspend(() => {
        const outcome = outcomeOf(tool, raw, name, callId, options)
        return outcome instanceof Errors.InvalidToolArguments || outcome instanceof Errors.InvalidToolSchema ? Effect.fail(outcome) : Effect.succeed(outcome)
      }).pipe(
        Telemetry.span("ArgumentValidator.prepare", { "gen_ai.tool.name": name, "gen_ai.tool.call.id": callId, "toolgate.argument_policy": policy })
      )
    }
    return { policyFor, toolChaining, prepare }
  })

/** The default validator: lenient, no overrides, tool chaining off. */
export const layer: Layer.Layer<ArgumentValidator> = Layer.effect(ArgumentValidator, Effect.orDie(make()))

/**
 * The validator with its options read from config while the layer is built, under the keys the app names:
 * `layerConfig({ policy: Config.literal("lenient", "strict")("MY_POLICY") })`; a key left unset takes the
 * default. A value the options' Schema refuses is `InvalidOptions` naming its key.
 */
export const layerConfig = (config: Config.Config.Wrap<Options>): Layer.Layer<ArgumentValidator, ConfigError.ConfigError | Errors.InvalidOptions> =>
  Layer.effect(ArgumentValidator, Effect.flatMap(Decode.fromConfig("ArgumentValidator", Policies.OptionsSchema, config), make))

const env = EnvConfig.names.ArgumentValidator

/**
 * `layerConfig` under the `TOOLGATE_*` names (`EnvConfig.names.ArgumentValidator`): `TOOLGATE_ARGUMENT_POLICY`
 * (`lenient` | `strict`), `TOOLGATE_ARGUMENT_POLICY_OVERRIDES` (`tool=strict,other=lenient`), `TOOLGATE_TOOL_CHAINING`,
 * `TOOLGATE_MAX_ARGUMENT_DEPTH`.
 */
export const layerEnv: Layer.Layer<ArgumentValidator, ConfigError.ConfigError | Errors.InvalidOptions> = layerConfig({
  policy: Config.literal("lenient", "strict")(env.policy),
  policies: Config.string(env.policies).pipe(Config.mapOrFail(Policies.parseOverrides)),
  toolChaining: Config.boolean(env.toolChaining),
  maxArgumentDepth: Config.integer(env.maxArgumentDepth)
})

/** The validator with `options` given directly. */
export const layerWith = (options: Options): Layer.Layer<ArgumentValidator, Errors.InvalidOptions> => Layer.effect(ArgumentValidator, make(options))
