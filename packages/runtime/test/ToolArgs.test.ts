import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck as fc, Option } from "effect"
import { ToolArgs, ToolEnvelope } from "@toolgate/runtime"

const left = <A>(r: ToolArgs.Result<A>): ToolEnvelope.Failure => {
  assert.isTrue(Either.isLeft(r), JSON.stringify(r))
  return (r as Either.Left<ToolEnvelope.Failure, A>).left
}
const right = <A>(r: ToolArgs.Result<A>): A => {
  assert.isTrue(Either.isRight(r), JSON.stringify(r))
  return (r as Either.Right<ToolEnvelope.Failure, A>).right
}
const failureOf = (message: string, field: string, expected: string, tool?: string): ToolEnvelope.Failure =>
  ToolEnvelope.failure("invalid_args", message, { field, expected, tool })

describe("ToolArgs.requireArgumentsObject", () => {
  it("accepts a JSON string or a parsed object; null, undefined, \"\" and JSON null are {}", () => {
    assert.deepStrictEqual(right(ToolArgs.requireArgumentsObject("{\"a\":1}")), { a: 1 })
    assert.deepStrictEqual(right(ToolArgs.requireArgumentsObject({ a: [1] })), { a: [1] })
    for (const raw of [null, undefined, "", "  \n", "null"]) assert.deepStrictEqual(right(ToolArgs.requireArgumentsObject(raw)), {})
  })

  it("rejects unparseable JSON and non-objects with an invalid_args envelope", () => {
    assert.deepStrictEqual(left(ToolArgs.requireArgumentsObject("{\"a\":", { tool: "t" })), {
      ok: false, kind: "invalid_args", message: "The arguments are not valid JSON: \"{\\\"a\\\":\".", expected: "a JSON object of arguments", tool: "t", retryable: true
    })
    assert.strictEqual(left(ToolArgs.requireArgumentsObject("[1,2]")).message, "The arguments must be a JSON object, got an array of 2 items.")
    assert.strictEqual(left(ToolArgs.requireArgumentsObject(42)).message, "The arguments must be a JSON object, got number 42.")
    assert.strictEqual(left(ToolArgs.requireArgumentsObject("\"str\"", { expected: "an object with path" })).expected, "an object with path")
    const huge = left(ToolArgs.requireArgumentsObject(`{${"x".repeat(10_000_000)}`))
    assert.isTrue(huge.message.length < 200)
    for (const raw of [new Date(), new Map(), () => 1, Symbol("s"), 1n, new Proxy({}, { getPrototypeOf: () => { throw new Error("x") } })]) {
      assert.isTrue(Either.isLeft(ToolArgs.requireArgumentsObject(raw)))
    }
  })

  it("keeps __proto__ as an own key and handles 10,000-level nesting", () => {
    const args = right(ToolArgs.requireArgumentsObject("{\"__proto__\":{\"path\":\"/etc\"}}"))
    assert.isUndefined(right(ToolArgs.optionalString(args, "path")).pipe(Option.getOrUndefined))
    assert.isUndefined(({} as Record<string, unknown>)["path"])
    const deep = `{"a":${"[".repeat(10_000)}${"]".repeat(10_000)}}`
    assert.isTrue(Either.isRight(ToolArgs.requireArgumentsObject(deep)))
  })
})

describe("ToolArgs.requireString", () => {
  it("returns the string", () => {
    assert.strictEqual(right(ToolArgs.requireString({ path: "a.txt" }, "path")), "a.txt")
    assert.strictEqual(right(ToolArgs.requireString({ content: "" }, "content", { allowEmpty: true })), "")
  })

  it("missing, wrong type and empty each give their message, field and expected", () => {
    const expected = "non-empty string of file contents"
    assert.deepStrictEqual(
      left(ToolArgs.requireString({}, "content", { expected, tool: "sandbox_write_file" })),
      failureOf("Missing required argument `content` (string).", "content", expected, "sandbox_write_file")
    )
    assert.deepStrictEqual(left(ToolArgs.requireString({ content: null }, "content")), failureOf("Missing required argument `content` (string).", "content", "string"))
    assert.deepStrictEqual(left(ToolArgs.requireString({ content: 42 }, "content")), failureOf("Argument `content` must be a string, got number 42.", "content", "string"))
    assert.deepStrictEqual(left(ToolArgs.requireString({ content: "" }, "content")), failureOf("Argument `content` must not be empty.", "content", "non-empty string"))
    assert.deepStrictEqual(left(ToolArgs.requireString({ content: "" }, "content", { expected })).expected, expected)
    assert.strictEqual(left(ToolArgs.requireString({ c: ["x"] }, "c")).message, "Argument `c` must be a string, got an array of 1 item.")
    assert.strictEqual(left(ToolArgs.requireString({ c: { a: 1 } }, "c")).message, "Argument `c` must be a string, got an object.")
    assert.strictEqual(left(ToolArgs.requireString({ c: true }, "c")).message, "Argument `c` must be a string, got boolean true.")
  })
})

