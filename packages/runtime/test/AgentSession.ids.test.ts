import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as AgentSession from "../src/AgentSession.js"
import * as ArgumentValidator from "../src/ArgumentValidator.js"
import type * as Message from "../src/Message.js"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import { answer, call, done, keyShape, make, session } from "./support/scriptedProvider.js"

/** `note` records what it received and the key it was given. */
const notes = () => {
  const seen: Array<{ readonly callId: string; readonly key: string; readonly args: unknown }> = []
  const note = Tool.make("note", {
    description: "Write a note.",
    parameters: { type: "object" },
    execute: (args, ctx) => Effect.sync(() => (seen.push({ callId: ctx.callId, key: ctx.idempotencyKey, args }), "noted"))
  })
  return { seen, toolkit: Either.getOrThrow(Toolkit.make(note)) }
}

const deepValue = (depth: number): unknown => {
  let v: unknown = "leaf"
  for (let i = 0; i < depth; i++) v = { a: v }
  return v
}

describe("AgentSession call ids and argument shapes", () => {
  it.effect("an id repeated in a later round of the turn is renamed: both calls run once, under distinct ids and keys", () =>
    Effect.gen(function*() {
      const { seen, toolkit } = notes()
      const provider = make([
        [call("call_0", "note", { n: 1 }), done],
        [call("call_0", "note", { n: 2 }), call("call_0~2", "note", { n: 3 }), done],
        answer("ok")
      ], { supportsParallelToolCalls: false })
      const s = yield* session(provider, toolkit)
      const turn = yield* s.send("go")
      // the model's own "call_0~2" meets the renamed one and is renamed in turn
      assert.deepStrictEqual(turn.calls.map((c) => c.callId), ["call_0", "call_0~2", "call_0~2~2"])
      assert.deepStrictEqual(seen.map((r) => r.callId), ["call_0", "call_0~2", "call_0~2~2"])
      assert.strictEqual(new Set(seen.map((r) => r.key)).size, 3)
      const history = yield* s.history
      const ids = history.flatMap((m: Message.Message) => m._tag === "Assistant" ? m.toolCalls.map((c) => c.id) : m._tag === "ToolResult" ? [m.callId] : [])
      assert.deepStrictEqual(ids, ["call_0", "call_0", "call_0~2", "call_0~2~2", "call_0~2", "call_0~2~2"])
    }))

  it.effect("two sessions with the same id (a restarted worker) give turn 1's calls different keys; a key has the form <id>:<turn>-<random>:<call>", () =>
    Effect.gen(function*() {
      const { seen, toolkit } = notes()
      const worker = (pay: string) =>
        AgentSession.make({ id: "worker-7", mode: "local", toolkit, provider: make([[call("c1", "note", { pay }), done], answer("ok")]) }).pipe(
          Effect.provide(ArgumentValidator.layer)
        )
      const first = yield* worker("Ana 10")
      yield* first.send("pay Ana 10")
      const again = yield* worker("Bob 20")
      yield* again.send("pay Bob 20")
      const [a, b] = seen.map((r) => r.key)
      assert.notStrictEqual(a, b)
      for (const key of [a!, b!]) assert.match(key, /^worker-7:1-[0-9a-f]{16}:c1$/)
    }))

  it.effect("an empty id is given one", () =>
    Effect.gen(function*() {
      const { seen, toolkit } = notes()
      const s = yield* session(make([[call("", "note", {}), done], [call("", "note", {}), done], answer("ok")]), toolkit)
      const turn = yield* s.send("go")
      assert.deepStrictEqual(turn.calls.map((c) => c.callId), ["call~1", "call~2"])
      assert.deepStrictEqual(seen.map((r) => keyShape(r.key)), [`${s.id}:1:call~1`, `${s.id}:1:call~2`])
    }))

  it.effect("arguments nested 1,000,000 levels deep are invalid_args (maxDepth) and never reach the executor", () =>
    Effect.gen(function*() {
      const { seen, toolkit } = notes()
      const s = yield* session(make([[call("c1", "note", deepValue(1_000_000)), done], answer("ok")]), toolkit)
      const turn = yield* s.send("go")
      const envelope = turn.calls[0]!.envelope
      assert.isTrue(!envelope.ok && envelope.kind === "invalid_args" && envelope.message.includes("deeper than 64 levels"), JSON.stringify(envelope))
      assert.deepStrictEqual(seen, [])
      // 64 levels are fine
      const ok = yield* session(make([[call("c1", "note", deepValue(63)), done], answer("ok")]), toolkit)
      yield* ok.send("go")
      assert.strictEqual(seen.length, 1)
    }))

  it.effect("a lone surrogate in a string or a key (as a value or in JSON text) is invalid_args naming where", () =>
    Effect.gen(function*() {
      const { seen, toolkit } = notes()
      const provider = make([
        [call("c1", "note", { text: "ok \uD800 broken" }), call("c2", "note", { ["k\uDC00"]: 1 }), call("c3", "note", "{\"t\":\"\\ud800\"}"), done],
        [call("c4", "note", { text: "a pair is fine: \uD83D\uDE00" }), done],
        answer("ok")
      ], { supportsParallelToolCalls: false })
      const s = yield* session(provider, toolkit, { limits: { maxToolArgumentRepairs: 1 } })
      const turn = yield* s.send("go")
      const fields = turn.calls.slice(0, 3).map((c) => !c.envelope.ok && c.envelope.kind === "invalid_args" ? c.envelope.field : "?")
      assert.deepStrictEqual(fields, ["text", "k\uDC00", "t"])
      assert.deepStrictEqual(seen.map((r) => r.args), [{ text: "a pair is fine: \uD83D\uDE00" }])
    }))
})
