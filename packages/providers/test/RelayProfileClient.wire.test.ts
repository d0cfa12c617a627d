import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck as fc, Schema } from "effect"
import { classify, Envelope, malformed } from "../src/internal/relayProfileWire.js"

/** The body as `RelayProfileClient` reads it: the Envelope decode, then the classification. */
const read = (body: unknown) => {
  const decoded = Schema.decodeUnknownEither(Envelope, { errors: "all" })(body)
  return Either.isLeft(decoded) ? Either.left(malformed(decoded.left)) : classify(decoded.right)
}

const isPlainObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

// Any JSON text as the relay might send it (parsed, so `__proto__` keys are own keys as on the wire).
const body = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.record({ capabilities_version: fc.jsonValue({ maxDepth: 1 }), tool_schemas: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }),
  fc.dictionary(fc.constantFrom("capabilities_version", "tool_schemas", "__proto__", "documents"), fc.jsonValue({ maxDepth: 2 }))
).map((v) => JSON.parse(JSON.stringify(v)) as unknown)

describe("RelayProfileClient wire classification (properties)", () => {
  it.prop("any JSON body is classified by the presence of the two keys, and never throws", [body], ([value]) => {
    const outcome = read(value)
    if (!isPlainObject(value)) {
      return Either.isLeft(outcome) && outcome.left.reason === "malformed"
    }
    const hasVersion = Object.hasOwn(value, "capabilities_version"), hasTools = Object.hasOwn(value, "tool_schemas")
    if (!hasVersion && !hasTools) return Either.isRight(outcome) && outcome.right._tag === "Predates"
    if (hasVersion !== hasTools) return Either.isLeft(outcome) && outcome.left.reason === "incomplete"
    return Either.isLeft(outcome) || outcome.right._tag === "Exported"
  })

  it.prop("\"M.m\" versions: exported exactly when M is 1, unsupported_version otherwise", [fc.nat(1_000_000), fc.nat(1_000_000)], ([major, minor]) => {
    const outcome = read({ capabilities_version: `${major}.${minor}`, tool_schemas: {} })
    return major === 1
      ? Either.isRight(outcome) && outcome.right._tag === "Exported"
      : Either.isLeft(outcome) && outcome.left.reason === "unsupported_version"
  })

  it.prop("every own tool name survives decoding, hostile names included", [
    fc.dictionary(
      fc.oneof(fc.string(), fc.constantFrom("__proto__", "constructor", "prototype", "hasOwnProperty", "toString")),
      fc.oneof(fc.boolean(), fc.constant({ type: "object" }), fc.constant({}))
    )
  ], ([tools]) => {
    const wire = JSON.parse(JSON.stringify({ capabilities_version: "1.3", tool_schemas: tools })) as unknown
    const outcome = read(wire)
    if (Either.isLeft(outcome) || outcome.right._tag !== "Exported") return false
    const sent = Object.keys((wire as { tool_schemas: object }).tool_schemas)
    assert.deepStrictEqual([...outcome.right.toolSchemas.keys()], sent)
    return Object.getPrototypeOf({}) === Object.prototype && !("type" in {})
  })

  it.prop("any non-schema entry makes the whole export malformed, naming it", [
    fc.string(),
    fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.array(fc.jsonValue({ maxDepth: 1 })))
  ], ([name, entry]) => {
    const wire = JSON.parse(JSON.stringify({ capabilities_version: "1.0", tool_schemas: { ok: {}, [name]: entry } })) as unknown
    const outcome = read(wire)
    return Either.isLeft(outcome) && outcome.left.reason === "malformed" && outcome.left.detail.includes(JSON.stringify(name))
  })
})
