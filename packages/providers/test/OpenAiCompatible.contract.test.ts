import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { AgentSession, ArgumentValidator, Provider, Tool, Toolkit } from "@toolgate/runtime"
import { data, provider, type Reply, start } from "./OpenAiCompatible.support.js"

/** A reply per request, in order: each streams `text` as one content delta and stops. */
const texts = (...answers: ReadonlyArray<string>): Reply => {
  let n = 0
  return (_req, res) => {
    const text = answers[Math.min(n++, answers.length - 1)]!
    res.writeHead(200, { "content-type": "text/event-stream" })
    res.end(
      data({ choices: [{ index: 0, delta: { role: "assistant", content: text }, finish_reason: null }] }) +
        data({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: { prompt_tokens: 5, completion_tokens: 2 } }) +
        data("[DONE]")
    )
  }
}

const ran: Array<number> = []
const double = Tool.make("double", {
  description: "Doubles a number.",
  parameters: Schema.Struct({ n: Schema.Int }),
  execute: ({ n }) => Effect.sync(() => (ran.push(n), n * 2))
})
const toolkit = Either.getOrThrow(Toolkit.make(double))

describe("OpenAiCompatible through AgentSession: the provider contract on the wire", () => {
  it.scopedLive("persona and directives become a leading system message; sampling becomes temperature, top_p, max_tokens", () =>
    Effect.gen(function*() {
      const server = yield* start(texts("Bonjour."))
      const s = yield* AgentSession.make({
        provider: yield* provider(server),
        toolkit,
        mode: "local",
        persona: "You are terse.",
        sampling: { temperature: 0.3, maxTokens: 64 }
      }).pipe(Effect.provide(ArgumentValidator.layer))
      const turn = yield* s.send("Say hello.", { directives: "Answer in French.", sampling: { topP: 0.9 } })
      assert.strictEqual(turn.text, "Bonjour.")
      assert.deepStrictEqual(turn.requestWarnings, [])
      const body = JSON.parse(server.requests[0]!.body)
      assert.deepStrictEqual(body.messages, [
        { role: "system", content: "You are terse.\n\nAnswer in French." },
        { role: "user", content: "Say hello." }
      ])
      assert.deepStrictEqual([body.temperature, body.top_p, body.max_tokens], [0.3, 0.9, 64])
      assert.strictEqual(body.tools.length, 1)
    }), 30_000)

  it.scopedLive("a server without tool calling: no tools on the wire, the tools in the system message, a <tool_call> in the reply runs", () =>
    Effect.gen(function*() {
      ran.length = 0
      const server = yield* start(texts(
        `Let me see.\n<tool_call>\n{"name": "double", "arguments": {"n": "21"}}\n</tool_call>`,
        "It is 42."
      ))
      const s = yield* AgentSession.make({
        provider: yield* provider(server, { capabilities: { supportsToolCalling: false } }),
        toolkit,
        mode: "local"
      }).pipe(Effect.provide(ArgumentValidator.layer))
      const turn = yield* s.send("Double 21.")
      assert.strictEqual(turn.text, "It is 42.")
      assert.deepStrictEqual(ran, [21])
      const [first, second] = server.requests.map((r) => JSON.parse(r.body))
      for (const body of [first, second]) {
        assert.notProperty(body, "tools")
        assert.notProperty(body, "tool_choice")
        assert.strictEqual(body.messages[0].role, "system")
        assert.include(body.messages[0].content, "<tools>")
      }
      assert.deepStrictEqual(second.messages.slice(1).map((m: { role: string }) => m.role), ["user", "assistant", "user"])
      assert.include(second.messages[3].content, `<tool_response>\n{"name":"double","content":{"ok":true,"tool":"double","result":42}}`)
    }), 30_000)

  it.scopedLive("strict mode end to end: the enforced schema goes out with strict: true, and a null for an optional property comes back as absent", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const weather = Tool.make("get_weather", {
        description: "Weather for a city.",
        parameters: Schema.Struct({ city: Schema.String, unit: Schema.optional(Schema.Literal("c", "f")) }),
        execute: (args) => Effect.sync(() => (seen.push(args), "sunny"))
      })
      let n = 0
      const server = yield* start((_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" })
        // round 1: the model, bound by the strict schema, must send every property: the optional one as null
        const call = { index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\",\"unit\":null}" } }
        res.end(
          (n++ === 0
            ? data({ choices: [{ index: 0, delta: { role: "assistant", tool_calls: [call] }, finish_reason: null }] }) +
              data({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] })
            : data({ choices: [{ index: 0, delta: { content: "Sunny." }, finish_reason: "stop" }] })) + data("[DONE]")
        )
      })
      const s = yield* AgentSession.make({ provider: yield* provider(server), toolkit: Either.getOrThrow(Toolkit.make(weather)), mode: "local" })
        .pipe(Effect.provide(ArgumentValidator.layer))
      const turn = yield* s.send("Weather in Paris?")
      assert.strictEqual(turn.text, "Sunny.")
      const sent = JSON.parse(server.requests[0]!.body).tools[0].function
      assert.strictEqual(sent.strict, true)
      assert.deepStrictEqual(sent.parameters.required, ["city", "unit"])
      assert.strictEqual(sent.parameters.additionalProperties, false)
      assert.deepStrictEqual(sent.parameters.properties.unit, { anyOf: [{ type: "string", enum: ["c", "f"] }, { type: "null" }] })
      // the executor got the value its own schema accepts: the null stripped, not rejected
      assert.deepStrictEqual(seen, [{ city: "Paris" }])
      assert.deepStrictEqual(turn.calls.map((c) => c.envelope.ok), [true])
    }), 30_000)

  it.scopedLive("tool discovery on the wire: 130 tools in 13 domains behind OpenAI's 128-tool cap; requests carry the meta-tools, then the activated domain", () =>
    Effect.gen(function*() {
      const ran: Array<string> = []
      const domains = Object.fromEntries(Array.from({ length: 13 }, (_, d) => [
        `d${d}`,
        Array.from({ length: 10 }, (_, t) =>
          Tool.make(`d${d}_t${t}`, { description: `Tool ${t} of ${d}.`, parameters: { type: "object" }, execute: () => Effect.sync(() => (ran.push(`d${d}_t${t}`), "ran")) }))
      ]))
      const call = (id: string, name: string, args: unknown) =>
        data({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: JSON.stringify(args) } }] }, finish_reason: null }] }) +
        data({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] })
      const rounds = [
        call("l", "toolgate_list_domains", {}),
        call("a", "toolgate_activate_domain", { domain: "d12" }),
        call("c", "d12_t3", {}),
        data({ choices: [{ index: 0, delta: { content: "Done." }, finish_reason: "stop" }] })
      ]
      let n = 0
      const server = yield* start((_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.end(rounds[Math.min(n++, rounds.length - 1)]! + data("[DONE]"))
      })
      const s = yield* AgentSession.make({
        provider: yield* provider(server, { capabilities: { toolDiscovery: Provider.dynamicPerRequest } }),
        toolkit: Either.getOrThrow(Toolkit.domains(domains)),
        mode: "local"
      }).pipe(Effect.provide(ArgumentValidator.layer))
      const turn = yield* s.send("Use d12's fourth tool.")
      assert.strictEqual(turn.text, "Done.")
      assert.deepStrictEqual(ran, ["d12_t3"])
      const offered = server.requests.map((r) => JSON.parse(r.body).tools.map((t: { function: { name: string } }) => t.function.name))
      assert.deepStrictEqual(offered.slice(0, 2), [["toolgate_list_domains", "toolgate_activate_domain"], ["toolgate_list_domains", "toolgate_activate_domain"]])
      assert.deepStrictEqual(offered[2], ["toolgate_list_domains", "toolgate_activate_domain", ...Array.from({ length: 10 }, (_, t) => `d12_t${t}`)])
      for (const tools of offered) assert.isAtMost(tools.length, 128)
    }), 30_000)
})
