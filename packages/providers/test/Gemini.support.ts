/**
 * Gemini doubles for the Gemini tests: the loopback server of the OpenAiCompatible tests (a real
 * `node:http` server on 127.0.0.1 that records every request and replays recorded streams in random
 * pieces), the provider pointed at it, a request, and helpers to read what the server received.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Effect, Redacted } from "effect"
import type { Provider } from "@toolgate/runtime"
import * as Gemini from "../src/Gemini.js"
import type { Reply, Server } from "./OpenAiCompatible.support.js"

export { answer, data, fixture, hang, type Reply, replay, start } from "./OpenAiCompatible.support.js"

/** The key the tests send (and look for in errors). */
export const apiKey = "AIzaSy-test-key-0123456789"

/** The provider for `server` on the Gemini API, over `fetch` (real loopback sockets); options a test knows are valid. */
export const provider = (server: Server, options: Partial<Gemini.Options> = {}): Effect.Effect<Provider.AgentProvider> =>
  Gemini.make({ baseUrl: server.baseUrl, model: "gemini-2.5-flash", apiKey: Redacted.make(apiKey), timeout: "5 seconds", ...options }).pipe(
    Effect.provide(FetchHttpClient.layer),
    Effect.orDie // the tests' options are valid
  )

export { collect, request } from "./support/roundTrip.js"

/** Writes the first `bytes` bytes of `text` as an event stream, then destroys the socket (a connection cut mid-body). */
export const cutOff = (text: string, bytes: number): Reply => (_req, res) => {
  res.writeHead(200, { "content-type": "text/event-stream" })
  res.write(Buffer.from(text, "utf8").subarray(0, bytes), () => setTimeout(() => res.socket?.destroy(), 20))
}

/** The JSON body of the `n`-th request the server received. */
export const sent = (server: Server, n = 0): any => JSON.parse(server.requests[n]!.body)
