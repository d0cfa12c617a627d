import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck as fc, JSONSchema, Schema } from "effect"
import { Validator } from "@toolgate/json-schema"
import { ToolEnvelope } from "@toolgate/runtime"

const roundTrip = (envelope: ToolEnvelope.Envelope) => {
  const json = ToolEnvelope.encode(envelope)
  const back = ToolEnvelope.decode(json)
  assert.isTrue(Either.isRight(back), json)
  return { json, back: Either.getOrThrow(back) }
}

const deep = (levels: number): unknown => {
  let v: unknown = 0
  for (let i = 0; i < levels; i++) v = i % 2 === 0 ? [v] : { k: v }
  return v
}

const thrower = (): never => {
  throw new Error("hostile")
}

const revoked = () => {
  const r = Proxy.revocable({}, {})
  r.revoke()
  return r.proxy
}

describe("ToolEnvelope schemas", () => {
  it.prop("encode → decode gives back the same envelope, and the detectors agree with ok", [
    Arbitrary.make(ToolEnvelope.Envelope)
  ], ([envelope]) => {
    const { back, json } = roundTrip(envelope)
    assert.deepStrictEqual(back, envelope)
    assert.isTrue(json.startsWith("{\"ok\":"))
    assert.strictEqual(ToolEnvelope.isSuccess(json), envelope.ok)
    assert.strictEqual(ToolEnvelope.isError(json), !envelope.ok)
    assert.strictEqual(ToolEnvelope.isSuccess(JSON.parse(json)), envelope.ok)
    assert.strictEqual(ToolEnvelope.isError(JSON.parse(json)), !envelope.ok)
  }, { fastCheck: { numRuns: 300 } })

  it.prop("a success's payload and a failure's message survive detection", [
    Arbitrary.make(ToolEnvelope.Envelope)
  ], ([envelope]) => {
    const json = ToolEnvelope.encode(envelope)
    if (envelope.ok) {
      assert.deepStrictEqual(ToolEnvelope.successPayload(json).pipe((o) => o._tag === "Some" ? o.value : "none"), envelope.result)
    } else {
      assert.strictEqual(ToolEnvelope.failureMessage(json), envelope.message)
      const d = ToolEnvelope.classify(json)
      assert.isTrue(d._tag === "Failure" && d.kind === envelope.kind && d.retryable === envelope.retryable && !d.legacy)
    }
  })

  it.prop("the envelope's JSON Schema (for non-Effect consumers) accepts every encoded envelope", [
    Arbitrary.make(ToolEnvelope.Envelope)
  ], ([envelope]) => {
    const compiled = Either.getOrThrow(Validator.compile(JSONSchema.make(ToolEnvelope.Envelope) as never))
    assert.deepStrictEqual(compiled.validate(JSON.parse(ToolEnvelope.encode(envelope))), [])
    assert.isFalse(compiled.isValid({ ok: false, kind: "nope", message: "m", retryable: true }))
  })

  it("each kind has its contract's default retryable", () => {
    assert.deepStrictEqual(
      Object.fromEntries(ToolEnvelope.allKinds.map((k) => [k, ToolEnvelope.failure(k, "m").retryable])),
      {
        invalid_args: true,
        rejected: false,
        user_denied: false,
        timeout: true,
        execution_error: true,
        not_found: false,
        unavailable: true,
        tool_not_found: false
      }
    )
    assert.isFalse(ToolEnvelope.failure("timeout", "m", { retryable: false }).retryable)
    assert.isTrue(ToolEnvelope.failure("rejected", "m", { retryable: true }).retryable)
  })

  it("isKind is true for the eight kinds only: inherited names, other cases, wrapped strings and non-strings are not kinds", () => {
    for (const kind of ToolEnvelope.allKinds) assert.isTrue(ToolEnvelope.isKind(kind), kind)
    const hostile: ReadonlyArray<unknown> = [
      "__proto__", "constructor", "toString", "hasOwnProperty", "", "Timeout", " timeout", "timeout\u0000",
      new String("timeout"), ["timeout"], { toString: () => "timeout" }, Symbol("timeout"), null, undefined, 0, revoked(),
      "x".repeat(10_000_000)
    ]
    for (const u of hostile) assert.isFalse(ToolEnvelope.isKind(u), typeof u === "string" ? u.slice(0, 20) : typeof u)
  })

  it("decode rejects shapes that are not envelopes, and never throws", () => {
    const cases: ReadonlyArray<unknown> = [
      "",
      "null",
      "{\"ok\":true}",
      "{\"ok\":false,\"kind\":\"nope\",\"message\":\"m\",\"retryable\":true}",
      "{\"ok\":false,\"kind\":\"timeout\",\"message\":\"m\"}",
      "{\"ok\":\"true\",\"result\":1}",
      "{\"ok\":true,\"result\":1,\"warnings\":[1]}",
      "{\"ok\":true,\"result\":1",
      42,
      undefined,
      { ok: true, result: () => 1 },
      { ok: true, result: Number.NaN },
      Object.defineProperty({ result: 1 }, "ok", { get: thrower, enumerable: true }),
      { ok: true, get result() { return thrower() } },
      new Proxy({}, { get: thrower, getOwnPropertyDescriptor: thrower, ownKeys: thrower, has: thrower }),
      revoked()
    ]
    cases.forEach((bad, i) => assert.isTrue(Either.isLeft(ToolEnvelope.decode(bad)), `case ${i}`))
  })

  it("decode keeps __proto__ keys of a result as own data and pollutes nothing", () => {
    const json = "{\"ok\":true,\"result\":{\"__proto__\":{\"polluted\":1},\"constructor\":{\"prototype\":{\"x\":1}}},\"__proto__\":{\"ok\":false}}"
    const back = Either.getOrThrow(ToolEnvelope.decode(json))
    assert.isTrue(back.ok)
    assert.isTrue(Object.prototype.hasOwnProperty.call(back.ok ? back.result : null, "__proto__"))
    assert.strictEqual(ToolEnvelope.encode(back), "{\"ok\":true,\"result\":{\"__proto__\":{\"polluted\":1},\"constructor\":{\"prototype\":{\"x\":1}}}}")
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
    assert.isUndefined(({} as Record<string, unknown>)["x"])
  })

  it("a 10,000-level result and a 10 MB string encode and decode", () => {
    const nested = ToolEnvelope.success(deep(10_000) as never)
    const { back: nestedBack, json: nestedJson } = roundTrip(nested)
    assert.isTrue(nestedJson.startsWith("{\"ok\":true,\"result\":{\"k\":[{\"k\":[{"))
    assert.isTrue(nestedJson.includes("{\"k\":[0]}]}") && nestedJson.endsWith("}]}}"))
    assert.strictEqual(nestedJson.length, 20 + 5000 * "{\"k\":[]}".length + 1 + 1)
    assert.strictEqual(ToolEnvelope.encode(nestedBack), nestedJson)
    const big = ToolEnvelope.text("x".repeat(10_000_000))
    const { back, json } = roundTrip(big)
    assert.strictEqual(json.length, 10_000_000 + "{\"ok\":true,\"result\":{\"text\":\"\"}}".length)
    assert.deepStrictEqual(back, big)
  })

  it("encode is total: a result that is not JSON becomes an execution_error", () => {
    const cyclic: Record<string, unknown> = {}
    cyclic["self"] = cyclic
    const hostile = new Proxy({}, {
      get: () => {
        throw new Error("trap")
      },
      ownKeys: () => {
        throw new Error("trap")
      }
    })
    for (const result of [cyclic, 1n, () => 1, Symbol("s"), undefined, Number.POSITIVE_INFINITY, hostile, new Date(0)]) {
      const json = ToolEnvelope.encode(ToolEnvelope.success(result as never, { tool: "t" }))
      const back = Either.getOrThrow(ToolEnvelope.decode(json))
      assert.deepStrictEqual(back, {
        ok: false,
        kind: "execution_error",
        message: "The tool's result could not be encoded as JSON.",
        tool: "t",
        retryable: true
      })
    }
    assert.isTrue(ToolEnvelope.isError(ToolEnvelope.encode(hostile as never)))
  })
})