describe("ToolArgs numbers and booleans", () => {
  it("requireInt accepts integers and integer strings, rejects the rest", () => {
    for (const [v, n] of [[15, 15], ["15", 15], [" -3 ", -3], ["30.0", 30], [0, 0], [1e21, 1e21]] as const) {
      assert.strictEqual(right(ToolArgs.requireInt({ n: v }, "n")), n)
    }
    for (const v of [1.5, "1.5", "abc", "", true, "0x10", "1e3", [1], {}, Number.NaN, "9".repeat(500)]) {
      const f = left(ToolArgs.requireInt({ n: v as never }, "n"))
      assert.strictEqual(f.field, "n")
      assert.strictEqual(f.expected, "integer")
      assert.isTrue(f.message.startsWith("Argument `n` must be an integer, got "), f.message)
    }
    assert.strictEqual(left(ToolArgs.requireInt({}, "limit")).message, "Missing required argument `limit` (integer).")
    assert.strictEqual(left(ToolArgs.requireInt({ n: "1.5" }, "n")).message, "Argument `n` must be an integer, got string \"1.5\".")
  })

  it("requireNumber accepts finite numbers and numeric strings", () => {
    for (const [v, n] of [[3.14, 3.14], ["3.14", 3.14], ["-1e3", -1000], [".5", 0.5], [7, 7]] as const) {
      assert.strictEqual(right(ToolArgs.requireNumber({ x: v }, "x")), n)
    }
    for (const v of ["abc", "1e999", "Infinity", "", false, null]) assert.isTrue(Either.isLeft(ToolArgs.requireNumber({ x: v as never }, "x")))
    assert.strictEqual(left(ToolArgs.requireNumber({ x: "pi" }, "x")).message, "Argument `x` must be a number, got string \"pi\".")
  })

  it("requireBoolean accepts booleans and true/false/yes/no/1/0 strings in any case", () => {
    for (const [v, b] of [[true, true], ["TRUE", true], [" yes ", true], ["1", true], [false, false], ["No", false], ["0", false]] as const) {
      assert.strictEqual(right(ToolArgs.requireBoolean({ b: v }, "b")), b)
    }
    for (const v of [1, 0, 2, "maybe", "", "y"]) {
      assert.strictEqual(left(ToolArgs.requireBoolean({ b: v }, "b")).expected, "boolean")
    }
    assert.strictEqual(left(ToolArgs.requireBoolean({ b: 2 }, "b")).message, "Argument `b` must be a boolean, got number 2.")
  })
})

describe("ToolArgs.requireStringArray", () => {
  it("accepts an array of strings or a string that JSON-decodes to one", () => {
    assert.deepStrictEqual(right(ToolArgs.requireStringArray({ p: ["a", "b"] }, "p")), ["a", "b"])
    assert.deepStrictEqual(right(ToolArgs.requireStringArray({ p: "[\"a\",\"b\"]" }, "p")), ["a", "b"])
    assert.deepStrictEqual(right(ToolArgs.requireStringArray({ p: [] }, "p")), [])
  })

  it("never wraps a bare string, and names the offending item", () => {
    assert.deepStrictEqual(left(ToolArgs.requireStringArray({ p: "a" }, "p")), failureOf("Argument `p` must be an array of strings, got string \"a\".", "p", "array of strings"))
    assert.deepStrictEqual(
      left(ToolArgs.requireStringArray({ tags: ["a", "b", 3] }, "tags", { expected: "tag names" })),
      failureOf("Argument `tags` must be an array of strings; item 2 is number 3.", "tags.2", "tag names")
    )
    assert.strictEqual(left(ToolArgs.requireStringArray({ p: "[1]" }, "p")).field, "p.0")
    assert.strictEqual(left(ToolArgs.requireStringArray({ p: "{\"a\":1}" }, "p")).field, "p")
    assert.strictEqual(left(ToolArgs.requireStringArray({ p: "[oops" }, "p")).field, "p")
    assert.strictEqual(left(ToolArgs.requireStringArray({}, "p")).message, "Missing required argument `p` (array of strings).")
  })
})

describe("ToolArgs optional helpers", () => {
  it("absent, null and blank strings are None; values are Some; wrong types fail", () => {
    for (const args of [{}, { k: null }, { k: "" }, { k: "   " }]) {
      assert.isTrue(Option.isNone(right(ToolArgs.optionalString(args, "k"))))
      assert.isTrue(Option.isNone(right(ToolArgs.optionalInt(args, "k"))))
      assert.isTrue(Option.isNone(right(ToolArgs.optionalNumber(args, "k"))))
      assert.isTrue(Option.isNone(right(ToolArgs.optionalBoolean(args, "k"))))
      assert.isTrue(Option.isNone(right(ToolArgs.optionalStringArray(args, "k"))))
    }
    assert.deepStrictEqual(right(ToolArgs.optionalString({ k: "v" }, "k")), Option.some("v"))
    assert.deepStrictEqual(right(ToolArgs.optionalInt({ k: "15" }, "k")), Option.some(15))
    assert.deepStrictEqual(right(ToolArgs.optionalNumber({ k: 2.5 }, "k")), Option.some(2.5))
    assert.deepStrictEqual(right(ToolArgs.optionalBoolean({ k: "no" }, "k")), Option.some(false))
    assert.deepStrictEqual(right(ToolArgs.optionalStringArray({ k: ["x"] }, "k")), Option.some(["x"]))
    assert.deepStrictEqual(left(ToolArgs.optionalInt({ k: "1.5" }, "k", { tool: "t" })), failureOf("Argument `k` must be an integer, got string \"1.5\".", "k", "integer", "t"))
    assert.strictEqual(left(ToolArgs.optionalString({ k: 1 }, "k")).message, "Argument `k` must be a string, got number 1.")
  })
})

