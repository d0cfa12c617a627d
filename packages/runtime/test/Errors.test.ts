import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Effect, Either, Exit, Schema } from "effect"
import { Errors } from "@toolgate/runtime"

const issue = { path: "/city", field: "city", keyword: "type", expected: "string", message: "Argument `city` must be a string." }

/** One example of each error, with the words its message must contain. */
const examples: ReadonlyArray<readonly [Errors.ToolgateError, ReadonlyArray<string>]> = [
  [
    new Errors.SchemaDriftError({
      tool: "get_weather",
      reasons: [{ cloudPath: "/properties/days", localPath: "/properties/days", message: "the relay allows days up to 30, the app up to 14" }],
      witness: { city: "Oslo", days: 30 },
      drifted: ["get_weather", "search"]
    }),
    ["`get_weather`", "up to 14", "{\"city\":\"Oslo\",\"days\":30}", "Drifted tools: get_weather, search."]
  ],
  [new Errors.UnsupportedCloudToolSchema({ tool: "t", construct: "patternProperties", path: "/properties/x" }), ["`t`", "patternProperties", "/properties/x"]],
  [new Errors.RelayProfileContractError({ reason: "unsupported_version", detail: "capabilities_version 2.0; this runtime supports 1.x" }), ["unsupported_version", "2.0"]],
  [
    new Errors.ToolArgumentRepairExhausted({ limit: 1, attempts: 2, lastIssues: [issue] }),
    ["2 rounds", "allows 1 repair.", "must be a string"]
  ],
  [new Errors.ProviderEventContractViolation({ rule: "start_without_terminal", callId: "c1" }), ["start_without_terminal", "call c1"]],
  [new Errors.RoundTripLimitExceeded({ limit: 10 }), ["10 provider round trips"]],
  [new Errors.ToolChoiceUnsupported({ choice: "required", provider: "ollama" }), ["ollama", "`required`"]],
  [new Errors.StructuredOutputUnsupported({ provider: "scripted" }), ["scripted", "structured output"]],
  [new Errors.StructuredOutputInvalid({ detail: "missing `city`" }), ["not valid", "missing `city`"]],
  [new Errors.ProviderError({ provider: "openai", reason: "HTTP 503", retryable: true, cause: "upstream overloaded" }), ["openai", "HTTP 503", "upstream overloaded"]]
]

/** Encodes an error to a JSON string and back through the union Schema. */
const viaJson = (error: Errors.ToolgateError) => {
  const json = JSON.stringify(Schema.encodeSync(Errors.ToolgateError)(error))
  return { json, back: Schema.decodeUnknownSync(Errors.ToolgateError)(JSON.parse(json)) }
}

