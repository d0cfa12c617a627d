/**
 * For apps that keep @effect/ai's own tool loop: an @effect/ai toolkit whose calls go through toolgate's
 * argument validation and answer with envelopes. @effect/ai decodes a call's `params` with the tool's
 * Effect Schema and fails the whole `generateText` with `AiError.MalformedOutput` when they do not fit
 * (`days: "15"` for an integer ends the request, and the model never hears why). Wrapped, every call is
 * `Arguments.prepare`d against the tool's JSON Schema first: near misses are coerced (lenient policy),
 * arguments that still do not fit become an `invalid_args` envelope the model reads as the tool's result,
 * and what the handler returns or fails with comes back as a success or failure envelope.
 *
 * @since 0.1.0
 */
import type * as AiError from "@effect/ai/AiError"
import * as AiTool from "@effect/ai/Tool"
import type * as AiToolkit from "@effect/ai/Toolkit"
import { Arguments, JsonSchema, JsonValue } from "@toolgate/json-schema"
import { Telemetry, ToolEnvelope } from "@toolgate/runtime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as RawParameters from "./internal/rawParameters.js"

/** How arguments are prepared. */
export interface Options {
  /** `lenient` (the default) coerces near-miss arguments before validating; `strict` only validates. */
  readonly policy?: Arguments.Policy
}

/** A wrapped user-defined tool: same name, description and JSON Schema; undecoded arguments; an envelope as its result. */
export type Validated<T> = T extends AiTool.AnyProviderDefined ? T
  : AiTool.Tool<AiTool.Name<T>, {
    readonly parameters: RawParameters.RawParameters
    readonly success: typeof ToolEnvelope.Envelope
    readonly failure: typeof ToolEnvelope.Envelope
    readonly failureMode: "return"
  }, AiTool.Requirements<T>>

/** The tools of a wrapped toolkit. */
export type ValidatedTools<Tools extends Record<string, AiTool.Any>> = { readonly [K in keyof Tools]: Validated<Tools[K]> }

/** What the wrapped handler gives @effect/ai for one call. */
type Answer = AiTool.HandlerResult<AiTool.Any>


/**
 * Wraps a toolkit with its handlers (what `yield* MyToolkit` gives). Pass the result as `toolkit` to
 * `generateText` / `streamText`, or map the unresolved toolkit: `Effect.map(MyToolkit, (t) => wrap(t))`.
 * Provider-defined tools (web search, code execution) are kept as they are.
 */
export const wrap = <Tools extends Record<string, AiTool.Any>>(
  toolkit: AiToolkit.WithHandler<Tools>,
  options?: Options
): AiToolkit.WithHandler<ValidatedTools<Tools>> => {
  // per user-defined tool: its JSON Schema (Effect writes draft-07) brought to 2020-12, as toolgate validates,
  // compiled once here
  const preparers = new Map<string, Arguments.Preparer>()
  const tools: Record<string, AiTool.Any> = Object.create(null) // a tool named `__proto__` is a key like any other
  for (const [key, tool] of Object.entries(toolkit.tools)) {
    if (AiTool.isProviderDefined(tool)) {
      tools[key] = tool
      continue
    }
    const declared = AiTool.getJsonSchema(tool as AiTool.Tool<string, any>)
    preparers.set(tool.name, Arguments.preparer(JsonSchema.upgrade(declared).schema))
    tools[key] = validated(tool, declared)
  }
  const handle = handler(preparers, tools, toolkit.handle as Original, options?.policy ?? "lenient")
  return { tools: tools as ValidatedTools<Tools>, handle: handle as unknown as AiToolkit.WithHandler<ValidatedTools<Tools>>["handle"] }
}

/** The toolkit's own `handle`, as the wrapper calls it. */
type Original = (name: string, params: unknown) => Effect.Effect<Answer, unknown, unknown>

/** The wrapped form of a user-defined tool: its name, description, annotations and JSON Schema; envelopes out. */
const validated = (tool: AiTool.Any, declared: ReturnType<typeof AiTool.getJsonSchema>): AiTool.Any =>
  AiTool.make(tool.name, {
    description: AiTool.getDescription(tool as AiTool.Tool<string, any>),
    success: ToolEnvelope.Envelope,
    failure: ToolEnvelope.Envelope,
    failureMode: "return"
  }).setParameters(RawParameters.make(declared)).annotateContext(tool.annotations)

