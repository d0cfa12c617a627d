import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Queue, Stream } from "effect"
import * as AgentSession from "../src/AgentSession.js"
import * as ArgumentValidator from "../src/ArgumentValidator.js"
import type * as Message from "../src/Message.js"
import type * as StreamEvent from "../src/StreamEvent.js"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import { answer, call, done, make, session, text } from "./support/scriptedProvider.js"

const addSchema = { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, required: ["a", "b"] }

const adder = () => {
  let runs = 0
  const add = Tool.make("add", {
    description: "Adds.",
    parameters: addSchema,
    execute: (args) => Effect.sync(() => (runs++, (args as { a: number }).a + (args as { b: number }).b))
  })
  const stuck = Tool.make("stuck", { description: "never ends", parameters: { type: "object" }, execute: () => Effect.never })
  return { runs: () => runs, toolkit: Either.getOrThrow(Toolkit.make(add, stuck)) }
}

const nested = (depth: number): unknown => {
  let value: unknown = 1
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

describe("AgentSession (hostile input)", () => {
  it.live("a provider stream that never ends is bounded by the caller's timeout; the session stays usable", () =>
    Effect.gen(function*() {
      const { toolkit } = adder()
      const provider = make([() => Stream.never, answer("back")])
      const s = yield* session(provider, toolkit)
      const events = yield* s.subscribe
      const timedOut = yield* Effect.flip(s.send("hang").pipe(Effect.timeout("100 millis")))
      assert.strictEqual(timedOut._tag, "TimeoutException")
      assert.deepStrictEqual(yield* s.history, [{ _tag: "User", text: "hang" }])
      const rolled = Array.from(yield* Queue.takeAll(events)).at(-1)
      assert.deepStrictEqual(rolled, { _tag: "TurnRolledBack", turn: 1, error: "Interrupted", message: "The send was interrupted." })
      const turn = yield* s.send("again").pipe(Effect.timeout("5 seconds"))
      assert.strictEqual(turn.text, "back")
      assert.strictEqual(turn.turn, 2)
    }).pipe(Effect.scoped))

  it.effect("a provider that streams without end fails the turn at maxEventsPerRound, holding no more than that", () =>
    Effect.gen(function*() {
      const { runs, toolkit } = adder()
      const endless = () => Stream.repeatValue<StreamEvent.StreamEvent>(text("y"))
      const provider = make([endless, answer("back")])
      const s = yield* AgentSession.make({ provider, toolkit, mode: "local", maxEventsPerRound: 10_000 }).pipe(
        Effect.provide(ArgumentValidator.layer)
      )
      const error = yield* Effect.flip(s.send("flood"))
      assert.strictEqual(error._tag, "ProviderError")
      assert.include(error.message, "more than 10000 events")
      assert.deepStrictEqual(yield* s.history, [{ _tag: "User", text: "flood" }])
      assert.strictEqual(runs(), 0)
      assert.strictEqual((yield* s.send("again")).text, "back")
      // by default (100,000) a 20,000-event round passes
      const many = make([() => Stream.make(...Array.from({ length: 20_000 }, () => text("z")), done)])
      const byDefault = yield* AgentSession.make({ provider: many, toolkit, mode: "local" }).pipe(Effect.provide(ArgumentValidator.layer))
      assert.strictEqual((yield* byDefault.send("ok")).text.length, 20_000)
    }))

  it.effect("a round answered whole is held to maxEventsPerRound and the event contract like a streamed one", () =>
    Effect.gen(function*() {
      const { runs, toolkit } = adder()
      const flood = [...Array.from({ length: 12 }, () => text("y")), done]
      const broken = [call("c1", "add", { a: 1, b: 2 }), call("c1", "add", { a: 1, b: 2 }), ...Array.from({ length: 12 }, () => text("y")), done]
      for (const whole of [false, true]) {
        const provider = make([flood, broken, [call("c2", "add", { a: 1, b: 2 }), text("t")], answer("back")], {}, undefined, whole)
        const s = yield* AgentSession.make({ provider, toolkit, mode: "local", maxEventsPerRound: 10 }).pipe(Effect.provide(ArgumentValidator.layer))
        const tooMany = yield* Effect.flip(s.send("flood"))
        assert.strictEqual(tooMany._tag, "ProviderError")
        assert.include(tooMany.message, "more than 10 events")
        // a broken rule among the first events is that rule, even in a round past the limit
        const duplicate = yield* Effect.flip(s.send("twice"))
        assert.deepStrictEqual([duplicate._tag, "rule" in duplicate ? duplicate.rule : undefined], ["ProviderEventContractViolation", "duplicate_tool_call"])
        const missingDone = yield* Effect.flip(s.send("no done"))
        assert.deepStrictEqual([missingDone._tag, "rule" in missingDone ? missingDone.rule : undefined], ["ProviderEventContractViolation", "missing_done"])
        assert.strictEqual(runs(), 0)
        assert.strictEqual((yield* s.send("again")).text, "back")
      }
    }))

  it.live("an executor that never ends is interrupted with the send; nothing is committed", () =>
    Effect.gen(function*() {
      const { toolkit } = adder()
      const s = yield* session(make([[call("c1", "stuck"), done], answer("late"), answer("fresh")]), toolkit)
      yield* Effect.flip(s.send("hang").pipe(Effect.timeout("100 millis")))
      // the interrupted call is an outstanding effect, and the model is told so after the user message
      const history = yield* s.history
      assert.deepStrictEqual(history.slice(0, 2), [{ _tag: "User", text: "hang" }, { _tag: "Assistant", text: "", toolCalls: [{ id: "c1", name: "stuck", arguments: {} }] }])
      const told = history[2]
      assert.isTrue(told?._tag === "ToolResult" && !told.envelope.ok && told.envelope.kind === "execution_error" && !told.envelope.retryable)
      assert.deepStrictEqual((yield* s.outstanding).map((o) => [o.callId, o.reason, o.envelope]), [["c1", "interrupted", undefined]])
      const turn = yield* s.send("next").pipe(Effect.timeout("5 seconds"))
      assert.strictEqual(turn.text, "late")
    }))

  it.effect("1 MB of user text and 1 MB of model text pass through whole", () =>
    Effect.gen(function*() {
      const { toolkit } = adder()
      const big = "x".repeat(1024 * 1024)
      const chunks: Array<StreamEvent.StreamEvent> = Array.from({ length: 1024 }, () => text("y".repeat(1024)))
      const provider = make([[...chunks, done]])
      const s = yield* session(provider, toolkit)
      const turn = yield* s.send(big)
      assert.strictEqual(turn.text.length, 1024 * 1024)
      assert.strictEqual((provider.requests[0]!.messages[0] as Message.User).text.length, 1024 * 1024)
    }))

  it.effect("1,000 calls in one round (maxToolCallsPerRound 1,000) all run and are all answered; one invalid among them stops all 1,000", () =>
    Effect.gen(function*() {
      const many = (bad: boolean) =>
        Array.from({ length: 1000 }, (_, i) => call(`c${i}`, "add", bad && i === 999 ? { a: "x", b: 1 } : { a: i, b: 1 }))
      const ok = adder()
      const provider = make([[...many(false), done], answer("done")])
      const thousand = { limits: { maxToolCallsPerRound: 1000 } }
      const turn = yield* (yield* session(provider, ok.toolkit, thousand)).send("many")
      assert.strictEqual(ok.runs(), 1000)
      assert.strictEqual(turn.calls.length, 1000)
      assert.deepStrictEqual(turn.calls[999]!.envelope, { ok: true, tool: "add", result: 1000 })
      assert.strictEqual(provider.requests[1]!.messages.length, 1002)
      const bad = adder()
      const rejected = yield* (yield* session(make([[...many(true), done], answer("none")]), bad.toolkit, thousand)).send("many")
      assert.strictEqual(bad.runs(), 0)
      assert.strictEqual(rejected.calls.filter((c) => !c.envelope.ok && c.envelope.kind === "rejected").length, 999)
    }))

  it.effect("hostile calls: 10,000-level arguments, __proto__ keys and names, wrong-typed arguments; nothing throws or pollutes", () =>
    Effect.gen(function*() {
      const { runs, toolkit } = adder()
      const deep = nested(10_000)
      const provider = make([
        [
          call("c1", "add", { a: deep, b: 1 }),
          call("c2", "add", JSON.parse("{\"__proto__\":{\"polluted\":1},\"a\":1,\"b\":2}")), // valid, so not run
          call("c3", "__proto__", {}),
          call("c4", "constructor"),
          call("c5", "add", "[1, 2"),
          call("c6", "add", 42),
          done
        ],
        [call("c7", "add", JSON.parse("{\"__proto__\":{\"polluted\":1},\"a\":1,\"b\":2}")), done],
        answer("ok")
      ])
      const s = yield* session(provider, toolkit, { chaining: true })
      const turn = yield* s.send("attack")
      assert.strictEqual(runs(), 1)
      assert.deepStrictEqual(turn.calls.slice(0, 6).map((c) => c.envelope.ok ? "ok" : c.envelope.kind), [
        "invalid_args",
        "rejected",
        "tool_not_found",
        "tool_not_found",
        "invalid_args",
        "invalid_args"
      ])
      assert.deepStrictEqual(turn.calls[6]!.envelope, { ok: true, tool: "add", result: 3 })
      assert.isUndefined(({} as Record<string, unknown>)["polluted"])
    }))

  it.effect("wrong-typed inputs to make and send: one typed error for options, never a throw", () =>
    Effect.gen(function*() {
      const { toolkit } = adder()
      const provider = make([answer("a"), answer("b"), answer("c")])
      type Bad = Partial<Omit<AgentSession.Options<never>, "mode">> & { readonly mode?: "local" }
      const invalid = (options: Bad) =>
        Effect.flip(AgentSession.make({ provider, toolkit, mode: "local", ...options }).pipe(Effect.provide(ArgumentValidator.layer)))
      const bad: ReadonlyArray<readonly [Bad, string]> = [
        [{ limits: { maxProviderRoundTrips: -1 } }, "maxProviderRoundTrips"],
        [{ limits: "many" as never }, "limits"],
        [{ mode: "remote" as never }, "mode"],
        [{ id: "" }, "id"],
        [{ chainScope: "world" as never }, "chainScope"],
        [{ maxEventsPerRound: -3 }, "maxEventsPerRound"],
        ...[Number.NaN, -1, 0.5, 1e12].map((eventCapacity) => [{ eventCapacity }, "eventCapacity"] as const)
      ]
      for (const [options, key] of bad) {
        const e = yield* invalid(options)
        assert.strictEqual(e._tag, "InvalidOptions")
        assert.include(e.message, key)
      }
      const s = yield* session(provider, toolkit)
      yield* s.send(42 as never)
      yield* s.send({ toString: () => { throw new Error("no") } } as never)
      yield* s.send(undefined as never, null as never)
      assert.deepStrictEqual((yield* s.history).filter((m) => m._tag === "User").map((m) => (m as Message.User).text), ["42", "", "undefined"])
    }))

  it.effect("options that throw when read, and parts of the wrong kind, are InvalidOptions from make, send and reconcile, never a defect", () =>
    Effect.gen(function*() {
      const { toolkit } = adder()
      const trap = () => {
        throw new Error("trap")
      }
      const throwing = new Proxy({}, { get: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap })
      const made = (options: unknown) => Effect.flip(AgentSession.make(options as never).pipe(Effect.provide(ArgumentValidator.layer)))
      const provider = make([answer("a"), answer("b")])
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [throwing, "could not be read"],
        [{ toolkit, mode: "local", provider: 42 }, "provider"],
        [{ toolkit, mode: "local", provider: {} }, "provider"],
        [{ toolkit, mode: "local", provider: { _tag: "RegistryAware" } }, "provider"],
        [{ toolkit, mode: "local", provider: { ...provider, complete: 5 } }, "provider: `complete` is not a function"],
        [{ toolkit: null, mode: "local", provider }, "toolkit"],
        [{ toolkit: {}, mode: "local", provider }, "toolkit"],
        [{ toolkit, mode: "local", provider, preTransmit: 5 }, "preTransmit"],
        [{ mode: "local", provider, get toolkit() { return trap() } }, "could not be read"]
      ]
      for (const [options, word] of cases) {
        const e = yield* made(options)
        assert.strictEqual(e._tag, "InvalidOptions")
        assert.include(e.message, word)
      }
      const s = yield* session(provider, toolkit)
      // an options object whose every trap throws reads as no options at all
      const proxied = yield* Effect.either(s.send("x", new Proxy({}, { get: trap }) as never))
      assert.isTrue(Either.isRight(proxied))
      assert.strictEqual((yield* Effect.flip(s.send("x", throwing as never)))._tag, "InvalidOptions")
      for (const keys of [123, null, throwing, [{}]]) {
        assert.strictEqual((yield* Effect.flip(s.reconcile(keys as never)))._tag, "InvalidOptions")
      }
      assert.deepStrictEqual(yield* s.reconcile([]), [])
    }))

  it.effect("a provider that throws inside its stream is a defect, and the session rolls back", () =>
    Effect.gen(function*() {
      const { toolkit } = adder()
      const provider = make([() => Stream.sync(() => { throw new Error("bug") }), answer("after")])
      const s = yield* session(provider, toolkit)
      const events = yield* s.subscribe
      const exit = yield* Effect.exit(s.send("x"))
      assert.isTrue(exit._tag === "Failure")
      assert.deepStrictEqual(yield* s.history, [{ _tag: "User", text: "x" }])
      const last = Array.from(yield* Queue.takeAll(events)).at(-1)
      assert.strictEqual(last?._tag === "TurnRolledBack" && last.error, "Defect")
      assert.strictEqual((yield* s.send("y")).text, "after")
    }).pipe(Effect.scoped))
})
