/**
 * A tool: a name, a description, a parameter schema (JSON Schema, or an Effect Schema turned into one) and
 * an executor. `run` executes prepared arguments and answers with a `ToolEnvelope`, whatever happens.
 *
 * @since 0.1.0
 */
import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { type Coercion, JsonSchema, JsonValue as J, type Validator } from "@toolgate/json-schema"
import * as Errors from "./Errors.js"
import * as Outcome from "./internal/toolOutcome.js"
import { parametersOf } from "./internal/toolParameters.js"
import * as Telemetry from "./Telemetry.js"
import * as ToolEnvelope from "./ToolEnvelope.js"

/** Brands a value built by `make`. */
export const TypeId: unique symbol = Symbol.for("@toolgate/runtime/Tool")

/** The brand's type. */
export type TypeId = typeof TypeId

/** What every tool exposes, whatever its requirements or argument type. */
export interface Any {
  readonly name: string
  readonly description: string
  /** The LOCAL parameter schema as JSON Schema, after `JsonSchema.upgrade`. */
  readonly jsonSchema: JsonSchema.JsonSchema
}

/** What an executor learns about its call besides the arguments. */
export interface CallContext {
  readonly tool: string
  readonly callId: string
  /** The arguments exactly as the model sent them. */
  readonly raw: unknown
  /** The arguments after the lenient preflight, as validated JSON. */
  readonly prepared: J.JsonValue
  /** Every repair the preflight made to get there. */
  readonly coercions: ReadonlyArray<Coercion.Coercion>
  /**
   * A key naming this call for good: in a session `<session id>:<turn>-<random>:<call id>` (the same for the call's
   * undo), so an executor that records the keys it applied can refuse to apply one twice. Outside a session
   * it is what `run` was given, else the call id.
   */
  readonly idempotencyKey: string
  /**
   * Keeps `value` as this call's artifact `name`: a later call of the session may point at it with
   * `{ "$tool": <this call's id>, "$artifact": name, "$path": … }` (tool chaining). A value that is not JSON
   * fails the call (`execution_error`). Outside a session it goes where `run` was told (nowhere by default).
   */
  readonly saveArtifact: (name: string, value: J.JsonValue) => Effect.Effect<void, Errors.ToolFailure>
}

/** What `run` may be told besides the prepared arguments. */
export interface RunOptions {
  /** The call's idempotency key (default: its call id). */
  readonly idempotencyKey?: string
  /** Receives the artifacts the executor saves (default: they are dropped). */
  readonly onArtifact?: (name: string, value: J.JsonValue) => void
}

/** Arguments that passed validation (and decoding), ready for `run`: what `ArgumentValidator.prepare` gives. */
export interface Prepared<A> {
  readonly _tag: "Prepared"
  readonly tool: string
  readonly callId: string
  readonly raw: unknown
  readonly value: J.JsonValue
  readonly coercions: ReadonlyArray<Coercion.Coercion>
  /** The decoded, typed arguments (the JSON value itself for a JSON Schema tool). */
  readonly args: A
}

/** Fails an executor with a `ToolFailure`. */
export const fail = (
  kind: ToolEnvelope.Kind,
  message: string,
  options?: { readonly field?: string; readonly expected?: string; readonly retryable?: boolean }
): Effect.Effect<never, Errors.ToolFailure> => {
  try {
    const text = (key: "field" | "expected") => typeof options?.[key] === "string" ? { [key]: options[key] } : {}
    return new Errors.ToolFailure({
      kind: ToolEnvelope.isKind(kind) ? kind : "execution_error",
      message: typeof message === "string" ? message : String(message),
      ...text("field"),
      ...text("expected"),
      ...(typeof options?.retryable === "boolean" ? { retryable: options.retryable } : {})
    })
  } catch (e) {
    // a message or options that throw when read (past the types) still fail the call, with what can be said
    return new Errors.ToolFailure({ kind: "execution_error", message: `The tool failed; its failure could not be read (${messageOf(e)}).` })
  }
}

/** An executor: typed arguments and the call's context to a JSON-able result. */
export type Execute<A, R> = (args: A, ctx: CallContext) => Effect.Effect<unknown, Errors.ToolFailure, R>

