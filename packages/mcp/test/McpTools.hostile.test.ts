import { assert, describe, it } from "@effect/vitest"
import { Scripted } from "@toolgate/providers"
import { AgentSession, ArgumentValidator, Toolkit } from "@toolgate/runtime"
import { Effect } from "effect"
import { McpTools } from "../src/index.js"
import { fixture, weather } from "./support.js"

describe("McpTools against hostile servers", () => {
  it.scopedLive("a listing that pages for ever or a 50 MB schema fails make, typed", () =>
    Effect.gen(function*() {
      const pages = yield* Effect.flip(McpTools.make({ server: fixture([], "pages-forever"), limits: { maxPages: 3 } }))
      assert.deepInclude(pages, { _tag: "McpLimitExceeded", limit: "pages", max: 3 })
      const huge = yield* Effect.flip(McpTools.make({ server: fixture([], "huge-schema"), limits: { maxMessageBytes: 4 * 1024 * 1024 } }))
      assert.deepInclude(huge, { _tag: "McpLimitExceeded", limit: "bytes" })
    }))

  it.scopedLive("in a session, a server writing garbage still answers; a hung call times out, a server that dies mid-call is unavailable", () =>
    Effect.gen(function*() {
      const garbage = yield* McpTools.make({ server: fixture([weather], "garbage-stdout") })
      const dying = yield* McpTools.make({ server: fixture([{ ...weather, name: "dies", answer: "die" }, { ...weather, name: "hangs", answer: "hang" }]), timeout: "500 millis" })
      const call = (id: string, name: string) => [{ _tag: "ToolCallComplete" as const, id, name, arguments: `{"city":"Oslo"}` }, { _tag: "Done" as const }]
      const provider = yield* Scripted.make({
        turns: [[call("c1", "get_weather"), call("c2", "hangs"), call("c3", "dies"), [{ _tag: "TextDelta", text: "done" }, { _tag: "Done" }]]]
      })
      const toolkit = yield* Toolkit.make(...garbage.toolkit.tools.values(), ...dying.toolkit.tools.values())
      const session = yield* AgentSession.make({ provider, toolkit, mode: "local" })
        .pipe(Effect.provide(ArgumentValidator.layer))
      const turn = yield* session.send("go")
      assert.deepStrictEqual(turn.calls.map((c) => c.envelope.ok ? "ok" : c.envelope.kind), ["ok", "timeout", "unavailable"])
    }))
})
