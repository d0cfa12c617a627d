import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Layer, Option, Stream } from "effect"
import * as AgentSession from "../src/AgentSession.js"
import * as ArgumentValidator from "../src/ArgumentValidator.js"
import * as Provider from "../src/Provider.js"
import * as RunLimits from "../src/RunLimits.js"
import type * as StreamEvent from "../src/StreamEvent.js"
import * as Tool from "../src/Tool.js"
import * as ToolEnvelope from "../src/ToolEnvelope.js"
import * as Toolkit from "../src/Toolkit.js"
import { answer, call, done, make, session } from "./support/scriptedProvider.js"

/** `move` adds to a balance (undone by its undo); `note` appends to a log and has no undo. */
const bank = () => {
  const state = { balance: 0, moves: 0, notes: [] as Array<string> }
  const move = Tool.make("move", {
    description: "Move money.",
    parameters: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    execute: (args) => Effect.sync(() => (state.moves++, state.balance += (args as { n: number }).n)),
    undo: (args) => Effect.sync(() => void (state.balance -= (args as { n: number }).n))
  })
  const note = Tool.make("note", {
    description: "Write a note.",
    parameters: { type: "object", properties: { t: { type: "string" } }, required: ["t"] },
    execute: (args) => Effect.sync(() => state.notes.push((args as { t: string }).t))
  })
  return { state, toolkit: Either.getOrThrow(Toolkit.make(move, note)) }
}

const providerDrivenCaps = (): Provider.ProviderCapabilities => ({ ...make([]).capabilities, executionModel: "providerDriven" })

/**
 * A registry-aware provider-driven provider that runs `calls` (tool, arguments) through the registry, one
 * after the other, and reports each as started + completed with the envelope the registry answered.
 */
const runsThrough = (calls: ReadonlyArray<readonly [string, unknown]>, seen: Array<ToolEnvelope.Envelope>) =>
  Provider.registryAware((registry) => ({
    capabilities: providerDrivenCaps(),
    stream: () =>
      Stream.fromEffect(Effect.forEach(calls, ([name, args], i) => registry.get(name)!.execute(args, `p${i}`))).pipe(
        Stream.flatMap((envelopes) => {
          seen.push(...envelopes)
          const events = calls.flatMap(([name, args], i): Array<StreamEvent.StreamEvent> => [
            { _tag: "ToolCallStarted", id: `p${i}`, name, arguments: args as never },
            { _tag: "ToolCallCompleted", id: `p${i}`, result: envelopes[i]! as never }
          ])
          return Stream.fromIterable([...events, { _tag: "Done" } as StreamEvent.StreamEvent])
        })
      )
  }))

const over = (provider: Provider.RegistryAware, toolkit: Toolkit.Toolkit<never>, limits?: RunLimits.Input) =>
  AgentSession.make({ provider, toolkit, mode: "local", ...(limits === undefined ? {} : { limits }) }).pipe(Effect.provide(ArgumentValidator.layer))

