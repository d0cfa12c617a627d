import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Journal from "../src/internal/proxyJournal.js"

const answer = (text: string) => Promise.resolve({ content: [{ type: "text" as const, text }] })

const textOf = (result: Awaited<ReturnType<typeof answer>> | { content: ReadonlyArray<unknown> }) =>
  (result.content[0] as { text: string }).text

// The proxy's journal of idempotency keys: bounded whatever is recorded, and a repeat finds the answer it journaled.
describe("McpProxy journal", () => {
  it("stays within its entries and bytes, and answers the last call recorded when it fits", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ key: fc.stringMatching(/^k[0-9]{1,2}$/), args: fc.constantFrom("{}", "{\"a\":1}"), size: fc.nat({ max: 3000 }) }), {
          minLength: 1,
          maxLength: 60
        }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 500, max: 20_000 }),
        async (calls, maxEntries, maxBytes) => {
          const journal = Journal.make({ maxEntries, maxBytes })
          const answers: Array<Promise<unknown>> = []
          const recorded = new Map<string, { args: string; size: number }>()
          for (const { args, key, size } of calls) {
            const claim = journal.claim(key, "tool", args)
            if (claim._tag !== "New") continue
            const result = answer("x".repeat(size))
            journal.record(key, "tool", args, result)
            recorded.set(key, { args, size })
            answers.push(result)
          }
          await Promise.all(answers)
          await new Promise((r) => setImmediate(r))
          assert.isAtMost(journal.size(), maxEntries)
          assert.isAtMost(journal.bytes(), maxBytes)
          const last = calls.at(-1)!
          const claim = journal.claim(last.key, "tool", last.args)
          // a repeat is answered what was journaled for that key, never another call's answer
          if (claim._tag === "Repeat") {
            const first = recorded.get(last.key)!
            assert.strictEqual(first.args, last.args)
            assert.strictEqual(textOf(await claim.answer).length, first.size)
          }
          if (claim._tag === "Conflict") assert.notStrictEqual(recorded.get(last.key)!.args, last.args)
          const other = journal.claim(last.key, "other tool", last.args)
          assert.notStrictEqual(other._tag, "Repeat")
        }
      ),
      { numRuns: 200 }
    )
  })

  it("keeps a call that is still running, and forgets one whose answer failed", async () => {
    const journal = Journal.make({ maxEntries: 4, maxBytes: 1_000_000 })
    let resolve!: (r: { content: Array<{ type: "text"; text: string }> }) => void
    journal.record("k", "tool", "{}", new Promise((r) => (resolve = r)))
    const repeat = journal.claim("k", "tool", "{}")
    assert.strictEqual(repeat._tag, "Repeat")
    resolve({ content: [{ type: "text", text: "done" }] })
    if (repeat._tag === "Repeat") assert.strictEqual(textOf(await repeat.answer), "done")
    const failed = Promise.reject(new Error("lost"))
    journal.record("f", "tool", "{}", failed)
    await failed.catch(() => undefined)
    await new Promise((r) => setImmediate(r))
    assert.strictEqual(journal.claim("f", "tool", "{}")._tag, "New")
  })
})