/** Reverses an executed call, given its arguments, context and the result it answered with. */
export type Undo<A, R> = (args: A, ctx: CallContext & { readonly result: J.JsonValue }) => Effect.Effect<void, Errors.ToolFailure, R>

/**
 * Something the local parameter schema says that the validator will not enforce: a keyword it does not know
 * (`maxLenght`, the other dialect's keywords) or a format ajv-formats does not define. Calls are not checked
 * against it, so the app should know. Shaped like `Provider.ToolSchemaWarning`, with where and what.
 */
export interface SchemaWarning {
  readonly tool: string
  /** A JSON pointer to the keyword in the local schema. */
  readonly path: string
  readonly kind: "keyword" | "format"
  /** The keyword, or the format's name. */
  readonly name: string
  /** For a keyword: the keyword it most likely misspells (`propertes` → `properties`), when one is that close. */
  readonly likely?: string
  readonly message: string
}

/** The warnings of a tool's local schema (annotations, `x-*` and the corpus's `optional`/`example_value` stay silent). */
export const warningsOf = (tool: string, schema: JsonSchema.JsonSchema): ReadonlyArray<SchemaWarning> =>
  JsonSchema.unenforced(schema).map(({ kind, likely, name, path }) => ({
    tool,
    path,
    kind,
    name,
    ...(likely === undefined ? {} : { likely }),
    message: kind === "keyword"
      ? `Tool \`${tool}\`: \`${name}\` (at ${path}) is not a keyword the validator knows${likely === undefined ? "" : ` (a misspelling of \`${likely}\`?)`}; it is not enforced.`
      : `Tool \`${tool}\`: format \`${name}\` (at ${path}) is not one the validator defines; it is not enforced.`
  }))

/** A tool whose executor takes `A` and needs `R`. */
export interface Tool<A, R = never> extends Any {
  readonly [TypeId]: TypeId
  /** What `JsonSchema.upgrade` changed in the declared schema. */
  readonly changes: ReadonlyArray<JsonSchema.Change>
  /** What the local schema says that the validator will not enforce (see `SchemaWarning`). */
  readonly warnings: ReadonlyArray<SchemaWarning>
  /** Why the parameters have no usable JSON Schema (then `jsonSchema` is `false`); `undefined` normally. */
  readonly schemaError: string | undefined
  /** Valid JSON arguments to `A`: the identity for a JSON Schema tool, the Effect Schema's decoder otherwise. */
  readonly decode: (value: J.JsonValue) => Either.Either<A, ReadonlyArray<Validator.Issue>>
  readonly execute: Execute<A, R>
  readonly undo?: Undo<A, R>
  /** How long one run (and one undo) may take: `defaultTimeout` when absent, no limit when `"none"`. */
  readonly timeout?: Duration.Duration | "none"
  /** Present (true) when the tool keeps empty optional strings as values (see `SchemaOptions.keepEmptyStrings`). */
  readonly keepEmptyStrings?: true
}

/** How long a tool's run (or undo) may take unless the tool says otherwise: 120 seconds. */
export const defaultTimeout: Duration.Duration = Outcome.defaultTimeout

/**
 * A tool's time budget: a duration (default 120 s), or `"none"` for a long-running tool that opts out (a build,
 * a shell command the user watches); past it the executor's fiber is interrupted and the call is answered with a
 * `timeout` envelope (retryable). Synchronous CPU work cannot be interrupted in JavaScript: a busy loop ends when
 * it ends; yield (`Effect.yieldNow`) or use an interruptible effect for long work.
 */
export type Timeout = Duration.DurationInput | "none"

/** The requirements of a tool type. */
export type Requirements<T> = T extends Tool<infer _A, infer R> ? R : never

/** The options of `make` for an Effect Schema: the executor receives the decoded value. */
export interface SchemaOptions<A, I, R> {
  readonly description: string
  readonly parameters: Schema.Schema<A, I, never>
  readonly execute: Execute<A, R>
  readonly undo?: Undo<A, R>
  readonly timeout?: Timeout
  /**
   * Whether an empty (or blank) string for an optional property is a value the executor receives (`body: ""`
   * to clear a body). Default false: the lenient policy drops such a string as a model's filler for "no value".
   */
  readonly keepEmptyStrings?: boolean
}

