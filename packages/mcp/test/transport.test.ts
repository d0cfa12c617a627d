import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { perEvent } from "../src/internal/transport.js"

const max = 64

/** Events of `data:` lines, each event's field lines at most `max` bytes together, ended by a blank line in any of SSE's line ends. */
const stream = (eventBytes: fc.Arbitrary<number>) =>
  fc.tuple(
    fc.array(fc.tuple(eventBytes, fc.constantFrom("\n", "\r", "\r\n")), { minLength: 1, maxLength: 40 }),
    fc.array(fc.nat(), { maxLength: 20 })
  ).map(([events, cuts]) => {
    const text = events.map(([bytes, end]) => `data:${"x".repeat(Math.max(0, bytes - 5))}${end}${end}`).join("")
    const bytes = new TextEncoder().encode(text)
    const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
    return [0, ...at].map((start, i) => bytes.subarray(start, [...at, bytes.length][i]))
  })

describe("the per-event byte count of an event stream", () => {
  it.prop("a stream of events each within the limit never passes it, however long and however it is cut", [stream(fc.integer({ min: 5, max }))], ([chunks]) => {
    const past = perEvent(max)
    assert.isFalse(chunks.some((chunk) => past(chunk)))
  })

  it.prop("an event past the limit passes it, wherever it is cut", [stream(fc.integer({ min: max + 1, max: 4 * max }))], ([chunks]) => {
    const past = perEvent(max)
    assert.isTrue(chunks.some((chunk) => past(chunk)))
  })
})
