/**
 * Decoding at the edge on hostile input: options of the wrong type or shape are `InvalidOptions` naming what
 * was being made, URLs and durations of any type are refused by their own Schema, and `__proto__` keys stay data.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Either, ParseResult, Schema } from "effect"
import { Decode, Errors } from "@toolgate/runtime"

const Thing = Schema.Struct({ url: Decode.HttpUrl, timeout: Decode.PositiveDuration })
const decodeThing = Decode.options("Thing", Thing)

/** What a Schema made of `field` says of each input: the decoded value, or `undefined` when refused. */
const accepted = <A, I>(field: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(field)
  return (u: unknown): A | undefined => Either.getOrUndefined(decode(u))
}

/** Inputs that are no duration at all, whatever the Schema. */
const notDurations: ReadonlyArray<unknown> = [
  Number.NaN, "5 fortnights", "", "__proto__", null, undefined, {}, [], [1], Symbol("s"), true, () => 5,
  JSON.parse("{\"__proto__\":{\"millis\":5}}"), { toString: () => "5 seconds" }, "1".repeat(10_000_000)
]

describe("Decode", () => {
  it.live("options: a Schema that needs an effect to decode is decoded as an effect: its value, or InvalidOptions naming what was being made", () =>
    Effect.gen(function*() {
      const Slow = Schema.Struct({
        name: Schema.transformOrFail(Schema.String, Schema.String, {
          strict: true,
          decode: (s, _, ast) => Effect.as(Effect.sleep("1 millis"), s === "" ? ParseResult.fail(new ParseResult.Type(ast, s, "a name")) : ParseResult.succeed(s.toUpperCase())).pipe(Effect.flatten),
          encode: ParseResult.succeed
        })
      })
      const decodeSlow = Decode.options("Slow", Slow)
      assert.deepStrictEqual(yield* decodeSlow({ name: "ada", extra: 1 }), { name: "ADA" })
      const error = yield* Effect.flip(decodeSlow({ name: "" }))
      assert.instanceOf(error, Errors.InvalidOptions)
      assert.strictEqual(error.of, "Slow")
      assert.include(error.detail, "a name")
    }))

  it.effect("options: wrong types, a __proto__ key and a huge wrong value are InvalidOptions naming what was being made", () =>
    Effect.gen(function*() {
      const hostile: ReadonlyArray<unknown> = [
        null,
        undefined,
        42,
        "http://x",
        [],
        JSON.parse("{\"__proto__\":{\"url\":\"http://x\",\"timeout\":1}}"),
        { url: "javascript:alert(1)", timeout: 1 },
        { url: "http://x", timeout: "x".repeat(10_000_000) }
      ]
      for (const input of hostile) {
        const error = yield* Effect.flip(decodeThing(input))
        assert.instanceOf(error, Errors.InvalidOptions)
        assert.strictEqual(error.of, "Thing")
        assert.isAtMost(error.message.length, 100_000)
      }
      // options that cannot even be read are InvalidOptions too, not a defect
      const unreadable: ReadonlyArray<unknown> = [
        Object.defineProperty({}, "url", { enumerable: true, get: () => { throw new Error("boom") } }),
        new Proxy({}, { get: () => { throw new Error("trap") }, getOwnPropertyDescriptor: () => { throw new Error("trap") } })
      ]
      for (const input of unreadable) {
        const error = yield* Effect.flip(decodeThing(input))
        assert.instanceOf(error, Errors.InvalidOptions)
        assert.match(error.message, /could not be read: (boom|trap)/)
      }
      assert.isUndefined(({} as Record<string, unknown>)["url"])
      const ok = yield* decodeThing({ url: "https://relay.example/v1", timeout: "5 seconds", __proto__: null, extra: 1 })
      assert.deepStrictEqual(ok, { url: "https://relay.example/v1", timeout: Duration.seconds(5) })
    }))

  it("HttpUrl: only an absolute http: or https: URL, as given; other schemes, relative, huge-but-broken and non-strings are refused", () => {
    const url = accepted(Decode.HttpUrl)
    assert.strictEqual(url("http://127.0.0.1:1/"), "http://127.0.0.1:1/")
    assert.strictEqual(url("HTTPS://EXAMPLE.COM"), "HTTPS://EXAMPLE.COM")
    const hostile: ReadonlyArray<unknown> = [
      "javascript:alert(1)", "file:///etc/passwd", "ftp://x", "data:text/plain,hi", "//x", "/v1", "x", "",
      "http://", `http://[${"1".repeat(10_000_000)}`, { toString: () => "http://x" }, new URL("http://x"), ["http://x"], null, 42
    ]
    for (const u of hostile) assert.isUndefined(url(u), typeof u === "string" ? u.slice(0, 30) : typeof u)
  })

  it("PositiveDuration: zero, negatives, infinity, NaN and anything that is no duration are refused; a duration string, millis and a Duration pass", () => {
    const positive = accepted(Decode.PositiveDuration)
    // and infinity, which would turn the timeout it configures off
    for (const u of [...notDurations, 0, -1, -0.5, "0 millis", Duration.zero, [-1, 0], Infinity, Duration.infinity]) {
      assert.isUndefined(positive(u), typeof u === "string" ? u.slice(0, 30) : String(typeof u))
    }
    assert.deepStrictEqual(positive("5 seconds"), Duration.seconds(5))
    assert.deepStrictEqual(positive(250), Duration.millis(250))
    assert.deepStrictEqual(positive(Duration.minutes(2)), Duration.minutes(2))
  })

  it("DurationInput: zero is a duration; a negative one or anything that is no duration (NaN, wrong types, unknown units, 10 MB of digits) is refused", () => {
    const duration = accepted(Decode.DurationInput)
    for (const u of notDurations) assert.isUndefined(duration(u), typeof u === "string" ? u.slice(0, 30) : String(typeof u))
    // a negative one is refused, not taken as zero in silence
    for (const u of [-5, -0.5, -1n, [-1, 0]]) assert.isUndefined(duration(u), String(u))
    assert.deepStrictEqual(duration(0), Duration.zero)
    assert.deepStrictEqual(duration("3 minutes"), Duration.minutes(3))
  })
})
