import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Cause, Schema } from "effect"
import { Arguments, type Validator } from "@toolgate/json-schema"
import { Errors, ToolEnvelope } from "@toolgate/runtime"

const deep = (levels: number): unknown => {
  let v: unknown = 0
  for (let i = 0; i < levels; i++) v = i % 2 === 0 ? [v] : { k: v }
  return v
}

const issue = (field: string, message: string, expected = "string"): ToolEnvelope.Issue => ({
  path: field === "" ? "" : `/${field.split(".").join("/")}`,
  field,
  keyword: "type",
  expected,
  message
})

describe("ToolEnvelope.fromIssues", () => {
  it("one issue becomes one invalid_args envelope with its field and expected", () => {
    assert.deepStrictEqual(
      ToolEnvelope.fromIssues([issue("content", "Missing required argument `content` (string).", "non-empty string of file contents")], "write"),
      {
        ok: false,
        kind: "invalid_args",
        message: "Missing required argument `content` (string).",
        field: "content",
        expected: "non-empty string of file contents",
        tool: "write",
        retryable: true
      }
    )
  })

  it("several issues are listed; field and expected come from the first", () => {
    const f = ToolEnvelope.fromIssues([issue("a.0", "A is wrong.", "integer"), issue("b", "B is wrong.")])
    assert.strictEqual(f.message, "2 arguments are invalid:\n- A is wrong.\n- B is wrong.")
    assert.strictEqual(f.field, "a.0")
    assert.strictEqual(f.expected, "integer")
    assert.isUndefined(f.tool)
  })

  it("lists at most 20 issues and says how many more", () => {
    const issues = Array.from({ length: 25 }, (_, i) => issue(`k${i}`, `Issue ${i}.`))
    const f = ToolEnvelope.fromIssues(issues)
    assert.isTrue(f.message.startsWith("25 arguments are invalid:\n- Issue 0."))
    assert.isTrue(f.message.includes("- Issue 19.") && !f.message.includes("- Issue 20."))
    assert.isTrue(f.message.endsWith("- … and 5 more"))
  })

  it("an Invalid from Arguments.prepare becomes one envelope in one call", () => {
    const schema = {
      type: "object",
      properties: { content: { type: "string", description: "non-empty string of file contents" }, n: { type: "integer" } },
      required: ["content"],
      additionalProperties: false
    }
    const prepared = Arguments.prepare(schema, "{\"n\":\"x\"}")
    assert.strictEqual(prepared._tag, "Invalid")
    const issues: ReadonlyArray<Validator.Issue> = prepared._tag === "Invalid" ? prepared.issues : []
    const f = ToolEnvelope.fromIssues(issues, "sandbox_write_file")
    assert.strictEqual(f.kind, "invalid_args")
    assert.strictEqual(f.field, issues[0]!.field)
    assert.strictEqual(f.expected, issues[0]!.expected)
    assert.include(f.message, issues[0]!.message)
    assert.include(f.message, issues[issues.length - 1]!.message)
    for (const i of issues) assert.isTrue(Schema.is(Errors.Issue)(i))
  })

  it("the whole-arguments issue has no field; no issues still gives a message; hostile input does not throw", () => {
    const whole = ToolEnvelope.fromIssues([issue("", "The arguments must be an object.", "")])
    assert.deepStrictEqual(whole, { ok: false, kind: "invalid_args", message: "The arguments must be an object.", retryable: true })
    assert.strictEqual(ToolEnvelope.fromIssues([]).message, "The arguments are invalid.")
    const huge = ToolEnvelope.fromIssues([issue("x", "m".repeat(10_000_000))])
    assert.isTrue(huge.message.length <= 10_000)
    assert.strictEqual(ToolEnvelope.fromIssues(null as never).message, "The arguments are invalid.")
    const throwing = { get message(): string { throw new Error("no") }, get field(): string { throw new Error("no") } }
    assert.strictEqual(ToolEnvelope.fromIssues([throwing as never]).message, "Invalid argument.")
  })
})

