/**
 * The bounds every streaming provider reads its answer within, over real loopback servers, the same for
 * CloudRelay, OpenAiCompatible and Gemini: an event that grows past `maxEventLength` and a body past
 * `maxRoundBytes` end the round typed and not retryable, and reading stops there (the server sees its
 * connection closed after little more than the limit); keep-alive comments do not hold a round open; a 413
 * is `code: "request_too_large"` (not retryable) and a 429 `code: "rate_limited"` (retryable).
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import { assert, describe, it } from "@effect/vitest"
import type { Errors, Provider } from "@toolgate/runtime"
import { Effect, Redacted } from "effect"
import type * as http from "node:http"
import * as CloudRelay from "../src/CloudRelay.js"
import * as Gemini from "../src/Gemini.js"
import * as OpenAiCompatible from "../src/OpenAiCompatible.js"
import * as RelayWire from "../src/RelayWire.js"
import { collect, data, type Reply, type Server, start } from "./OpenAiCompatible.support.js"

/** The bounds every streaming provider takes. */
type Bounds = Pick<CloudRelay.Options, "idleTimeout" | "roundTimeout" | "maxEventLength" | "maxRoundBytes">

/** One provider under test: how to build it for a server, and one text event in its wire. */
interface Subject {
  readonly name: string
  readonly make: (server: Server, bounds: Bounds) => Effect.Effect<Provider.AgentProvider, Errors.InvalidOptions, HttpClient.HttpClient>
  readonly text: (text: string) => string
}

const root = (server: Server) => server.baseUrl.replace(/\/v1$/, "")

const subjects: ReadonlyArray<Subject> = [
  {
    name: "CloudRelay",
    make: (server, bounds) => CloudRelay.make({ baseUrl: root(server), timeout: "5 seconds", ...bounds }),
    text: (text) => RelayWire.encodeEvent({ _tag: "TextDelta", text })
  },
  {
    name: "OpenAiCompatible",
    make: (server, bounds) => OpenAiCompatible.make({ baseUrl: server.baseUrl, model: "m", timeout: "5 seconds", ...bounds }),
    text: (text) => data({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })
  },
  {
    name: "Gemini",
    make: (server, bounds) => Gemini.make({ baseUrl: server.baseUrl, model: "gemini-2.5-flash", apiKey: Redacted.make("k"), timeout: "5 seconds", ...bounds }),
    text: (text) => data({ candidates: [{ content: { role: "model", parts: [{ text }] } }] })
  }
]

/** Writes `first`, then `piece` as fast as the client reads, until the connection closes; `written()` counts the bytes. */
const flood = (first: string, piece: string) => {
  let written = 0
  let closed: () => void = () => {}
  const closedNow = Effect.promise(() => new Promise<void>((resolve) => (closed = resolve)))
  const reply: Reply = (_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" })
    const pump = (): void => {
      while (!res.destroyed && !res.writableEnded) {
        written += Buffer.byteLength(piece)
        if (!res.write(piece)) return void res.once("drain", pump)
      }
    }
    res.on("close", () => closed())
    written += Buffer.byteLength(first)
    res.write(first)
    pump()
  }
  return { reply, closed: closedNow, written: () => written }
}

/** A reply that writes a keep-alive comment every 50 ms until the client goes away. */
const keepAlive: Reply = (_req, res: http.ServerResponse) => {
  res.writeHead(200, { "content-type": "text/event-stream" })
  const timer = setInterval(() => res.write(": keep-alive\n\n"), 50)
  res.on("close", () => clearInterval(timer))
}

const status = (code: number): Reply => (_req, res) => {
  res.writeHead(code, { "content-type": "application/json" })
  res.end(JSON.stringify({ error: { code, message: `status ${code}` } }))
}

const failureOf = (outcome: Effect.Effect<unknown, Errors.ProviderError | string>) =>
  Effect.flip(outcome).pipe(Effect.map((e) => typeof e === "string" ? assert.fail(e) : e))

const MiB = 1024 * 1024

describe.each(subjects)("$name within its bounds", (subject) => {
  it.scopedLive("an event that never ends fails at maxEventLength, not retryable, and reading stops", () =>
    Effect.gen(function*() {
      const server = flood("data: ", "x".repeat(64 * 1024))
      const api = yield* start(server.reply)
      const provider = yield* subject.make(api, { maxEventLength: MiB }).pipe(Effect.provide(FetchHttpClient.layer))
      const error = yield* failureOf(collect(provider))
      assert.deepStrictEqual([error.reason, error.retryable], [`an event exceeded ${MiB} characters`, false])
      yield* server.closed
      // what the kernel's socket buffers held is all that was read past the limit
      assert.isBelow(server.written(), 24 * MiB)
    }), 30_000)

  it.scopedLive("a body past maxRoundBytes fails the round, not retryable, and reading stops", () =>
    Effect.gen(function*() {
      const server = flood("", subject.text("y".repeat(1000)))
      const api = yield* start(server.reply)
      const provider = yield* subject.make(api, { maxRoundBytes: 256 * 1024 }).pipe(Effect.provide(FetchHttpClient.layer))
      const error = yield* failureOf(collect(provider))
      assert.deepStrictEqual([error.reason, error.retryable], [`the round's body exceeded ${256 * 1024} bytes`, false])
      yield* server.closed
      assert.isBelow(server.written(), 24 * MiB)
    }), 30_000)

  it.scopedLive("keep-alive comments for ever: the round ends at the idle timeout, retryable", () =>
    Effect.gen(function*() {
      const api = yield* start(keepAlive)
      const provider = yield* subject.make(api, { idleTimeout: "300 millis" }).pipe(Effect.provide(FetchHttpClient.layer))
      const error = yield* failureOf(collect(provider))
      assert.deepStrictEqual([error.reason, error.retryable], ["no event for 300ms", true])
    }), 30_000)

  it.scopedLive("413 is request_too_large (not retryable); 429 is rate_limited (retryable); 500 has no code", () =>
    Effect.gen(function*() {
      const codes: Array<[Errors.ProviderErrorCode | undefined, boolean]> = []
      for (const code of [413, 429, 500]) {
        const api = yield* start(status(code))
        const provider = yield* subject.make(api, {}).pipe(Effect.provide(FetchHttpClient.layer))
        const error = yield* failureOf(collect(provider))
        codes.push([error.code, error.retryable])
      }
      assert.deepStrictEqual(codes, [["request_too_large", false], ["rate_limited", true], [undefined, true]])
    }), 30_000)
})