describe("ToolEnvelope constructors", () => {
  it("success leaves out absent tool and empty warnings, keeps them when given", () => {
    assert.deepStrictEqual(ToolEnvelope.success(null), { ok: true, result: null })
    assert.deepStrictEqual(ToolEnvelope.success([1], { warnings: [] }), { ok: true, result: [1] })
    assert.strictEqual(
      ToolEnvelope.encode(ToolEnvelope.success({ path: "/a", size: 1 }, { tool: "w", warnings: ["slow disk"] })),
      "{\"ok\":true,\"tool\":\"w\",\"result\":{\"path\":\"/a\",\"size\":1},\"warnings\":[\"slow disk\"]}"
    )
  })

  it("text is sugar for { text }", () => {
    assert.deepStrictEqual(ToolEnvelope.text("Found 3", { tool: "grep" }), { ok: true, tool: "grep", result: { text: "Found 3" } })
  })

  it("listing counts entries and marks a partial listing truncated", () => {
    const entries = [
      { name: "notes.txt", path: "Desktop/notes.txt", type: "file" as const },
      { name: "photos", path: "Desktop/photos", type: "directory" as const }
    ]
    const full = ToolEnvelope.listing("Desktop", entries)
    assert.deepStrictEqual(full.result, { kind: "listing", path: "Desktop", entries, entry_count: 2, truncated: false })
    const partial = ToolEnvelope.listing("Desktop", entries, { entryCount: 40 })
    assert.deepStrictEqual(partial.result, { kind: "listing", path: "Desktop", entries, entry_count: 40, truncated: true })
    // a count below the entries given, or a nonsense count, cannot make the listing lie
    for (const entryCount of [1, -5, Number.NaN, 1.5, Number.POSITIVE_INFINITY]) {
      assert.deepStrictEqual(ToolEnvelope.listing("Desktop", entries, { entryCount }).result, full.result)
    }
    assert.deepStrictEqual(ToolEnvelope.listing("empty", []).result, { kind: "listing", path: "empty", entries: [], entry_count: 0, truncated: false })
    assert.isTrue(Schema.is(ToolEnvelope.Listing)(partial.result))
  })

  it("listing copies only name, path and type of each entry", () => {
    const entry = { name: "a", path: "d/a", type: "file" as const, secret: "x" }
    const result = ToolEnvelope.listing("d", [entry]).result as ToolEnvelope.Listing
    assert.deepStrictEqual(result.entries[0], { name: "a", path: "d/a", type: "file" })
  })

  it("file carries line and byte metadata", () => {
    const whole = ToolEnvelope.file("a.txt", "héllo\nwörld\n", { tool: "read" })
    assert.deepStrictEqual(whole, {
      ok: true,
      tool: "read",
      result: { kind: "file", path: "a.txt", text: "héllo\nwörld\n", start_line: 1, end_line: 2, total_lines: 2, bytes: 14, truncated: false }
    })
    const slice = ToolEnvelope.file("b.ts", "x\ny\nz", { startLine: 10, totalLines: 100, bytes: 5000 })
    assert.deepStrictEqual(slice.result, {
      kind: "file", path: "b.ts", text: "x\ny\nz", start_line: 10, end_line: 12, total_lines: 100, bytes: 5000, truncated: true
    })
    assert.deepStrictEqual(ToolEnvelope.file("e", "").result, {
      kind: "file", path: "e", text: "", start_line: 1, end_line: 0, total_lines: 0, bytes: 0, truncated: false
    })
    assert.strictEqual((ToolEnvelope.file("emoji", "😀\uD800").result as ToolEnvelope.FileContent).bytes, 7)
    assert.isTrue(Schema.is(ToolEnvelope.FileContent)(slice.result))
  })

  it.prop("file's metadata always decodes with the FileContent schema", [fc.string({ maxLength: 200 }), fc.integer(), fc.integer()], ([text, startLine, totalLines]) => {
    const result = ToolEnvelope.file("p", text, { startLine, totalLines }).result as ToolEnvelope.FileContent
    assert.isTrue(Schema.is(ToolEnvelope.FileContent)(result))
    assert.isTrue(result.start_line >= 1 && result.total_lines >= result.end_line)
    assert.strictEqual(result.bytes, new TextEncoder().encode(text).length)
  })

  it("failure leaves out absent options and keeps the wire's key order", () => {
    assert.strictEqual(
      ToolEnvelope.encode(ToolEnvelope.failure("invalid_args", "Missing required argument `content` (string).", {
        tool: "sandbox_write_file",
        expected: "non-empty string of file contents",
        field: "content"
      })),
      "{\"ok\":false,\"kind\":\"invalid_args\",\"message\":\"Missing required argument `content` (string).\",\"field\":\"content\",\"expected\":\"non-empty string of file contents\",\"tool\":\"sandbox_write_file\",\"retryable\":true}"
    )
    assert.deepStrictEqual(ToolEnvelope.failure("not_found", "gone"), { ok: false, kind: "not_found", message: "gone", retryable: false })
  })
})