describe("ToolEnvelope.fromError", () => {
  it("maps each runtime error by tag, taking its message, tool and retryable", () => {
    const cases: ReadonlyArray<readonly [Errors.ToolgateError, ToolEnvelope.Kind, boolean]> = [
      [new Errors.SchemaDriftError({ tool: "w", reasons: [], witness: null, drifted: ["w"] }), "rejected", false],
      [new Errors.UnsupportedCloudToolSchema({ tool: "w", construct: "patternProperties", path: "/x" }), "rejected", false],
      [new Errors.RelayProfileContractError({ reason: "malformed", detail: "d" }), "unavailable", false],
      [new Errors.ToolArgumentRepairExhausted({ limit: 1, attempts: 2, lastIssues: [] }), "invalid_args", false],
      [new Errors.ProviderEventContractViolation({ rule: "missing_done" }), "execution_error", true],
      [new Errors.RoundTripLimitExceeded({ limit: 10 }), "rejected", false],
      [new Errors.ToolChoiceUnsupported({ choice: "required", provider: "p" }), "unavailable", false],
      [new Errors.StructuredOutputUnsupported({ provider: "p" }), "unavailable", false],
      [new Errors.StructuredOutputInvalid({ detail: "d" }), "execution_error", true],
      [new Errors.ProviderError({ provider: "p", reason: "503", retryable: true }), "unavailable", true],
      [new Errors.ProviderError({ provider: "p", reason: "401", retryable: false }), "unavailable", false]
    ]
    for (const [error, kind, retryable] of cases) {
      const f = ToolEnvelope.fromError(error)
      assert.deepStrictEqual([f.kind, f.retryable, f.message], [kind, retryable, error.message], error._tag)
    }
    assert.strictEqual(ToolEnvelope.fromError(cases[0]![0]).tool, "w")
    assert.strictEqual(ToolEnvelope.fromError(cases[0]![0], "other").tool, "other")
  })

  it("a repair exhaustion points at the first issue of the round that exhausted it", () => {
    const e = new Errors.ToolArgumentRepairExhausted({ limit: 1, attempts: 2, lastIssues: [issue("city", "Missing `city`.", "city name")] })
    const f = ToolEnvelope.fromError(e, "get_weather")
    assert.deepStrictEqual([f.kind, f.field, f.expected, f.tool, f.retryable], ["invalid_args", "city", "city name", "get_weather", false])
  })

  it("maps a tool-failure-like value by its kind, an Error, a string and a TimeoutException", () => {
    assert.deepStrictEqual(
      ToolEnvelope.fromError({ kind: "not_found", message: "No such file: a.txt", field: "path" }, "read"),
      { ok: false, kind: "not_found", message: "No such file: a.txt", field: "path", tool: "read", retryable: false }
    )
    assert.deepStrictEqual(ToolEnvelope.fromError(ToolEnvelope.failure("user_denied", "Denied", { retryable: true })), ToolEnvelope.failure("user_denied", "Denied", { retryable: true }))
    assert.deepStrictEqual(ToolEnvelope.fromError(new Error("disk full")), ToolEnvelope.failure("execution_error", "disk full"))
    assert.strictEqual(ToolEnvelope.fromError(new TypeError("x is not a function")).message, "TypeError: x is not a function")
    assert.strictEqual(ToolEnvelope.fromError("exit 1").message, "exit 1")
    assert.strictEqual(ToolEnvelope.fromError(new Cause.TimeoutException()).kind, "timeout")
    assert.strictEqual(ToolEnvelope.fromError({ kind: "bogus", message: "m" }).kind, "execution_error")
    assert.strictEqual(ToolEnvelope.fromError({ message: "plain object" }).message, "plain object")
  })

  it("never throws on hostile values and always gives a valid envelope", () => {
    const thrower = () => {
      throw new Error("hostile")
    }
    const revocable = Proxy.revocable({}, {})
    revocable.revoke()
    const getters = Object.defineProperties({}, {
      kind: { get: thrower },
      message: { get: thrower },
      _tag: { get: thrower },
      toString: { get: thrower },
      [Symbol.toPrimitive]: { get: thrower }
    })
    const badError = new Error("x")
    Object.defineProperty(badError, "message", { get: thrower })
    Object.defineProperty(badError, "name", { get: thrower })
    const trapAll = new Proxy({}, {
      get: thrower, getPrototypeOf: thrower, getOwnPropertyDescriptor: thrower, has: thrower, ownKeys: thrower
    })
    const values: ReadonlyArray<unknown> = [
      undefined, null, 0, Number.NaN, 1n, Symbol("s"), true, "", "   ", thrower, Object.create(null),
      revocable.proxy, getters, badError, trapAll, deep(10_000), new Error("m".repeat(10_000_000)),
      "s".repeat(10_000_000), JSON.parse("{\"__proto__\":{\"kind\":\"rejected\"},\"constructor\":{\"prototype\":{\"kind\":\"timeout\"}}}"),
      [1, 2, 3], new Map(), Promise.resolve(1)
    ]
    for (const value of values) {
      const f = ToolEnvelope.fromError(value, "t")
      assert.isTrue(Schema.is(ToolEnvelope.Failure)(f))
      assert.strictEqual(f.tool, "t")
      assert.isTrue(f.message.length > 0 && f.message.length <= 10_000)
    }
    assert.strictEqual(ToolEnvelope.fromError(JSON.parse("{\"__proto__\":{\"kind\":\"rejected\"}}")).kind, "execution_error")
    assert.isUndefined(({} as Record<string, unknown>)["kind"])
  })

  // a `ToolFailure` is mapped by its own kind and message (above); every other typed error by its tag
  const mapped = Arbitrary.make(Errors.ToolgateError).filter((e) => e._tag !== "ToolFailure")
  it.prop("maps any runtime error to a valid failure with the error's message", [mapped], ([error]) => {
    const f = ToolEnvelope.fromError(error)
    assert.isTrue(Schema.is(ToolEnvelope.Failure)(f))
    assert.strictEqual(f.message, ToolEnvelope.truncateForModel(error.message, 10_000))
  })
})