describe("ToolArgs on hostile input", () => {
  it("reads own data properties only: no prototype values, no getters, no pollution", () => {
    let called = 0
    const withGetter = Object.defineProperty({}, "path", { get: () => (called++, "x"), enumerable: true })
    assert.strictEqual(left(ToolArgs.requireString(withGetter, "path")).message, "Missing required argument `path` (string).")
    assert.strictEqual(called, 0)
    const fromJson = JSON.parse("{\"__proto__\":\"own\",\"constructor\":\"c\"}")
    assert.strictEqual(right(ToolArgs.requireString(fromJson, "__proto__")), "own")
    assert.strictEqual(right(ToolArgs.requireString(fromJson, "constructor")), "c")
    assert.strictEqual(left(ToolArgs.requireString({}, "toString")).message, "Missing required argument `toString` (string).")
    assert.isTrue(Either.isLeft(ToolArgs.requireString({}, "__proto__")))
    const thrower = () => {
      throw new Error("trap")
    }
    const trap = new Proxy({}, { get: thrower, getOwnPropertyDescriptor: thrower, ownKeys: thrower })
    for (const args of [trap, null, undefined, 42, "str", [1]]) {
      assert.isTrue(Either.isLeft(ToolArgs.requireInt(args as never, "n")))
      assert.isTrue(Either.isRight(ToolArgs.optionalInt(args as never, "n")))
    }
  })

  it("a key or options of the wrong type, or options whose getters throw, still give a value or an envelope", () => {
    const sym = Symbol("k")
    assert.strictEqual(left(ToolArgs.requireString({}, sym as never)).message, "Missing required argument `Symbol(k)` (string).")
    assert.strictEqual(left(ToolArgs.requireInt({ 5: "x" }, 5 as never)).field, "5")
    assert.isTrue(Either.isRight(ToolArgs.optionalString({}, sym as never)))
    assert.isFalse(ToolArgs.has({}, sym as never))
    const thrower = () => {
      throw new Error("trap")
    }
    const trap = new Proxy({}, { get: thrower, getOwnPropertyDescriptor: thrower, ownKeys: thrower })
    assert.strictEqual(left(ToolArgs.requireString({ p: "" }, "p", trap as never)).expected, "non-empty string")
    assert.strictEqual(left(ToolArgs.requireArgumentsObject(7, trap as never)).expected, "a JSON object of arguments")
    const f = left(ToolArgs.requireInt({}, "n", { tool: 5, expected: null } as never))
    assert.deepStrictEqual([f.tool, f.expected], [undefined, "integer"])
    assert.strictEqual(right(ToolArgs.requireString({ p: "" }, "p", { allowEmpty: true })), "")
  })

  it("clips a huge wrong value in the message", () => {
    const f = left(ToolArgs.requireInt({ n: "9".repeat(10_000_000) }, "n"))
    assert.isTrue(f.message.length < 120, f.message)
    const deep = JSON.parse(`{"n":${"[".repeat(10_000)}${"]".repeat(10_000)}}`)
    assert.strictEqual(left(ToolArgs.requireString(deep, "n")).message, "Argument `n` must be a string, got an array of 1 item.")
  })

  it.prop("every helper answers every JSON value with a value or a valid invalid_args envelope", [fc.jsonValue(), fc.string()], ([value, key]) => {
    const args = Object.defineProperty({}, key, { value, enumerable: true }) as Record<string, never>
    const helpers = [
      ToolArgs.requireString, ToolArgs.requireInt, ToolArgs.requireNumber, ToolArgs.requireBoolean, ToolArgs.requireStringArray,
      ToolArgs.optionalString, ToolArgs.optionalInt, ToolArgs.optionalNumber, ToolArgs.optionalBoolean, ToolArgs.optionalStringArray
    ] as const
    for (const helper of helpers) {
      const r = helper(args, key) as ToolArgs.Result<unknown>
      if (Either.isLeft(r)) {
        assert.strictEqual(r.left.kind, "invalid_args")
        assert.isTrue(r.left.field === key || r.left.field!.startsWith(`${key}.`))
        assert.isTrue(Either.isRight(ToolEnvelope.decode(ToolEnvelope.encode(r.left))))
      }
    }
  })
})
