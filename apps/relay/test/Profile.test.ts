import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import { Faults, Profile } from "../src/index.js"
import { polluted } from "./fixtures.js"

const throwing = new Proxy({}, {
  get: () => { throw new Error("trap") },
  ownKeys: () => { throw new Error("trap") },
  getPrototypeOf: () => { throw new Error("trap") }
})

const deep = (levels: number): unknown => {
  let value: unknown = 1
  for (let i = 0; i < levels; i++) value = { a: value }
  return value
}

describe("Faults", () => {
  it("parses a comma list, blanks ignored", () => {
    assert.deepStrictEqual(Faults.parse(" slow, drop ,,"), Either.right(["slow", "drop"]))
    assert.deepStrictEqual(Faults.parse(""), Either.right([]))
    assert.deepStrictEqual(Faults.parse("slow,__proto__,constructor"), Either.left(["__proto__", "constructor"]))
  })

  it.prop("any list of faults round-trips through its comma list", [FastCheck.array(FastCheck.constantFrom(...Faults.all))], ([faults]) => {
    assert.deepStrictEqual(Faults.parse(faults.join(" , ")), Either.right(faults))
  })

  it.prop("a name that is not a fault is always reported", [FastCheck.string()], ([name]) => {
    const parsed = Faults.parse(`slow,${name}`)
    const names = name.split(",").map((n) => n.trim()).filter((n) => n !== "")
    assert.strictEqual(Either.isLeft(parsed), names.some((n) => !Faults.isFault(n)))
  })

  it("reads the delay header", () => {
    assert.deepStrictEqual(Faults.delayMs(undefined), Either.right(2_000))
    assert.deepStrictEqual(Faults.delayMs(" 150 "), Either.right(150))
    for (const bad of ["-1", "1.5", "1e3", "", "abc", "600001", "9".repeat(50)]) assert.isTrue(Either.isLeft(Faults.delayMs(bad)), bad)
    assert.isFalse(Faults.isFault(throwing))
    assert.isFalse(Faults.isFault("toString"))
  })
})

describe("Profile", () => {
  const profile = { capabilities_version: "1.3", tool_schemas: { t: { type: "object" } }, extra: 1, faults: ["slow"] }

  it("reads the faults a profile lists", () => {
    assert.deepStrictEqual(Profile.faults(profile), Either.right(["slow"]))
    assert.deepStrictEqual(Profile.faults({}), Either.right([]))
    assert.deepStrictEqual(Profile.faults("a string"), Either.right([]))
    assert.isTrue(Either.isLeft(Profile.faults({ faults: "slow" })))
    const unknown = Profile.faults({ faults: ["slow", "sloww", 3, { a: 1 }] })
    assert.isTrue(Either.isLeft(unknown) && /"sloww"/.test(unknown.left) && /number/.test(unknown.left))
  })

  it("serves the profile without its faults key, other keys as given", () => {
    assert.deepStrictEqual(Profile.capabilities(profile, []), { capabilities_version: "1.3", tool_schemas: { t: { type: "object" } }, extra: 1 })
  })

  it("applies predates, malformed and newer-major (predates wins)", () => {
    assert.deepStrictEqual(Profile.capabilities(profile, ["predates"]), { extra: 1 })
    assert.deepStrictEqual(Profile.capabilities(profile, ["malformed"]), { capabilities_version: "1.3", tool_schemas: Profile.malformedToolSchemas, extra: 1 })
    assert.deepStrictEqual(Profile.capabilities(profile, ["newer-major"]), { capabilities_version: "2.0", tool_schemas: { t: { type: "object" } }, extra: 1 })
    assert.deepStrictEqual(Profile.capabilities(profile, ["newer-major", "malformed"]), { capabilities_version: "2.0", tool_schemas: Profile.malformedToolSchemas, extra: 1 })
    assert.deepStrictEqual(Profile.capabilities(profile, ["predates", "newer-major", "malformed"]), { extra: 1 })
    assert.deepStrictEqual(Profile.capabilities({}, ["newer-major"]), { capabilities_version: "2.0", tool_schemas: {} })
    assert.deepStrictEqual(Profile.capabilities({ tool_schemas: {} }, ["malformed"]), { tool_schemas: Profile.malformedToolSchemas, capabilities_version: "1.0" })
  })

  it("serves a profile that is not an object as it is, or replaces it under a capability fault", () => {
    assert.strictEqual(Profile.capabilities("text", []), "text")
    assert.deepStrictEqual(Profile.capabilities([1], ["predates"]), {})
    assert.deepStrictEqual(Profile.capabilities(null, ["newer-major"]), { capabilities_version: "2.0", tool_schemas: {} })
    assert.deepStrictEqual(Profile.capabilities(7, ["malformed"]), { capabilities_version: "1.0", tool_schemas: Profile.malformedToolSchemas })
  })

  it("hostile profiles: __proto__ and constructor keys stay data, throwing proxies and deep values do not throw", () => {
    const parsed = JSON.parse("{\"__proto__\":{\"polluted\":true},\"constructor\":{\"prototype\":{\"polluted\":true}},\"faults\":[\"fail\"]}")
    const served = Profile.capabilities(parsed, ["newer-major"]) as Record<string, unknown>
    assert.isTrue(Object.hasOwn(served, "__proto__"))
    assert.isTrue(Object.hasOwn(served, "constructor"))
    assert.isFalse(Object.hasOwn(served, "faults"))
    assert.isFalse(polluted())
    assert.deepStrictEqual(Profile.faults(throwing), Either.right([]))
    assert.strictEqual(Profile.capabilities(throwing, []), throwing)
    assert.deepStrictEqual(Profile.capabilities(throwing, ["predates"]), {})
    const nested = { tool_schemas: deep(10_000) }
    assert.strictEqual((Profile.capabilities(nested, []) as { tool_schemas: unknown }).tool_schemas, nested.tool_schemas)
    assert.deepStrictEqual(Profile.faults({ faults: [deep(10_000)] }).pipe(Either.isLeft), true)
  })

  it.prop("never throws and never serves a faults key, for any JSON profile and faults", [
    FastCheck.jsonValue(),
    FastCheck.subarray([...Faults.all])
  ], ([profile, faults]) => {
    const served = Profile.capabilities(profile, faults)
    const isObject = typeof served === "object" && served !== null && !Array.isArray(served)
    if (isObject) assert.isFalse(Object.hasOwn(served, "faults"))
    if (faults.includes("predates")) assert.isTrue(isObject && !Object.hasOwn(served, "capabilities_version") && !Object.hasOwn(served, "tool_schemas"))
    else if (faults.includes("newer-major")) assert.strictEqual((served as { capabilities_version: unknown }).capabilities_version, "2.0")
  })
})