/** The options of `make` for a JSON Schema: the executor receives the validated JSON. */
export interface JsonSchemaOptions<R> {
  readonly description: string
  readonly parameters: JsonSchema.JsonSchema
  readonly execute: Execute<J.JsonValue, R>
  readonly undo?: Undo<J.JsonValue, R>
  readonly timeout?: Timeout
  /** Whether an empty optional string is a value, not a filler to drop (see `SchemaOptions.keepEmptyStrings`). */
  readonly keepEmptyStrings?: boolean
}

/** A timeout option as the tool keeps it, or `null` when it is neither `"none"` nor a duration above zero. */
const timeoutOf = (timeout: Timeout | undefined): Duration.Duration | "none" | undefined | null => {
  if (timeout === undefined) return undefined
  if (timeout === "none") return "none"
  const decoded = Duration.decodeUnknown(timeout)
  return decoded._tag === "Some" && Duration.greaterThan(decoded.value, Duration.zero) ? decoded.value : null
}

/** The options of `make` as read once: each field read one time, so a getter or proxy trap runs once. */
interface Read {
  readonly description: string
  readonly parameters: unknown
  readonly execute: Execute<any, any>
  readonly undo: Undo<any, any> | undefined
  readonly timeout: Timeout | undefined
  readonly keepEmptyStrings: boolean | undefined
}

const decodeFlag = Schema.decodeUnknownEither(Schema.UndefinedOr(Schema.Boolean))

/** Reads `make`'s options once; a throwing getter or proxy trap, or a field of the wrong kind, is the reason they cannot be used. */
const readOptions = (options: unknown): Read | string => {
  try {
    if (typeof options !== "object" || options === null) return "the options are not an object"
    const o = options as Record<string, unknown>
    const read = { description: o["description"], parameters: o["parameters"], execute: o["execute"], undo: o["undo"], timeout: o["timeout"], keepEmptyStrings: o["keepEmptyStrings"] }
    if (Either.isLeft(decodeFlag(read.keepEmptyStrings))) return "`keepEmptyStrings` is not a boolean"
    if (typeof read.description !== "string") return "`description` is not a string"
    if (typeof read.execute !== "function") return "`execute` is not a function"
    if (read.undo !== undefined && typeof read.undo !== "function") return "`undo` is not a function"
    return read as Read
  } catch (e) {
    return `the options could not be read (${messageOf(e)})`
  }
}

const messageOf = (e: unknown): string => {
  try {
    return e instanceof Error ? e.message : String(e)
  } catch {
    return "unreadable error"
  }
}

/**
 * The tool `make` answers for options it cannot use (past the types: a proxy whose traps throw, a getter
 * that throws, a revoked proxy, an `execute` that is not a function): no JSON Schema and `schemaError`
 * saying why, so preparing a call answers `InvalidToolSchema` and a session sends it with a schema that
 * holds nothing, as for parameters without a JSON Schema form. Its executor fails with a `ToolFailure`.
 */
const unusable = (name: string, reason: string): Tool<any, any> => ({
  [TypeId]: TypeId,
  name,
  description: "",
  jsonSchema: false,
  changes: [],
  warnings: [],
  schemaError: `the tool cannot be used: ${reason}`,
  decode: () => Either.left([{ path: "", field: "", keyword: "schema", expected: "a usable tool", message: `The tool cannot be used: ${reason}.` }]),
  execute: () => fail("execution_error", `The tool cannot be used: ${reason}.`)
})

/**
 * Makes a tool from an Effect Schema (turned into JSON Schema with `JSONSchema.make`) or a JSON Schema.
 * Never throws: options it cannot read or use give a tool whose `schemaError` says why (see `unusable`).
 */