describe("ToolEnvelope.fromError: file system errors", () => {
  it("a missing file is not_found, a refused permission rejected, from Node's errors and @effect/platform's SystemError alike", async () => {
    const fs = await import("node:fs/promises")
    const missing = await fs.readFile("/nonexistent/toolgate/file").catch((e: unknown) => e)
    const notDir = await fs.readFile("/etc/hostname/child").catch((e: unknown) => e)
    const envelope = ToolEnvelope.fromError(missing, "read_file")
    assert.strictEqual(envelope.kind, "not_found")
    assert.include(envelope.message, "ENOENT")
    assert.strictEqual(ToolEnvelope.fromError(notDir).kind, "not_found")
    for (const code of ["EACCES", "EPERM"]) {
      assert.strictEqual(ToolEnvelope.fromError(Object.assign(new Error(`${code}: denied`), { code })).kind, "rejected")
    }
    const { SystemError } = await import("@effect/platform/Error")
    const platform = new SystemError({ reason: "NotFound", module: "FileSystem", method: "readFile", pathOrDescriptor: "/x" })
    assert.strictEqual(ToolEnvelope.fromError(platform).kind, "not_found")
    const denied = new SystemError({ reason: "PermissionDenied", module: "FileSystem", method: "readFile", pathOrDescriptor: "/x" })
    assert.strictEqual(ToolEnvelope.fromError(denied).kind, "rejected")
    assert.strictEqual(ToolEnvelope.fromError(Object.assign(new Error("busy"), { code: "EBUSY" })).kind, "execution_error")
    assert.strictEqual(ToolEnvelope.fromError({ code: "ENOENT" }).kind, "not_found")
  })
})
