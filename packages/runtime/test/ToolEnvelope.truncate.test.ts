import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { ToolEnvelope } from "@toolgate/runtime"

const { truncateForModel } = ToolEnvelope

const markerPattern = /\n\[… ([\d,]+) characters omitted …\]\n/
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Splits a truncated text into head, omitted count and tail. */
const parts = (out: string) => {
  const m = markerPattern.exec(out)
  if (m === null) return undefined
  return { head: out.slice(0, m.index), omitted: Number(m[1]!.replace(/,/g, "")), tail: out.slice(m.index + m[0].length) }
}

/** Text mixing ASCII, BMP characters and surrogate pairs. */
const text = fc.array(fc.constantFrom("a", "b", "\n", "é", "中", "😀", "𝄞", "\uFFFD"), { maxLength: 3000 }).map((cs) => cs.join(""))

describe("ToolEnvelope.truncateForModel", () => {
  it("returns text that fits exactly as it is", () => {
    assert.strictEqual(truncateForModel("short"), "short")
    assert.strictEqual(truncateForModel("x".repeat(50_000)), "x".repeat(50_000))
    assert.strictEqual(truncateForModel("abc", 3), "abc")
    assert.strictEqual(truncateForModel(""), "")
  })

  it("keeps head and tail and says what it cut, with grouped digits", () => {
    const input = `HEAD${"m".repeat(100_000)}TAIL`
    const out = truncateForModel(input)
    assert.isTrue(out.length <= 50_000 && out.length > 49_900)
    const p = parts(out)!
    assert.isTrue(p.head.startsWith("HEAD") && p.tail.endsWith("TAIL"))
    assert.strictEqual(p.head.length + p.omitted + p.tail.length, input.length)
    assert.include(out, `[… ${(input.length - p.head.length - p.tail.length).toLocaleString("en-US")} characters omitted …]`)
    assert.strictEqual(truncateForModel("x".repeat(12_445), 100), `${"x".repeat(34)}\n[… 12,378 characters omitted …]\n${"x".repeat(33)}`)
  })

  it.prop("output is bounded, head and tail are the input's, the count is exact, and a second pass changes nothing", [
    text,
    fc.integer({ min: 0, max: 4000 })
  ], ([input, max]) => {
    const out = truncateForModel(input, max)
    assert.isTrue(out.length <= max || out === input)
    assert.strictEqual(truncateForModel(out, max), out)
    if (input.length <= max) return assert.strictEqual(out, input)
    const p = parts(out)
    if (p === undefined) {
      // a limit too small for the marker keeps only the head
      assert.isTrue(input.startsWith(out) && out.length >= max - 1)
      return
    }
    assert.isTrue(input.startsWith(p.head) && input.endsWith(p.tail))
    assert.strictEqual(p.head.length + p.omitted + p.tail.length, input.length)
    assert.isTrue(out.length >= max - 2, `${out.length} vs ${max}`)
  }, { fastCheck: { numRuns: 500 } })

  it.prop("never splits a surrogate pair", [text, fc.integer({ min: 0, max: 3000 })], ([input, max]) => {
    assert.isFalse(loneSurrogate.test(truncateForModel(input, max)))
  }, { fastCheck: { numRuns: 500 } })

  it("cuts beside a surrogate pair at both ends", () => {
    const emoji = "😀".repeat(1000)
    for (let max = 40; max < 80; max++) {
      const out = truncateForModel(emoji, max)
      assert.isFalse(loneSurrogate.test(out), String(max))
      assert.isTrue(out.length <= max)
    }
  })

  it("a 10 MB string comes back at most 50,000 characters", () => {
    const out = truncateForModel("y".repeat(10_000_000))
    assert.isTrue(out.length <= 50_000)
    const p = parts(out)!
    assert.strictEqual(p.head.length + p.omitted + p.tail.length, 10_000_000)
    assert.isTrue(p.omitted > 9_950_000 && out.includes(`[… 9,9`))
  })

  it("odd limits and non-string input do not throw", () => {
    const input = "abcdefghij".repeat(10)
    assert.strictEqual(truncateForModel(input, Number.NaN), "")
    assert.strictEqual(truncateForModel(input, -5), "")
    assert.strictEqual(truncateForModel(input, 0), "")
    assert.strictEqual(truncateForModel(input, Number.POSITIVE_INFINITY), input)
    assert.strictEqual(truncateForModel(input, 10.9), "abcdefghij")
    assert.strictEqual(truncateForModel(42 as never), "42")
    const hostile = { toString: () => {
      throw new Error("no")
    } }
    assert.strictEqual(truncateForModel(hostile as never), "")
    assert.strictEqual(truncateForModel(input, "7" as never), "")
  })
})
