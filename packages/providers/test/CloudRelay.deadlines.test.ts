/**
 * Deadlines a relay cannot defeat, through `AgentSession` over real loopback servers: keep-alive comments and
 * bytes trickled without completing an event do not hold a round open (the idle timer counts events), and a
 * round that streams events for ever ends at its round timeout. A round that fails this way after an earlier
 * round ran a tool is compensated.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import type * as http from "node:http"
import { AgentSession, ArgumentValidator, type StreamEvent, Tool, Toolkit } from "@toolgate/runtime"
import * as CloudRelay from "../src/CloudRelay.js"
import * as RelayWire from "../src/RelayWire.js"
import { events, httpClient, start } from "./support/loopback.js"

/** Starts an event stream, writes `first`, then `piece` every 50 ms until the client goes away. */
const forever = (res: http.ServerResponse, piece: () => string, first = ""): void => {
  const write = events(res)
  if (first !== "") write(first)
  const timer = setInterval(() => write(piece()), 50)
  res.on("close", () => clearInterval(timer))
}

const event = (e: StreamEvent.StreamEvent) => RelayWire.encodeEvent(e)

const sessionOver = (url: string, toolkit: Toolkit.Toolkit<never>, options: Partial<CloudRelay.Options> = {}) =>
  Effect.gen(function*() {
    const provider = yield* CloudRelay.make({ baseUrl: url, timeout: "5 seconds", idleTimeout: "400 millis", ...options }).pipe(Effect.provide(httpClient))
    return yield* AgentSession.make({ provider, toolkit, mode: "local" }).pipe(Effect.provide(ArgumentValidator.layer))
  })

const noTools = Either.getOrThrow(Toolkit.make())

const providerError = (error: AgentSession.SendError): string => error._tag === "ProviderError" ? error.reason : error._tag

describe("CloudRelay deadlines over loopback, through AgentSession", () => {
  it.scopedLive("keep-alive comments for ever: the round ends with the idle timeout", () =>
    Effect.gen(function*() {
      const server = yield* start((_r, res) => forever(res, () => ": keep-alive\n\n"))
      const s = yield* sessionOver(server.url, noTools)
      const error = yield* Effect.flip(s.send("hi"))
      assert.strictEqual(providerError(error), "no event for 400ms")
    }), 20_000)

  it.scopedLive("an event trickled a byte at a time, never completed: the round ends with the idle timeout", () =>
    Effect.gen(function*() {
      const server = yield* start((_r, res) => forever(res, () => "x", "data: {\"_tag\":\"TextDelta\",\"text\":\""))
      const s = yield* sessionOver(server.url, noTools)
      const error = yield* Effect.flip(s.send("hi"))
      assert.strictEqual(providerError(error), "no event for 400ms")
    }), 20_000)

  it.scopedLive("events for ever: the round ends at its round timeout", () =>
    Effect.gen(function*() {
      const server = yield* start((_r, res) => forever(res, () => event({ _tag: "TextDelta", text: "more " })))
      const s = yield* sessionOver(server.url, noTools, { roundTimeout: "1 second" })
      const error = yield* Effect.flip(s.send("hi"))
      assert.strictEqual(providerError(error), "the round lasted longer than 1s")
    }), 20_000)

  it.scopedLive("round 2 stalls on keep-alives after round 1 ran a tool: the tool is undone once, and a retry applies it once", () =>
    Effect.gen(function*() {
      const state = { balance: 0, undone: 0 }
      const move = Tool.make("move", {
        description: "Move 10.",
        parameters: { type: "object" },
        execute: () => Effect.sync(() => state.balance += 10),
        undo: () => Effect.sync(() => void (state.balance -= 10, state.undone++))
      })
      const round1 = event({ _tag: "ToolCallComplete", id: "m1", name: "move", arguments: {} }) + event({ _tag: "Done" })
      const answer = event({ _tag: "TextDelta", text: "Moved." }) + event({ _tag: "Done" })
      const server = yield* start((_r, res, n) => {
        if (n === 2) return forever(res, () => ": keep-alive\n\n")
        events(res)(n === 4 ? answer : round1)
        res.end()
      })
      const s = yield* sessionOver(server.url, Either.getOrThrow(Toolkit.make(move)))
      const error = yield* Effect.flip(s.send("move 10"))
      assert.strictEqual(error._tag === "ProviderError" && error.compensation?.compensated.length, 1)
      assert.strictEqual(providerError(error), "no event for 400ms")
      assert.deepStrictEqual([state.balance, state.undone], [0, 1])
      const turn = yield* s.send("move 10")
      assert.strictEqual(turn.text, "Moved.")
      assert.strictEqual(state.balance, 10)
    }), 20_000)
})
