import { assert, describe, it } from "@effect/vitest"
import { Scripted } from "@toolgate/providers"
import { AgentSession, ArgumentValidator, type StreamEvent } from "@toolgate/runtime"
import { Effect } from "effect"
import { McpTools } from "../src/index.js"
import { fixture, weather } from "./support.js"

const call = (id: string, args: string): ReadonlyArray<StreamEvent.StreamEvent> => [
  { _tag: "ToolCallComplete", id, name: "get_weather", arguments: args },
  { _tag: "Done" }
]

describe("McpTools in an AgentSession", () => {
  it.scopedLive("a near-miss argument is coerced, an invalid one repaired, each call keyed in _meta", () =>
    Effect.gen(function*() {
      const mcp = yield* McpTools.make({ connection: { server: fixture([weather]) } })
      const provider = yield* Scripted.make({
        turns: [[
          call("c1", `{"city":"Oslo","days":"3"}`),
          call("c2", `{"days":3}`),
          call("c3", `{"city":"Bergen","days":2}`),
          [{ _tag: "TextDelta", text: "Sunny." }, { _tag: "Done" }]
        ]]
      })
      const session = yield* AgentSession.make({ provider, toolkit: mcp.toolkit, mode: "local" }).pipe(Effect.provide(ArgumentValidator.layer))
      const turn = yield* session.send("weather?")
      assert.strictEqual(turn.text, "Sunny.")
      const [first, second, third] = turn.calls.map((c) => c.envelope)
      assert(first?.ok === true && third?.ok === true)
      const answered = first.result as { args: unknown; meta: Record<string, string> }
      assert.deepStrictEqual(answered.args, { city: "Oslo", days: 3 })
      assert.match(answered.meta[McpTools.idempotencyKeyMeta]!, /:c1$/)
      assert.deepInclude(second, { ok: false, kind: "invalid_args" })
      assert.deepStrictEqual((third.result as { args: unknown }).args, { city: "Bergen", days: 2 })
      assert.strictEqual(turn.usage.repairs, 1)
    }))
})
