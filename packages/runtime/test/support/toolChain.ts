/**
 * Shared fixtures of the ToolChain tests: real tools, a real validator with tool chaining on, and the
 * helpers that prepare a call, resolve it and read the failure.
 */
import { assert } from "@effect/vitest"
import { Effect, Either } from "effect"
import { JsonValue } from "@toolgate/json-schema"
import { ArgumentValidator, Errors, Tool, ToolEnvelope } from "@toolgate/runtime"
import * as ToolChain from "../../src/ToolChain.js"

/** The seed's weather tool: `city` a string (required), `days` an integer, nothing else. */
export const weatherSchema = {
  type: "object",
  properties: { city: { type: "string" }, days: { type: "integer" } },
  required: ["city"],
  additionalProperties: false
} as const

/** A JSON Schema tool that counts its executions. */
export const counted = (name: string, parameters: Tool.JsonSchemaOptions<never>["parameters"]) => {
  const runs = { count: 0, last: undefined as unknown }
  const tool = Tool.make(name, {
    description: name,
    parameters,
    execute: (args) => Effect.sync(() => ((runs.last = args), ++runs.count))
  })
  return { runs, tool }
}

/** The weather tool, its executions counted. */
export const weather = counted("get_weather", weatherSchema).tool
/** A tool whose base schema takes any object, so only the refs decide. */
export const loose = counted("loose", { type: "object" }).tool

/** A success envelope of `result`. */
export const ok = (result: JsonValue.JsonValue) => ToolEnvelope.success(result, { tool: "lookup" })
/** A results map as a session builds one. */
export const results = (entries: ReadonlyArray<readonly [string, ToolEnvelope.Envelope]>): ToolChain.Results => new Map(entries)
/** `call_1` answered with a city, a temperature and two items. */
export const oslo = results([["call_1", ok({ city: "Oslo", temp: 3, items: [{ name: "a" }, { name: "b" }] })]])

/** A real validator with tool chaining on (an effect: a fresh one per use). */
export const validator = ArgumentValidator.make({ toolChaining: true })

/** The `Referencing` outcome of preparing `raw` for `tool` (the first half of what the session does). */
export const referencing = <A>(tool: Tool.Tool<A>, raw: unknown) =>
  Effect.gen(function*() {
    const v = yield* validator
    const outcome = yield* v.prepare(tool, raw, { callId: "call_2" })
    assert.strictEqual(outcome._tag, "Referencing", JsonValue.stringify(raw)?.slice(0, 200))
    return outcome as ArgumentValidator.Referencing
  })

/** Prepares `raw`, resolves its refs against `map`, and answers the outcome as an Either. */
export const chain = <A>(tool: Tool.Tool<A>, raw: unknown, map: ToolChain.Results) =>
  Effect.gen(function*() {
    const call = yield* referencing(tool, raw)
    return yield* Effect.either(ToolChain.resolve(yield* validator, tool, call, map))
  })

/** The `InvalidToolArguments` a resolve failed with. */
export const invalidOf = <A>(outcome: Either.Either<Tool.Prepared<A>, Errors.InvalidToolArguments | Errors.InvalidToolSchema>) => {
  assert.isTrue(Either.isLeft(outcome), "expected a failure")
  const e = Either.isLeft(outcome) ? outcome.left : undefined
  if (e?._tag !== "InvalidToolArguments") throw new Error(`expected InvalidToolArguments, got ${e?._tag}`)
  assert.deepStrictEqual([e.envelope.ok, e.envelope.kind, e.envelope.retryable], [false, "invalid_args", true])
  return e
}

/** Asserts a single-ref failure: the envelope's field, the issue's pointer and keyword, and a message fragment. */
export const assertRefIssue = (
  e: Errors.InvalidToolArguments,
  field: string,
  keyword: string,
  fragment: string
) => {
  assert.strictEqual(e.envelope.field, field === "" ? undefined : field)
  assert.strictEqual(e.issues[0]!.field, field)
  assert.strictEqual(e.issues[0]!.path, field === "" ? "" : `/${field.split(".").join("/")}`)
  assert.strictEqual(e.issues[0]!.keyword, keyword)
  assert.isAbove(e.issues[0]!.expected.length, 0)
  assert.include(e.envelope.message, fragment)
}

/** Arguments whose `city` is a ref to `tool` (default `call_1`), with `$path` when given. */
export const cityRef = (path: string | undefined, tool = "call_1") => ({ city: path === undefined ? { $tool: tool } : { $tool: tool, $path: path } })

