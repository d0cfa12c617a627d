import { assert, describe, it } from "@effect/vitest"
import { Validator } from "@toolgate/json-schema"
import { Effect, Either, FastCheck as fc } from "effect"
import type * as Message from "../src/Message.js"
import type * as StreamEvent from "../src/StreamEvent.js"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import { compensationOf, done, make, session, text } from "./support/scriptedProvider.js"

const putSchema = {
  type: "object",
  properties: { key: { type: "string" }, n: { type: "integer", minimum: 0 } },
  required: ["key", "n"],
  additionalProperties: false
}
const isPut = Either.getOrThrow(Validator.compile(putSchema))

/** What a generated call is. */
type Kind = "valid" | "nearMiss" | "invalid" | "unknown" | "ref" | "ghostRef" | "noArgs"

/** How a generated round may break the event contract. */
type Breakage = "none" | "missingDone" | "afterDone" | "duplicateCall"

interface RoundSpec {
  readonly calls: ReadonlyArray<{ readonly kind: Kind; readonly n: number }>
  readonly breakage: Breakage
}

const kind = fc.constantFrom<Kind>("valid", "valid", "nearMiss", "invalid", "unknown", "ref", "ghostRef", "noArgs")
const round: fc.Arbitrary<RoundSpec> = fc.record({
  calls: fc.array(fc.record({ kind, n: fc.nat(50) }), { maxLength: 4 }),
  breakage: fc.constantFrom<Breakage>("none", "none", "none", "none", "none", "missingDone", "afterDone", "duplicateCall")
})
const script = fc.array(fc.array(round, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 3 })
const limits = fc.record({ maxToolArgumentRepairs: fc.nat(2), maxProviderRoundTrips: fc.integer({ min: 1, max: 5 }) })

/** The events of a scripted round; call ids are unique across the whole script, refs point at earlier ids. */
const eventsOf = (spec: RoundSpec, ids: { next: number; earlier: Array<string> }): ReadonlyArray<StreamEvent.StreamEvent> => {
  const calls = spec.calls.map(({ kind, n }): StreamEvent.StreamEvent => {
    const id = `call_${ids.next++}`
    const earlier = ids.earlier[n % Math.max(1, ids.earlier.length)] ?? "ghost"
    ids.earlier.push(id)
    const args: Record<Kind, unknown> = {
      valid: { key: `k${n}`, n },
      nearMiss: { key: `k${n}`, n: String(n) },
      invalid: n % 2 === 0 ? { key: n, n: -1 } : "{\"key\": ",
      unknown: {},
      ref: { key: { $tool: earlier, $path: "result.key" }, n },
      ghostRef: { key: { $tool: "ghost" }, n },
      noArgs: undefined
    }
    const name = kind === "unknown" ? "missing_tool" : "put"
    return args[kind] === undefined ? { _tag: "ToolCallComplete", id, name } : { _tag: "ToolCallComplete", id, name, arguments: args[kind] as never }
  })
  const body = [text("t"), ...calls]
  switch (spec.breakage) {
    case "missingDone":
      return body
    case "afterDone":
      return [...body, done, text("late")]
    case "duplicateCall":
      return calls.length === 0 ? [...body, done] : [...body, calls[0]!, done]
    case "none":
      return [...body, done]
  }
}

/** Every Assistant tool call in `messages` is answered by a ToolResult with its id later on. */
const everyCallAnswered = (messages: ReadonlyArray<Message.Message>): boolean =>
  messages.every((m, i) =>
    m._tag !== "Assistant" ||
    m.toolCalls.every((c) => messages.slice(i + 1).some((r) => r._tag === "ToolResult" && r.callId === c.id)))

