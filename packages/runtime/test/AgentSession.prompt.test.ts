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

const sessionOver = (provider: Provider.AgentProvider, options: Partial<Omit<AgentSession.Options<never>, "mode">> = {}) =>
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

describe("AgentSession context summary", () => {
  it.effect("turns the context window leaves out are summarized in the system prompt: what was asked, which tools answered how, what was answered", () =>
    Effect.gen(function*() {
      // a window of 40 estimated tokens (160 characters of messages) holds about one turn
      const provider = make([[call("c1", "echo", { word: "alpha" }), done], answer("Echoed alpha."), answer("Second."), answer("Third.")], {
        contextWindow: 40
      })
      const s = yield* sessionOver(provider, { persona: "Persona." })
      yield* s.send("first: echo alpha please, and some padding to take room in the window")
      yield* s.send("second question, padded to take room in the window as well")
      yield* s.send("third")
      const first = provider.requests[0]!
      assert.strictEqual(first.systemPrompt, "Persona.")
      const last = provider.requests.at(-1)!
      assert.deepStrictEqual(last.messages.at(-1), { _tag: "User", text: "third" })
      assert.isTrue(last.messages.every((m) => m._tag !== "User" || !m.text.startsWith("first")))
      assert.strictEqual(
        last.systemPrompt,
        "Persona.\n\nContext summary: the 2 earliest turns of this conversation are left out of the messages to fit the context window. In order:\n" +
          "- the user said \"first: echo alpha please, and some padding to take room in the window\"; tools: echo (ok); you answered \"Echoed alpha.\"\n" +
          "- the user said \"second question, padded to take room in the window as well\"; you answered \"Second.\""
      )
    }))

  it.effect("backendManagedSystemPrompt: the summary rides the user message's preamble, before the directives", () =>
    Effect.gen(function*() {
      const provider = make([answer("One."), answer("Two.")], { contextWindow: 20, backendManagedSystemPrompt: true })
      const s = yield* sessionOver(provider)
      yield* s.send("a first question long enough to be left out next time")
      yield* s.send("next", { directives: "Be brief." })
      const last = provider.requests.at(-1)!
      assert.isUndefined(last.systemPrompt)
      const user = last.messages.at(-1)
      assert.isTrue(user?._tag === "User" && user.text.startsWith("Context summary: the earliest turn"), JSON.stringify(user))
      assert.isTrue(user?._tag === "User" && user.text.endsWith("Be brief.\n\nnext"))
    }))

  it.effect("a huge history: the summary stays bounded (recent turns listed, older ones counted, quotes clipped)", () =>
    Effect.gen(function*() {
      const provider = make(Array.from({ length: 60 }, (_, i) => answer(`answer ${i} ${"z".repeat(5_000)}`)), { contextWindow: 1_000 })
      const s = yield* sessionOver(provider)
      for (let i = 0; i < 60; i++) yield* s.send(`question ${i} ${"q".repeat(5_000)}`)
      const prompt = provider.requests.at(-1)!.systemPrompt ?? ""
      assert.include(prompt, "earlier turns not listed")
      assert.isBelow(prompt.length, 12 * 400 + 400)
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