describe("registry-aware providers: the registry belongs to the running turn", () => {
  it.effect("past maxToolCallsPerTurn the registry answers rejected without running the executor; the calls it ran are compensated", () =>
    Effect.gen(function*() {
      const { state, toolkit } = bank()
      const seen: Array<ToolEnvelope.Envelope> = []
      const s = yield* over(runsThrough([["move", { n: 10 }], ["move", { n: 20 }], ["move", { n: 40 }]], seen), toolkit, { maxToolCallsPerTurn: 2 })
      const e = yield* Effect.flip(s.send("pay"))
      assert.strictEqual(state.moves, 2)
      assert.deepStrictEqual(seen.map((env) => env.ok ? "ok" : env.kind), ["ok", "ok", "rejected"])
      assert.strictEqual(e._tag, "ProviderEventContractViolation")
      if (e._tag !== "ProviderEventContractViolation") return
      assert.deepStrictEqual(e.compensation?.executed.map((c) => c.callId), ["p0", "p1"])
      assert.deepStrictEqual(e.compensation?.compensated, ["p1", "p0"])
      assert.strictEqual(state.balance, 0)
      assert.deepStrictEqual(yield* s.history, [{ _tag: "User", text: "pay" }])
    }))

  it.effect("a call without an undo that the registry ran in a failed turn is outstanding, with the session's idempotency key", () =>
    Effect.gen(function*() {
      const { state, toolkit } = bank()
      const seen: Array<ToolEnvelope.Envelope> = []
      const provider = Provider.registryAware((registry) => ({
        capabilities: providerDrivenCaps(),
        stream: () =>
          Stream.fromEffect(registry.get("note")!.execute({ t: "hello" }, "n1")).pipe(
            Stream.tap((env) => Effect.sync(() => seen.push(env))),
            Stream.flatMap(() => Stream.fromIterable<StreamEvent.StreamEvent>([{ _tag: "ToolCallStarted", id: "n1", name: "note" }, { _tag: "Done" }]))
          )
      }))
      const s = yield* AgentSession.make({ id: "s1", provider, toolkit, mode: "local" }).pipe(Effect.provide(ArgumentValidator.layer))
      const e = yield* Effect.flip(s.send("write"))
      assert.deepStrictEqual(state.notes, ["hello"])
      assert.strictEqual(e._tag, "ProviderEventContractViolation")
      assert.deepStrictEqual(e._tag === "ProviderEventContractViolation" ? e.compensation?.notCompensated.map((c) => c.callId) : undefined, ["n1"])
      assert.deepStrictEqual((yield* s.outstanding).map((o) => [o.callId, o.tool, o.reason, o.idempotencyKey.replace(/-[0-9a-f]{16}:/, ":")]), [["n1", "note", "no_undo", "s1:1:n1"]])
    }))

  it.effect("the calls the registry ran in a committed turn are the turn's: undoLastTurn takes them back", () =>
    Effect.gen(function*() {
      const { state, toolkit } = bank()
      const seen: Array<ToolEnvelope.Envelope> = []
      const s = yield* over(runsThrough([["move", { n: 5 }], ["move", { n: 7 }]], seen), toolkit)
      const turn = yield* s.send("pay")
      assert.strictEqual(state.balance, 12)
      assert.deepStrictEqual(turn.calls.map((c) => c.callId), ["p0", "p1"])
      const report = Option.getOrThrow(yield* s.undoLastTurn)
      assert.deepStrictEqual(report.undone, ["p1", "p0"])
      assert.strictEqual(state.balance, 0)
    }))

  it.effect("the cap counts per turn: the next turn may make its calls again", () =>
    Effect.gen(function*() {
      const { state, toolkit } = bank()
      const seen: Array<ToolEnvelope.Envelope> = []
      const s = yield* over(runsThrough([["move", { n: 1 }]], seen), toolkit, { maxToolCallsPerTurn: 1 })
      yield* s.send("one")
      yield* s.send("two")
      assert.strictEqual(state.moves, 2)
      assert.deepStrictEqual(seen.map((env) => env.ok), [true, true])
    }))

  it.effect("a call outside any turn (at construction or after the turn ended) is rejected and never runs", () =>
    Effect.gen(function*() {
      const { state, toolkit } = bank()
      let registry: Provider.Registry | undefined
      const provider = Provider.registryAware((r) => {
        registry = r
        return { capabilities: providerDrivenCaps(), stream: () => Stream.fromIterable<StreamEvent.StreamEvent>([{ _tag: "TextDelta", text: "hi" }, { _tag: "Done" }]) }
      })
      const s = yield* over(provider, toolkit)
      const before = yield* registry!.get("move")!.execute({ n: 1 }, "x")
      yield* s.send("hi")
      const after = yield* registry!.get("move")!.execute({ n: 1 }, "y")
      assert.deepStrictEqual([before.ok, !before.ok && before.kind, after.ok, !after.ok && after.kind], [false, "rejected", false, "rejected"])
      assert.strictEqual(state.moves, 0)
    }))
})

describe("registry-aware providers: hostile specs", () => {
  it.effect("a spec that throws or gives no provider is an InvalidOptions, never a defect", () =>
    Effect.gen(function*() {
      const { toolkit } = bank()
      const specs = [
        Provider.registryAware(() => { throw new Error("boom") }),
        Provider.registryAware(() => undefined as never),
        Provider.registryAware(() => ({ capabilities: null, stream: () => Stream.empty }) as never)
      ]
      for (const spec of specs) {
        const e = yield* Effect.flip(over(spec, toolkit))
        assert.strictEqual(e._tag, "InvalidOptions")
      }
    }))
})

