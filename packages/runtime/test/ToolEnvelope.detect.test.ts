import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, FastCheck as fc, Option } from "effect"
import { ToolEnvelope } from "@toolgate/runtime"

const { classify, failureMessage, isError, isSuccess, successPayload } = ToolEnvelope

const nested = (levels: number, open: string, close: string, inner = "0") => `${open.repeat(levels)}${inner}${close.repeat(levels)}`

describe("ToolEnvelope detectors", () => {
  it("recognise current envelopes in strings and parsed values", () => {
    const ok = "{\"ok\":true,\"tool\":\"w\",\"result\":{\"path\":\"/a\",\"size\":1}}"
    const bad = "{\"ok\":false,\"kind\":\"not_found\",\"message\":\"No such file\",\"retryable\":false}"
    assert.isTrue(isSuccess(ok) && !isError(ok))
    assert.isTrue(isError(bad) && !isSuccess(bad))
    assert.isTrue(isSuccess(JSON.parse(ok)) && isError(JSON.parse(bad)))
    assert.deepStrictEqual(successPayload(ok), Option.some({ path: "/a", size: 1 }))
    assert.deepStrictEqual(successPayload(bad), Option.none())
    assert.strictEqual(failureMessage(bad), "No such file")
    assert.strictEqual(failureMessage(ok), ok)
    assert.deepStrictEqual(classify(`  \n${bad}`), { _tag: "Failure", kind: "not_found", message: "No such file", retryable: false, legacy: false })
  })

  it("a loose success without a result is a success with no payload; a loose failure gets defaults", () => {
    assert.isTrue(isSuccess("{\"ok\":true}"))
    assert.deepStrictEqual(successPayload("{\"ok\":true}"), Option.none())
    assert.deepStrictEqual(successPayload("{\"ok\":true,\"result\":null}"), Option.some(null))
    assert.deepStrictEqual(classify("{\"ok\":false}"), {
      _tag: "Failure", kind: "execution_error", message: "The tool failed without a message.", retryable: true, legacy: false
    })
    assert.deepStrictEqual(classify("{\"ok\":false,\"kind\":\"rejected\",\"message\":\"m\",\"retryable\":\"no\"}"), {
      _tag: "Failure", kind: "rejected", message: "m", retryable: false, legacy: false
    })
  })

  it("recognise the legacy [REJECTED] and [TIMEOUT] prefixes", () => {
    assert.deepStrictEqual(classify("[REJECTED] Path outside the agent home"), {
      _tag: "Failure", kind: "rejected", message: "Path outside the agent home", retryable: false, legacy: true
    })
    assert.deepStrictEqual(classify("  [TIMEOUT]  ran past 120 s\n"), {
      _tag: "Failure", kind: "timeout", message: "ran past 120 s", retryable: true, legacy: true
    })
    assert.strictEqual(failureMessage("[TIMEOUT]"), "[TIMEOUT]")
    assert.isTrue(isError(JSON.stringify("[REJECTED] quoted")))
    assert.strictEqual(failureMessage(JSON.stringify("[REJECTED] quoted")), "quoted")
    // the prefix must lead: mentioning it later, or a near miss, is not a legacy error
    for (const s of ["ok [REJECTED]", "[rejected] x", "[REJECT] x", "REJECTED x", "[ TIMEOUT] x"]) {
      assert.deepStrictEqual(classify(s), { _tag: "Neither" }, s)
    }
  })

  it("recognise the legacy { error } object", () => {
    assert.deepStrictEqual(classify("{\"error\":\"Permission denied\",\"code\":\"rejected\"}"), {
      _tag: "Failure", kind: "rejected", message: "Permission denied", retryable: false, legacy: true
    })
    assert.deepStrictEqual(classify({ error: { message: "Disk full", code: 28 }, retryable: false }), {
      _tag: "Failure", kind: "execution_error", message: "Disk full", retryable: false, legacy: true
    })
    assert.deepStrictEqual(classify({ error: { code: 1 }, message: "outer message", kind: "unavailable" }), {
      _tag: "Failure", kind: "unavailable", message: "outer message", retryable: true, legacy: true
    })
    assert.strictEqual(failureMessage("{\"error\":\"old style\"}"), "old style")
    // an empty error, an error that is not text, or an object that also says ok is not the legacy shape
    for (const v of ["{\"error\":\"\"}", "{\"error\":42}", "{\"error\":null}", "{\"error\":{}}", "{\"ok\":\"no\",\"error\":\"x\"}", "{\"ok\":null,\"error\":\"x\"}"]) {
      assert.deepStrictEqual(classify(v), { _tag: "Neither" }, v)
    }
  })

  it("a string that is neither is neither success nor error", () => {
    const garbage = [
      "", " ", "hello", "null", "true", "42", "[1,2]", "\"plain json string\"", "{", "{\"ok\":tru", "{\"ok\":true",
      "{\"ok\":\"true\",\"result\":1}", "{\"ok\":1}", "{\"result\":1}", "{}", "[{\"ok\":true,\"result\":1}]",
      "\u0000\uFFFF\uD800", "{\"ok\":true}garbage", "NaN"
    ]
    for (const s of garbage) {
      assert.isFalse(isSuccess(s), s)
      assert.isFalse(isError(s), s)
      assert.strictEqual(failureMessage(s), s)
      assert.deepStrictEqual(successPayload(s), Option.none())
    }
  })

  it.prop("every truncation of an encoded envelope is neither", [Arbitrary.make(ToolEnvelope.Envelope), fc.double({ min: 0, max: 1, noNaN: true })], ([envelope, at]) => {
    const json = ToolEnvelope.encode(envelope)
    const cut = json.slice(0, Math.min(json.length - 1, Math.floor(at * json.length)))
    assert.deepStrictEqual(classify(cut), { _tag: "Neither" })
  })

  it.prop("arbitrary text never throws and is a failure only when it carries a legacy prefix", [fc.string({ maxLength: 300 })], ([s]) => {
    const d = classify(s)
    if (d._tag === "Failure") {
      const t = s.trimStart()
      assert.isTrue(t.startsWith("[REJECTED]") || t.startsWith("[TIMEOUT]") || t.startsWith("{") || t.startsWith("\""))
    }
    assert.isString(failureMessage(s))
  })

  it("__proto__ and constructor keys cannot fake an envelope or pollute a prototype", () => {
    const s = "{\"__proto__\":{\"ok\":true,\"result\":1},\"constructor\":{\"prototype\":{\"ok\":false}}}"
    assert.deepStrictEqual(classify(s), { _tag: "Neither" })
    assert.deepStrictEqual(classify(JSON.parse(s)), { _tag: "Neither" })
    assert.isTrue(isSuccess("{\"__proto__\":{\"ok\":false},\"ok\":true,\"result\":{\"__proto__\":1}}"))
    assert.isUndefined(({} as Record<string, unknown>)["ok"])
    // values inherited from a (polluted) prototype are never read
    const proto = Object.prototype as Record<string, unknown>
    try {
      proto["ok"] = true
      proto["error"] = "inherited"
      assert.deepStrictEqual(classify({}), { _tag: "Neither" })
      assert.deepStrictEqual(classify("{}"), { _tag: "Neither" })
    } finally {
      delete proto["ok"]
      delete proto["error"]
    }
  })

  it("parsed values: getters are never invoked and hostile objects are neither", () => {
    let invoked = 0
    const getter = Object.defineProperty({}, "ok", { get: () => (invoked++, true), enumerable: true })
    assert.deepStrictEqual(classify(getter), { _tag: "Neither" })
    assert.strictEqual(invoked, 0)
    const thrower = () => {
      throw new Error("trap")
    }
    const trapAll = new Proxy({}, { get: thrower, getOwnPropertyDescriptor: thrower, getPrototypeOf: thrower, ownKeys: thrower })
    const revocable = Proxy.revocable({}, {})
    revocable.revoke()
    const badToString = { toString: thrower, toJSON: thrower, [Symbol.toPrimitive]: thrower }
    for (const v of [trapAll, revocable.proxy, badToString, undefined, null, 1n, Symbol("s"), () => 1, [1], Object.create(null)]) {
      assert.isFalse(isSuccess(v) || isError(v))
      assert.isString(failureMessage(v))
      assert.deepStrictEqual(successPayload(v), Option.none())
    }
    const nullProto = Object.assign(Object.create(null) as object, { ok: false, kind: "timeout", message: "late" })
    assert.strictEqual(failureMessage(nullProto), "late")
  })

  it("10 MB strings", () => {
    const big = "x".repeat(10_000_000)
    assert.isFalse(isSuccess(big) || isError(big))
    const ok = `{"ok":true,"result":"${big}"}`
    assert.isTrue(isSuccess(ok))
    assert.strictEqual(Option.getOrThrow(successPayload(ok)), big)
    assert.strictEqual(failureMessage(`[TIMEOUT] ${big}`), big)
    assert.isFalse(isError(`{"ok":false,"message":"${big}"`))
  })

  it("10,000-level nesting", () => {
    assert.deepStrictEqual(classify(nested(10_000, "[", "]")), { _tag: "Neither" })
    assert.deepStrictEqual(classify(nested(10_000, "{\"a\":", "}")), { _tag: "Neither" })
    assert.isTrue(isSuccess(`{"ok":true,"result":${nested(10_000, "[", "]")}}`))
    assert.isTrue(isError(`{"ok":false,"kind":"timeout","message":"m","retryable":true,"extra":${nested(10_000, "{\"a\":", "}")}}`))
    assert.isFalse(isSuccess(nested(200_000, "[", "]")))
  })
})
