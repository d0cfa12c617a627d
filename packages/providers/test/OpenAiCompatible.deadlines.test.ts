/**
 * OpenAiCompatible's deadlines through `AgentSession` over loopback servers: keep-alive comments and a chunk
 * trickled a byte at a time do not hold a round open, and an endless stream of content ends at the round timeout.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import type * as http from "node:http"
import { AgentSession, ArgumentValidator, Toolkit } from "@toolgate/runtime"
import type * as OpenAiCompatible from "../src/OpenAiCompatible.js"
import { data, provider, start } from "./OpenAiCompatible.support.js"

/** An event stream that writes `first`, then `piece` every 50 ms until the client goes away. */
const forever = (piece: string, first = "") => (_req: unknown, res: http.ServerResponse): void => {
  res.writeHead(200, { "content-type": "text/event-stream" })
  res.flushHeaders()
  if (first !== "") res.write(first)
  const timer = setInterval(() => res.write(piece), 50)
  res.on("close", () => clearInterval(timer))
}

const reasonOf = (error: AgentSession.SendError): string => error._tag === "ProviderError" ? error.reason : error._tag

const send = (reply: ReturnType<typeof forever>, options: Partial<OpenAiCompatible.Options>) =>
  Effect.gen(function*() {
    const server = yield* start(reply)
    const p = yield* provider(server, options)
    const s = yield* AgentSession.make({ provider: p, toolkit: Either.getOrThrow(Toolkit.make()), mode: "local" }).pipe(Effect.provide(ArgumentValidator.layer))
    return reasonOf(yield* Effect.flip(s.send("hi")))
  })

const content = data({ choices: [{ index: 0, delta: { content: "more " }, finish_reason: null }] })

describe("OpenAiCompatible deadlines over loopback, through AgentSession", () => {
  it.scopedLive("keep-alive comments for ever end the round at the timeout", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* send(forever(": keep-alive\n\n"), { idleTimeout: "400 millis" }), "no event for 400ms")
    }), 20_000)

  it.scopedLive("a chunk trickled a byte at a time, never completed, ends the round at the timeout", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* send(forever("x", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\""), { idleTimeout: "400 millis" }), "no event for 400ms")
    }), 20_000)

  it.scopedLive("content for ever ends at the round timeout", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* send(forever(content), { idleTimeout: "400 millis", roundTimeout: "1 second" }), "the round lasted longer than 1s")
    }), 20_000)
})