describe("AgentSession (property)", () => {
  it.effect.prop(
    "random scripted rounds keep the invariants: valid arguments only, limits held, rollback exact, every committed call answered",
    [script, limits, fc.boolean()],
    ([turns, limit, parallel]) =>
      Effect.gen(function*() {
        const bad: Array<unknown> = []
        const put = Tool.make("put", {
          description: "p",
          parameters: putSchema,
          execute: (args) => Effect.sync(() => (isPut.isValid(args) ? undefined : bad.push(args), args))
        })
        const ids = { next: 0, earlier: [] as Array<string> }
        const provider = make(turns.flatMap((rounds) => rounds.map((r) => eventsOf(r, ids))), { supportsParallelToolCalls: parallel })
        const s = yield* session(provider, Either.getOrThrow(Toolkit.make(put)), { limits: limit, chaining: true, chainScope: "session" })
        for (const [i] of turns.entries()) {
          const before = yield* s.history
          const requestsBefore = provider.requests.length
          const outcome = yield* Effect.either(s.send(`turn ${i}`))
          const after = yield* s.history
          assert.isAtMost(provider.requests.length - requestsBefore, limit.maxProviderRoundTrips)
          assert.deepStrictEqual(after.slice(0, before.length), before)
          if (Either.isLeft(outcome)) {
            // rolled back to the user message, plus the calls left in effect (put has no undo) as the model is told them
            const error = outcome.left
            const report = compensationOf(error)
            const left = report?.notCompensated.map((c) => c.callId) ?? []
            if (report !== undefined) {
              assert.deepStrictEqual(report.compensated, [])
              assert.isTrue(report.notCompensated.every((c) => c.reason === "no_undo"))
            }
            const told = left.length === 0 ? [] : [
              { _tag: "Assistant" as const, text: "", toolCalls: left.map((id) => ({ id, name: "put" })) },
              ...left.map((id) => ({ _tag: "ToolResult" as const, callId: id }))
            ]
            const added = after.slice(before.length).map((m) =>
              m._tag === "Assistant" ? { ...m, toolCalls: m.toolCalls.map((c) => ({ id: c.id, name: c.name })) } :
              m._tag === "ToolResult" ? { _tag: m._tag, callId: m.callId } : m)
            assert.deepStrictEqual(added, [{ _tag: "User", text: `turn ${i}` }, ...told])
            continue
          }
          const turn = outcome.right
          assert.isAtMost(turn.usage.repairs, limit.maxToolArgumentRepairs)
          assert.isAtMost(turn.usage.roundTrips, limit.maxProviderRoundTrips)
          const added = after.slice(before.length)
          assert.strictEqual(added[0]?._tag, "User")
          assert.isTrue(everyCallAnswered(added), JSON.stringify(added))
          const called = added.flatMap((m) => m._tag === "Assistant" ? m.toolCalls.map((c) => c.id) : [])
          assert.deepStrictEqual(turn.calls.map((c) => c.callId), called)
        }
        assert.deepStrictEqual(bad, [])
      }),
    { fastCheck: { numRuns: 40 }, timeout: 60_000 }
  )

  it.effect.prop(
    "rounds answered whole (AgentProvider.complete) and the same rounds streamed give the same outcomes, histories and requests",
    [script, limits, fc.boolean()],
    ([turns, limit, parallel]) =>
      Effect.gen(function*() {
        const play = (whole: boolean) =>
          Effect.gen(function*() {
            const put = Tool.make("put", { description: "p", parameters: putSchema, execute: (args) => Effect.succeed(args) })
            const ids = { next: 0, earlier: [] as Array<string> }
            const rounds = turns.flatMap((rounds) => rounds.map((r) => eventsOf(r, ids)))
            const provider = make(rounds, { supportsParallelToolCalls: parallel }, undefined, whole)
            const s = yield* session(provider, Either.getOrThrow(Toolkit.make(put)), { limits: limit, chaining: true, chainScope: "session" })
            const outcomes: Array<unknown> = []
            for (const [i] of turns.entries()) {
              const outcome = yield* Effect.either(s.send(`turn ${i}`))
              outcomes.push(Either.isLeft(outcome) ? outcome.left : { text: outcome.right.text, calls: outcome.right.calls, usage: outcome.right.usage })
            }
            return { outcomes, history: yield* s.history, requests: provider.requests.length }
          })
        // the two sessions' idempotency keys differ by design (each has its own id and random per-turn part)
        const withoutKeys = (v: unknown) => JSON.parse(JSON.stringify(v, (key, x) => key === "idempotencyKey" ? undefined : x))
        const streamed = withoutKeys(yield* play(false))
        const whole = withoutKeys(yield* play(true))
        assert.deepStrictEqual(whole, streamed)
      }),
    { fastCheck: { numRuns: 40 }, timeout: 60_000 }
  )
})
