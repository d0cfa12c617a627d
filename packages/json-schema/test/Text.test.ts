import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { Text } from "@toolgate/json-schema"

/** Any UTF-16 text: whole code points, and lone halves of surrogate pairs among them. */
const anyText = fc.array(
  fc.oneof(
    fc.fullUnicode(),
    fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
    fc.constantFrom("a", "é", "😀", "👩‍👩‍👧")
  ),
  { maxLength: 40 }
).map((parts) => parts.join(""))

/** Well-formed text: whole code points only. */
const wellFormed = fc.array(fc.oneof(fc.fullUnicode(), fc.constantFrom("😀", "𝄞", "x")), { maxLength: 40 }).map((parts) => parts.join(""))

/** The code points of `s` (a lone surrogate is one). */
const codePoints = (s: string): ReadonlyArray<string> => Array.from(s)

/** Whether `s` has no lone surrogate. */
const isWellFormed = (s: string): boolean => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s)

describe("Text", () => {
  it.prop("clip: the text itself when it fits, else a prefix by code points ended with …, within the bound", [anyText, fc.integer({ min: 0, max: 50 })], ([s, max]) => {
    const out = Text.clip(s, max)
    assert.isAtMost(out.length, Math.max(max, 0))
    if (s.length <= max) return assert.strictEqual(out, s)
    if (max < 1) return assert.strictEqual(out, "")
    assert.isTrue(out.endsWith("…"))
    const kept = codePoints(out.slice(0, -1))
    assert.deepStrictEqual(kept, codePoints(s).slice(0, kept.length))
    // nothing more is cut than the half pair the bound would split
    assert.isAtLeast(out.length, max - 1)
  })

  it.prop("clip and prefix keep well-formed text well-formed", [wellFormed, fc.integer({ min: 0, max: 50 })], ([s, max]) => {
    assert.isTrue(isWellFormed(Text.clip(s, max)))
    assert.isTrue(isWellFormed(Text.prefix(s, max)))
  })

  it.prop("prefix: a prefix by code points, at most max code units, at most one unit short", [anyText, fc.integer({ min: 0, max: 50 })], ([s, max]) => {
    const out = Text.prefix(s, max)
    assert.isTrue(s.startsWith(out))
    assert.isAtMost(out.length, max)
    assert.isAtLeast(out.length, Math.min(s.length, max) - 1)
    const kept = codePoints(out)
    assert.deepStrictEqual(kept, codePoints(s).slice(0, kept.length))
  })

  it("a cut that would split an emoji keeps it whole or leaves it out", () => {
    assert.strictEqual(Text.clip("ab😀cd", 4), "ab…")
    assert.strictEqual(Text.clip("ab😀cd", 5), "ab😀…")
    assert.strictEqual(Text.clip("abc", 3), "abc")
    assert.strictEqual(Text.clip("abcd", 1), "…")
    assert.strictEqual(Text.prefix("a😀", 2), "a")
  })
})