/** The wrapped `handle`: prepare, then run the original on the prepared value; every answer an envelope. */
const handler = (preparers: ReadonlyMap<string, Arguments.Preparer>, tools: Record<string, AiTool.Any>, original: Original, policy: Arguments.Policy) =>
  Effect.fnUntraced(function*(name: string, params: unknown) {
    const prepare = preparers.get(name)
    if (prepare === undefined) {
      // a provider-defined tool runs as the toolkit runs it; a name the toolkit lacks is tool_not_found
      return yield* (Object.hasOwn(tools, name) ? original(name, params) : Effect.succeed(answer(notFound(name, Object.keys(tools)))))
    }
    const prepared = prepare(params, { policy })
    switch (prepared._tag) {
      case "SchemaError":
        yield* Effect.logError(`Tool \`${name}\` has a parameter schema that cannot be compiled`, prepared.message)
        return answer(ToolEnvelope.failure("unavailable", `Tool \`${name}\` cannot run: its parameter schema is invalid (${prepared.message}).`, { tool: name, retryable: false }))
      case "Invalid":
        return answer(ToolEnvelope.fromIssues(prepared.issues, name))
      case "Valid":
        return yield* run(original, name, prepared.value)
    }
  }, (effect, name) => effect.pipe(Telemetry.span("ValidatingToolkit.handle", { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name })))

/** Runs the original handler on prepared arguments; every outcome but interruption is an envelope. */
const run = (original: Original, name: string, value: JsonValue.JsonValue) =>
  original(name, value).pipe(
    Effect.map((outcome) => answer(outcome.isFailure ? ToolEnvelope.fromError(outcome.result, name) : succeeded(outcome.encodedResult, name))),
    // a failure is the model's answer here (an envelope it reads), not an error to hide
    Effect.catchAll((error) => Effect.succeed(answer(failed(error, name)))),
    Effect.catchAllDefect((defect) =>
      Effect.as(Effect.logError(`Tool \`${name}\` died`, Cause.die(defect)), answer(ToolEnvelope.fromError(defect, name)))
    )
  )

/** A result as the success envelope's `result` (`undefined`, a `Schema.Void` result, is `null`). */
const succeeded = (encoded: unknown, name: string): ToolEnvelope.Envelope =>
  JsonValue.isJsonValue(encoded)
    ? ToolEnvelope.success(encoded, { tool: name })
    : encoded === undefined
    ? ToolEnvelope.success(null, { tool: name })
    : ToolEnvelope.failure("execution_error", `Tool \`${name}\` returned a value that is not JSON.`, { tool: name, retryable: false })

/**
 * A failure of the original `handle`: `MalformedOutput` is arguments the JSON Schema accepted and the
 * tool's Effect Schema rejected (a filter JSON Schema cannot state), so the model may fix them; anything
 * else (the handler's own error, a result that does not fit its schema) maps by `ToolEnvelope.fromError`.
 */
const failed = (error: unknown, name: string): ToolEnvelope.Envelope =>
  isMalformedOutput(error)
    ? ToolEnvelope.failure("invalid_args", `The arguments of \`${name}\` do not fit its schema: ${decodeMessage(error)}`, { tool: name })
    : ToolEnvelope.fromError(error, name)

const isMalformedOutput = (u: unknown): u is AiError.MalformedOutput =>
  typeof u === "object" && u !== null && (u as { readonly _tag?: unknown })._tag === "MalformedOutput"

/** The decode failure's own words (the ParseError's tree), not @effect/ai's wrapper around them. */
const decodeMessage = (error: AiError.MalformedOutput): string => {
  const cause = error.cause
  return typeof cause === "object" && cause !== null && "message" in cause && typeof cause.message === "string" ? cause.message : error.message
}

const notFound = (name: string, known: ReadonlyArray<string>): ToolEnvelope.Envelope =>
  ToolEnvelope.failure("tool_not_found", `No tool \`${name}\`; the tools are: ${known.join(", ")}.`, { tool: name })

/** An envelope as @effect/ai's handler result: the model reads `encodedResult`, `isFailure` is `!ok`. */
const answer = (envelope: ToolEnvelope.Envelope): Answer => {
  const encoded: unknown = JSON.parse(ToolEnvelope.encode(envelope))
  return { result: envelope, encodedResult: encoded, isFailure: !envelope.ok } as Answer
}