describe("Errors", () => {
  it("every error encodes to JSON and decodes back to the same class, fields and message", () => {
    for (const [error, words] of examples) {
      const { back, json } = viaJson(error)
      assert.strictEqual(back.constructor, error.constructor)
      assert.strictEqual(back._tag, error._tag)
      assert.strictEqual(back.message, error.message)
      assert.include(json, `"_tag":"${error._tag}"`)
      assert.deepStrictEqual(Schema.encodeSync(Errors.ToolgateError)(back), Schema.encodeSync(Errors.ToolgateError)(error))
      for (const w of words) assert.include(error.message, w, error._tag)
      assert.instanceOf(error, Error)
    }
  })

  // each member on its own, so every error is drawn, however the union's arbitrary would weigh them
  const members = Errors.ToolgateError.members.map((m) => ({ tag: m.identifier, arbitrary: Arbitrary.make(m as unknown as Schema.Schema<Errors.ToolgateError, any>) }))
  for (const { arbitrary, tag } of members) {
    it.prop(`${tag}: arbitrary fields encode to JSON and decode through the one union to an equal error`, [arbitrary], ([error]) => {
      assert.strictEqual(error._tag, tag)
      const { back } = viaJson(error)
      assert.strictEqual(back.constructor, error.constructor)
      assert.deepStrictEqual({ ...back }, { ...error })
      assert.strictEqual(back.message, error.message)
      assert.isTrue(Errors.isToolgateError(back))
    }, { fastCheck: { numRuns: 50 } })
  }

  it("the union holds every typed error the runtime exports, each branded", () => {
    const classes = Object.values(Errors).filter((v): v is typeof Errors.ProviderError =>
      typeof v === "function" && v.prototype instanceof Error)
    const tags = new Set(members.map((m) => m.tag))
    assert.strictEqual(classes.length, tags.size)
    for (const c of classes) assert.isTrue(tags.has(c.identifier), c.identifier)
  })

  it.prop("round trip through JSON for arbitrary errors, each with a message", [Arbitrary.make(Errors.ToolgateError)], ([error]) => {
    const { back } = viaJson(error)
    assert.deepStrictEqual(Schema.encodeSync(Errors.ToolgateError)(back), Schema.encodeSync(Errors.ToolgateError)(error))
    // a `ToolFailure`'s message is the executor's own field; every other error writes one from its fields
    if (error._tag !== "ToolFailure") assert.isTrue(error.message.length > 0)
    assert.strictEqual(back.message, error.message)
  }, { fastCheck: { numRuns: 200 } })

  it("isToolgateError recognises every typed error of the runtime, whichever module defines it, and nothing else", () => {
    const others: ReadonlyArray<Errors.ToolgateError> = [
      new Errors.InvalidToolSchema({ tool: "t", path: "", detail: "d" }),
      new Errors.UndoIncomplete({ turn: 1, undone: [], failed: [], left: [] }),
      new Errors.ToolsRejected({ provider: "p", tool: "t", reason: "r" }),
      new Errors.InvalidRunLimits({ detail: "d" }),
      new Errors.ToolFailure({ kind: "rejected", message: "m" }),
      new Errors.DuplicateToolName({ name: "t" }),
      new Errors.NotATool({ index: 0 })
    ]
    for (const e of [...examples.map(([error]) => error), ...others]) assert.isTrue(Errors.isToolgateError(e), e._tag)
    for (const u of [new Error("x"), { _tag: "ProviderError" }, null, "ProviderError"]) assert.isFalse(Errors.isToolgateError(u))
  })

  it.effect("errors are yieldable and caught by tag", () =>
    Effect.gen(function*() {
      const caught = yield* Effect.gen(function*() {
        return yield* new Errors.RoundTripLimitExceeded({ limit: 3 })
      }).pipe(Effect.catchTag("RoundTripLimitExceeded", (e) => Effect.succeed(e.limit)))
      assert.strictEqual(caught, 3)
      const exit = yield* Effect.exit(new Errors.ProviderError({ provider: "p", reason: "r", retryable: false }))
      assert.isTrue(Exit.isFailure(exit))
    }))

  it("ToolArgumentRepairExhausted carries the limit, the attempts and the last round's issues", () => {
    const e = new Errors.ToolArgumentRepairExhausted({ limit: 1, attempts: 2, lastIssues: [issue, { ...issue, message: "Missing `days`." }] })
    assert.deepStrictEqual([e.limit, e.attempts, e.lastIssues.length], [1, 2, 2])
    assert.strictEqual(
      e.message,
      "Tool argument repairs exhausted: the model sent invalid arguments in 2 rounds, and the turn allows 1 repair. Last issues: Argument `city` must be a string.; Missing `days`."
    )
    const none = new Errors.ToolArgumentRepairExhausted({ limit: 0, attempts: 1, lastIssues: [] })
    assert.strictEqual(none.message, "Tool argument repairs exhausted: the model sent invalid arguments in 1 round, and the turn allows 0 repairs.")
  })

  it("optional fields stay out of the wire and the message when absent", () => {
    const v = new Errors.ProviderEventContractViolation({ rule: "duplicate_tool_call" })
    assert.deepStrictEqual(Schema.encodeSync(Errors.ProviderEventContractViolation)(v), { _tag: "ProviderEventContractViolation", rule: "duplicate_tool_call" })
    assert.strictEqual(v.message, "The provider's event stream broke the contract: duplicate_tool_call.")
    const p = new Errors.ProviderError({ provider: "p", reason: "timeout", retryable: true })
    assert.strictEqual(p.message, "Provider p failed: timeout.")
  })

  it("a drift message stays short whatever the witness and reasons", () => {
    const e = new Errors.SchemaDriftError({
      tool: "t",
      reasons: Array.from({ length: 50 }, (_, i) => ({ cloudPath: "", localPath: "", message: `r${i}` })),
      witness: { big: "x".repeat(10_000_000) },
      drifted: ["t"]
    })
    assert.isTrue(e.message.length < 500, String(e.message.length))
    assert.include(e.message, "r4; and 45 more")
  })

  it("decoding rejects wrong shapes: bad reason, negative budget, non-JSON witness, unknown tag", () => {
    const bad: ReadonlyArray<unknown> = [
      { _tag: "RelayProfileContractError", reason: "nope", detail: "d" },
      { _tag: "ToolArgumentRepairExhausted", limit: -1, attempts: 0, lastIssues: [] },
      { _tag: "RoundTripLimitExceeded", limit: 1.5 },
      { _tag: "SchemaDriftError", tool: "t", reasons: [], witness: undefined, drifted: [] },
      { _tag: "ProviderError", provider: "p", reason: "r", retryable: "yes" },
      { _tag: "ProviderEventContractViolation", rule: "not a rule" },
      { _tag: "Nope" },
      null,
      JSON.parse("{\"__proto__\":{\"_tag\":\"RoundTripLimitExceeded\",\"limit\":1}}")
    ]
    for (const u of bad) assert.isTrue(Either.isLeft(Schema.decodeUnknownEither(Errors.ToolgateError)(u)), JSON.stringify(u))
    assert.isUndefined(({} as Record<string, unknown>)["_tag"])
  })

  it("a witness with __proto__ keys and 10,000-level nesting crosses JSON intact", () => {
    let deep: unknown = "leaf"
    for (let i = 0; i < 10_000; i++) deep = [deep]
    const witness = JSON.parse("{\"__proto__\":{\"admin\":true}}") as object
    for (const w of [witness, deep]) {
      const e = new Errors.SchemaDriftError({ tool: "t", reasons: [], witness: w as never, drifted: ["t"] })
      const encoded = Schema.encodeSync(Errors.SchemaDriftError)(e)
      assert.strictEqual(encoded.witness, w)
      assert.isTrue(e.message.length < 400)
    }
    assert.isUndefined(({} as Record<string, unknown>)["admin"])
  })
})