export function make<A, I, R = never>(name: string, options: SchemaOptions<A, I, R>): Tool<A, R>
export function make<R = never>(name: string, options: JsonSchemaOptions<R>): Tool<J.JsonValue, R>
export function make(name: string, options: SchemaOptions<any, any, any> | JsonSchemaOptions<any>): Tool<any, any> {
  // a name that is not a string (past the types) is kept as given: `Toolkit.make` refuses it as `NotATool`
  if (typeof name !== "string") return unusable(name, "the name is not a string")
  const read = readOptions(options)
  if (typeof read === "string") return unusable(name, read)
  let parameters: ReturnType<typeof parametersOf<unknown>>
  let timeout: Duration.Duration | "none" | undefined | null
  try {
    parameters = parametersOf<unknown>(read.parameters)
    timeout = timeoutOf(read.timeout)
  } catch (e) {
    return unusable(name, `the parameters or the timeout could not be read (${messageOf(e)})`)
  }
  // a timeout that is no duration is the caller's mistake, never the default taken in silence
  if (timeout === null) return unusable(name, "`timeout` is neither \"none\" nor a duration above zero")
  return {
    [TypeId]: TypeId,
    name,
    description: read.description,
    jsonSchema: parameters.jsonSchema,
    changes: parameters.changes,
    warnings: warningsOf(name, parameters.jsonSchema),
    schemaError: parameters.schemaError,
    decode: parameters.decode,
    execute: read.execute,
    ...(read.undo === undefined ? {} : { undo: read.undo }),
    ...withTimeout(timeout),
    ...(read.keepEmptyStrings === true ? { keepEmptyStrings: true as const } : {})
  }
}

const withTimeout = (timeout: Duration.Duration | "none" | undefined) => timeout === undefined ? {} : { timeout }

/** Whether `u` was built by `make`. */
export const isTool = (u: unknown): u is Tool<unknown, unknown> => {
  try {
    return typeof u === "object" && u !== null && (u as { readonly [TypeId]?: unknown })[TypeId] === TypeId
  } catch {
    return false // a proxy whose trap throws is no tool
  }
}

/** The tool with its requirements provided from a context built once: its executor (and undo) need nothing. */
export const provideContext = <A, R>(tool: Tool<A, R>, context: Context.Context<R>): Tool<A, never> => {
  const { undo, ...rest } = tool
  return {
    ...rest,
    execute: (args, ctx) => Effect.provide(tool.execute(args, ctx), context),
    ...(undo === undefined ? {} : { undo: (args: A, ctx: CallContext & { readonly result: J.JsonValue }) => Effect.provide(undo(args, ctx), context) })
  }
}

/** The context an executor (and its undo) receives for `prepared`. */
export const contextOf = <A, R>(tool: Tool<A, R>, prepared: Prepared<A>, options?: RunOptions): CallContext => {
  const idempotencyKey = options?.idempotencyKey
  const onArtifact = options?.onArtifact
  return {
    tool: tool.name,
    callId: prepared.callId,
    raw: prepared.raw,
    prepared: prepared.value,
    coercions: prepared.coercions,
    idempotencyKey: typeof idempotencyKey === "string" ? idempotencyKey : prepared.callId,
    saveArtifact: (name, value) =>
      J.isJsonValue(value)
        ? Effect.sync(() => typeof onArtifact === "function" ? onArtifact(name, value) : undefined)
        : new Errors.ToolFailure({ kind: "execution_error", message: `The tool's artifact \`${name}\` is not JSON.` })
  }
}

/**
 * Runs prepared arguments and answers with an envelope: a result → `success` (an envelope the executor
 * returned itself passes through), a `ToolFailure` (or any failure) → `ToolEnvelope.fromError`, a defect
 * → `execution_error` and an `Effect.logError` with the cause. Interruption stays interruption.
 */
export const run = <A, R>(tool: Tool<A, R>, prepared: Prepared<A>, options?: RunOptions): Effect.Effect<ToolEnvelope.Envelope, never, R> => {
  let call: { readonly ctx: CallContext; readonly args: A } | ToolEnvelope.Envelope
  try {
    call = { ctx: contextOf(tool, prepared, options), args: prepared.args }
  } catch (e) {
    // prepared arguments or options that throw when read (past the types): the call fails, it does not throw
    call = ToolEnvelope.fromError(new Errors.ToolFailure({ kind: "execution_error", message: `The call could not be read (${messageOf(e)}).` }), tool.name)
  }
  if (!("ctx" in call)) return Effect.succeed(call)
  const { args, ctx } = call
  return Effect.map(Outcome.timed(tool, ctx.callId, Effect.suspend(() => tool.execute(args, ctx))), (t) => t.envelope).pipe(
    Telemetry.executeTool(tool.name, ctx.callId)
  )
}
