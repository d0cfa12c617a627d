import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { AgentSession, ArgumentValidator, type Provider, type StreamEvent, Tool, Toolkit } from "../src/index.js"
import { answer, call, done, make, usage } from "./support/scriptedProvider.js"

const echo = Tool.make("echo", {
  description: "Echoes a word.",
  parameters: Schema.Struct({ word: Schema.String }),
  execute: ({ word }) => Effect.succeed(word)
})
const toolkit = Toolkit.make(echo).pipe(Effect.runSync)

const sessionOver = (provider: Provider.AgentProvider, options: Partial<AgentSession.Options<never>> = {}) =>
  AgentSession.make({ provider, toolkit, mode: "local", ...options }).pipe(Effect.provide(ArgumentValidator.layer))

describe("AgentSession system prompt", () => {
  it.effect("the persona, then the send's directives, make every request's system prompt; history keeps the user's own text", () =>
    Effect.gen(function*() {
      const provider = make([[call("c1", "echo", { word: "hi" }), done], answer("done"), answer("plain")])
      const s = yield* sessionOver(provider, { persona: "You are a terse assistant." })
      yield* s.send("say hi", { directives: "Answer in French." })
      assert.deepStrictEqual(provider.requests.map((r) => r.systemPrompt), [
        "You are a terse assistant.\n\nAnswer in French.",
        "You are a terse assistant.\n\nAnswer in French."
      ])
      yield* s.send("again")
      assert.strictEqual(provider.requests[2]!.systemPrompt, "You are a terse assistant.")
      assert.deepStrictEqual(provider.requests[0]!.messages, [{ _tag: "User", text: "say hi" }])
      const users = (yield* s.history).filter((m) => m._tag === "User")
      assert.deepStrictEqual(users, [{ _tag: "User", text: "say hi" }, { _tag: "User", text: "again" }])
    }))

  it.effect("no persona and no directives: no system prompt at all; blank ones count as none", () =>
    Effect.gen(function*() {
      const provider = make([answer("a"), answer("b")])
      const s = yield* sessionOver(provider)
      yield* s.send("x")
      yield* s.send("y", { directives: "  " })
      assert.deepStrictEqual(provider.requests.map((r) => "systemPrompt" in r), [false, false])
    }))

  it.effect("backendManagedSystemPrompt: the system prompt is the persona alone; directives ride a preamble of this turn's user message", () =>
    Effect.gen(function*() {
      const provider = make([[call("c1", "echo", { word: "hi" }), done], answer("done")], { backendManagedSystemPrompt: true })
      const s = yield* sessionOver(provider, { persona: "Persona." })
      yield* s.send("the question", { directives: "Be brief." })
      assert.deepStrictEqual(provider.requests.map((r) => r.systemPrompt), ["Persona.", "Persona."])
      for (const request of provider.requests) {
        assert.deepStrictEqual(request.messages[0], { _tag: "User", text: "Be brief.\n\nthe question" })
      }
      assert.deepStrictEqual((yield* s.history)[0], { _tag: "User", text: "the question" })
    }))
})

describe("AgentSession sampling", () => {
  it.effect("a provider that supports sampling gets the session's keys with the send's over them", () =>
    Effect.gen(function*() {
      const provider = make([answer("a"), answer("b")], { supportsSamplingConfig: true })
      const s = yield* sessionOver(provider, { sampling: { temperature: 0.2, maxTokens: 200 } })
      const first = yield* s.send("x", { sampling: { temperature: 0.9, topP: 0.5 } })
      yield* s.send("y")
      assert.deepStrictEqual(provider.requests.map((r) => r.sampling), [
        { temperature: 0.9, maxTokens: 200, topP: 0.5 },
        { temperature: 0.2, maxTokens: 200 }
      ])
      assert.deepStrictEqual(first.requestWarnings, [])
    }))

  it.effect("a provider that declares no sampling support gets none, and the turn says what was left out", () =>
    Effect.gen(function*() {
      const provider = make([answer("a"), answer("b")])
      const s = yield* sessionOver(provider)
      const asked = yield* s.send("x", { sampling: { temperature: 0.1, maxTokens: 5 } })
      assert.isFalse("sampling" in provider.requests[0]!)
      assert.deepStrictEqual(asked.requestWarnings, ["scripted declares no sampling support: temperature, maxTokens left out of the requests"])
      assert.deepStrictEqual((yield* s.send("y")).requestWarnings, [])
    }))

  it.effect("sampling out of range is an InvalidOptions, at make and at send, before anything is recorded", () =>
    Effect.gen(function*() {
      const provider = make([answer("a")], { supportsSamplingConfig: true })
      for (const sampling of [{ temperature: -1 }, { temperature: Number.NaN }, { topP: 0 }, { topP: 1.5 }, { maxTokens: 0 }, { maxTokens: 2.5 }]) {
        const atMake = yield* Effect.flip(sessionOver(provider, { sampling }))
        assert.strictEqual(atMake._tag, "InvalidOptions")
        const s = yield* sessionOver(provider)
        const atSend = yield* Effect.flip(s.send("x", { sampling }))
        assert.strictEqual(atSend._tag, "InvalidOptions")
        assert.deepStrictEqual(yield* s.history, [])
      }
      assert.strictEqual(provider.requests.length, 0)
    }))
})

describe("AgentSession reports", () => {
  it.effect("validateTools may be left out (no warnings); lastSchemaWarnings holds what the last send's check said", () =>
    Effect.gen(function*() {
      const scripted = make([answer("a"), answer("b")])
      const { validateTools: _, ...withoutCheck } = scripted
      const plain = yield* sessionOver(withoutCheck)
      assert.deepStrictEqual((yield* plain.send("x")).warnings, [])
      assert.deepStrictEqual(yield* plain.lastSchemaWarnings, [])
      const warning = { tool: "echo", message: "descriptions are shortened" }
      const warned = yield* sessionOver({ ...make([answer("a")]), validateTools: () => Effect.succeed([warning]) })
      assert.deepStrictEqual(yield* warned.lastSchemaWarnings, [])
      assert.deepStrictEqual((yield* warned.send("x")).warnings, [warning])
      assert.deepStrictEqual(yield* warned.lastSchemaWarnings, [warning])
    }))

  it.effect("lastUsageReport: None before a request; the last turn's usage after it, a failed turn's included", () =>
    Effect.gen(function*() {
      const failing: () => Stream.Stream<StreamEvent.StreamEvent> = () => Stream.make(usage(7, 3), { _tag: "Bogus" } as never)
      const provider = make([[usage(10, 4), ...answer("a")], failing])
      const s = yield* sessionOver(provider)
      assert.deepStrictEqual(yield* s.lastUsageReport, Option.none())
      const turn = yield* s.send("x")
      assert.deepStrictEqual(yield* s.lastUsageReport, Option.some(turn.usage))
      assert.deepStrictEqual(turn.usage, { roundTrips: 1, repairs: 0, invalidRounds: 0, inputTokens: 10, outputTokens: 4 })
      yield* Effect.flip(s.send("y"))
      const after = Option.getOrThrow(yield* s.lastUsageReport)
      assert.strictEqual(after.roundTrips, 1)
    }))
})