describe("app-driven rounds: maxToolCallsPerRound", () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => call(`c${i}`, "move", { n: 1 }))

  it.effect("by default a round runs its first 64 calls; the rest are answered rejected (retryable) and never run", () =>
    Effect.gen(function*() {
      const { state, toolkit } = bank()
      const s = yield* session(make([[...many(70), done], answer("ok")]), toolkit)
      const turn = yield* s.send("go")
      assert.strictEqual(state.moves, 64)
      assert.strictEqual(turn.calls.length, 70)
      const last = turn.calls[69]!.envelope
      assert.deepStrictEqual([last.ok, !last.ok && last.kind, !last.ok && last.retryable], [false, "rejected", true])
      assert.isTrue(turn.calls.slice(0, 64).every((c) => c.envelope.ok))
    }))

  it.effect("the cap is a decoded limit: 3 runs three; 0, -1 and 1.5 are InvalidRunLimits / InvalidOptions", () =>
    Effect.gen(function*() {
      const { state, toolkit } = bank()
      const s = yield* session(make([[...many(5), done], answer("ok")]), toolkit, { limits: { maxToolCallsPerRound: 3 } })
      const turn = yield* s.send("go")
      assert.strictEqual(state.moves, 3)
      assert.deepStrictEqual(turn.calls.map((c) => c.envelope.ok), [true, true, true, false, false])
      for (const bad of [0, -1, 1.5, "3"]) {
        assert.isTrue(Either.isLeft(RunLimits.make({ maxToolCallsPerRound: bad as number })))
        const e = yield* Effect.flip(session(make([]), toolkit, { limits: { maxToolCallsPerRound: bad as number } }))
        assert.strictEqual(e._tag, "InvalidOptions")
      }
    }))

  it.effect("RunLimits.layerEnv reads TOOLGATE_MAX_TOOL_CALLS_PER_ROUND and TOOLGATE_MAX_TOOL_RESULT_BYTES, and a session over it runs that many", () =>
    Effect.gen(function*() {
      const fromEnv = (entries: ReadonlyArray<readonly [string, string]>) =>
        Effect.either(RunLimits.RunLimits.pipe(
          Effect.provide(RunLimits.layerEnv.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(entries))))))
        ))
      const limits = yield* fromEnv([["TOOLGATE_MAX_TOOL_CALLS_PER_ROUND", "2"], ["TOOLGATE_MAX_TOOL_RESULT_BYTES", "4096"]])
      assert.deepInclude(Either.getOrThrow(limits), { maxToolCallsPerRound: 2, maxToolResultBytes: 4096 })
      assert.isUndefined(Either.getOrThrow(yield* fromEnv([])).maxToolCallsPerRound)
      for (const bad of [["TOOLGATE_MAX_TOOL_CALLS_PER_ROUND", "0"], ["TOOLGATE_MAX_TOOL_RESULT_BYTES", "1000"]] as const) {
        assert.isTrue(Either.isLeft(yield* fromEnv([bad])))
      }
      const { state, toolkit } = bank()
      const s = yield* AgentSession.make({ provider: make([[...many(3), done], answer("ok")]), toolkit, mode: "local" }).pipe(
        Effect.provide(Layer.merge(ArgumentValidator.layer, Layer.succeed(RunLimits.RunLimits, Either.getOrThrow(limits))))
      )
      yield* s.send("go")
      assert.strictEqual(state.moves, 2)
    }))

  it.effect("an invalid call past the cap does not spend a repair: only the admitted calls are checked", () =>
    Effect.gen(function*() {
      const { state, toolkit } = bank()
      const s = yield* session(make([[...many(2), call("bad", "move", { n: "x" }), done], answer("ok")]), toolkit, {
        limits: { maxToolCallsPerRound: 2, maxToolArgumentRepairs: 0 }
      })
      const turn = yield* s.send("go")
      assert.strictEqual(state.moves, 2)
      assert.strictEqual(turn.usage.repairs, 0)
    }))

  for (const parallel of [false, true]) {
    it.live(`a round of synchronous executors is interrupted by the turn deadline (parallel calls: ${parallel})`, () =>
      Effect.gen(function*() {
        let ran = 0
        const spin = Tool.make("spin", {
          description: "Busy for two milliseconds.",
          parameters: { type: "object" },
          execute: () =>
            Effect.sync(() => {
              const until = Date.now() + 2
              while (Date.now() < until) { /* synchronous work that never yields */ }
              return ++ran
            })
        })
        const toolkit = Either.getOrThrow(Toolkit.make(spin))
        const calls = Array.from({ length: 500 }, (_, i) => call(`s${i}`, "spin", {}))
        const provider = make([[...calls, done], answer("late")], { supportsParallelToolCalls: parallel })
        const s = yield* session(provider, toolkit, { limits: { maxToolCallsPerRound: 500, turnDeadlineMillis: 200 } })
        const e = yield* Effect.flip(s.send("go"))
        assert.strictEqual(e._tag, "TurnDeadlineExceeded")
        assert.isBelow(ran, 500)
      }), 60_000)
  }
})
