import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import type * as Message from "../src/Message.js"
import * as Errors from "../src/Errors.js"
import * as Provider from "../src/Provider.js"
import * as Tool from "../src/Tool.js"
import * as Toolkit from "../src/Toolkit.js"
import { answer, call, done, make, session } from "./support/scriptedProvider.js"

// What each capability flag and send option changes about a turn.

const adder = () => {
  let count = 0
  const add = Tool.make("add", {
    description: "Adds two integers.",
    parameters: { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, required: ["a", "b"] },
    execute: (args) => Effect.sync(() => (count++, (args as { a: number }).a + (args as { b: number }).b))
  })
  return { runs: () => count, toolkit: Either.getOrThrow(Toolkit.make(add)) }
}

const tags = (messages: ReadonlyArray<Message.Message>) => messages.map((m) => m._tag)

describe("AgentSession (capabilities and send options)", () => {
  it.effect("toolChoice required on a provider without support: ToolChoiceUnsupported, zero requests, history unchanged", () =>
    Effect.gen(function*() {
      const { toolkit } = adder()
      const provider = make([answer("x")], { supportsToolChoice: false })
      const s = yield* session(provider, toolkit)
      const error = yield* Effect.flip(s.send("x", { toolChoice: "required" }))
      assert.strictEqual(error._tag, "ToolChoiceUnsupported")
      const bogus = yield* Effect.flip(s.send("x", { toolChoice: "sometimes" as never }))
      assert.strictEqual(bogus._tag, "ToolChoiceUnsupported")
      assert.strictEqual(provider.requests.length, 0)
      assert.deepStrictEqual(yield* s.history, [])
      const ok = yield* s.send("y", { toolChoice: "auto" })
      assert.strictEqual(ok.turn, 1)
    }))

  it.effect("toolChoice is passed to a provider that supports it", () =>
    Effect.gen(function*() {
      const { toolkit } = adder()
      const provider = make([answer("x")])
      const s = yield* session(provider, toolkit)
      yield* s.send("x", { toolChoice: "none" })
      assert.strictEqual(provider.requests[0]!.toolChoice, "none")
    }))

  it.effect("validateTools failure: the send fails before the user message is recorded; warnings are reported", () =>
    Effect.gen(function*() {
      const { toolkit } = adder()
      const rejecting = make([answer("x")], {}, (tools) =>
        Effect.fail(new Errors.ToolsRejected({ provider: "scripted", tool: tools[0]!.name, reason: "no integers" })))
      const s = yield* session(rejecting, toolkit)
      const error = yield* Effect.flip(s.send("x"))
      assert.strictEqual(error._tag, "ToolsRejected")
      assert.deepStrictEqual(yield* s.history, [])
      assert.strictEqual(rejecting.requests.length, 0)
      const warning = make([answer("x")], {}, (tools) => Effect.succeed([{ tool: tools[0]!.name, message: "careful" }]))
      const w = yield* session(warning, toolkit)
      assert.deepStrictEqual((yield* w.send("x")).warnings, [{ tool: "add", message: "careful" }])
    }))

  it.effect("more tools than maxTools: the requests carry none past it, the turn says so, never a failed send", () =>
    Effect.gen(function*() {
      const { runs, toolkit } = adder()
      const provider = make([[call("c1", "add", { a: 1, b: 1 }), done], answer("x")], { maxTools: 0 })
      const s = yield* session(provider, toolkit)
      const turn = yield* s.send("x")
      assert.deepStrictEqual(provider.requests.map((r) => r.tools), [[], []])
      assert.deepStrictEqual(turn.requestWarnings, ["scripted takes at most 0 tools: 1 of the toolkit's tools were left out of the requests"])
      assert.strictEqual(runs(), 0)
      assert.deepStrictEqual(turn.calls[0]!.envelope.ok ? "ok" : turn.calls[0]!.envelope.kind, "tool_not_found")
    }))

  it.effect("a managed conversation gets only the messages it has not seen", () =>
    Effect.gen(function*() {
      const { toolkit } = adder()
      const provider = make([[call("c1", "add", { a: 1, b: 1 }), done], answer("2"), answer("again")], { managedConversation: true })
      const s = yield* session(provider, toolkit)
      yield* s.send("one")
      yield* s.send("two")
      assert.deepStrictEqual(provider.requests.map((r) => tags(r.messages)), [["User"], ["ToolResult"], ["User"]])
      assert.deepStrictEqual(provider.requests[2]!.messages, [{ _tag: "User", text: "two" }])
    }))

  it.effect("preTransmit runs on every request of a networking provider; its failure rolls back", () =>
    Effect.gen(function*() {
      const { toolkit } = adder()
      let filtered = 0
      const redact = (request: Provider.CompletionRequest) =>
        Effect.sync(() => {
          filtered++
          return { ...request, messages: request.messages.map((m) => m._tag === "User" ? { ...m, text: "[redacted]" } : m) }
        })
      const provider = make([[call("c1", "add", { a: 1, b: 1 }), done], answer("2")], { requiresNetworking: true })
      const s = yield* session(provider, toolkit, { preTransmit: redact })
      yield* s.send("secret")
      assert.strictEqual(filtered, 2)
      assert.deepStrictEqual(provider.requests.map((r) => r.messages[0]), [{ _tag: "User", text: "[redacted]" }, { _tag: "User", text: "[redacted]" }])
      assert.strictEqual(((yield* s.history)[0] as Message.User).text, "secret")
      const local = make([answer("x")])
      yield* (yield* session(local, toolkit, { preTransmit: redact })).send("plain")
      assert.strictEqual(filtered, 2)
      assert.deepStrictEqual(local.requests[0]!.messages, [{ _tag: "User", text: "plain" }])
    }))

  it.effect("openai-strict dialect: the tool goes out strict and a null for an optional property is dropped before validation", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const weather = Tool.make("weather", {
        description: "w",
        parameters: { type: "object", properties: { city: { type: "string" }, units: { enum: ["c", "f"] } }, required: ["city"], additionalProperties: false },
        execute: (args) => Effect.sync(() => (seen.push(args), "sunny"))
      })
      const provider = make([[call("c1", "weather", { city: "Oslo", units: null }), done], answer("sunny")], { schemaDialect: "openai-strict" })
      const s = yield* session(provider, Either.getOrThrow(Toolkit.make(weather)))
      const turn = yield* s.send("weather")
      assert.isTrue(provider.requests[0]!.tools[0]!.strict)
      assert.deepStrictEqual(seen, [{ city: "Oslo" }])
      assert.strictEqual(turn.usage.repairs, 0)
    }))

  it.effect("a context window leaves the oldest whole turns out of the request, never the current one", () =>
    Effect.gen(function*() {
      const { toolkit } = adder()
      const provider = make([answer("a".repeat(400)), answer("b"), answer("c")], { contextWindow: 50 })
      const s = yield* session(provider, toolkit)
      yield* s.send("first")
      yield* s.send("second")
      assert.deepStrictEqual(provider.requests[1]!.messages, [{ _tag: "User", text: "second" }])
      assert.strictEqual((yield* s.history).length, 4)
    }))

})
