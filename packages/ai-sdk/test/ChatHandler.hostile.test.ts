/**
 * The chat endpoint against hostile clients, over a real loopback socket: bodies that are not JSON, too
 * large, too slow, of the wrong type or shape are a typed 4xx and no session is looked up; a client that
 * goes away mid-turn interrupts the turn, which is compensated; a client that never reads holds the turn
 * where it is (the server runs ahead of it by a bounded amount), and going away then ends it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Script } from "@toolgate/providers"
import { type AgentSession, Provider, type StreamEvent } from "@toolgate/runtime"
import { DefaultChatTransport, type UIMessageChunk } from "ai"
import { Effect, Queue, Ref, Schedule, Stream } from "effect"
import * as net from "node:net"
import { keyed, type Log, serveChat, session, userMessage, weatherToolkit } from "./support/chatServer.js"

const text = (t: string): StreamEvent.StreamEvent => ({ _tag: "TextDelta", text: t })
const call = (id: string, args: unknown): StreamEvent.StreamEvent => ({ _tag: "ToolCallComplete", id, name: "get_weather", arguments: args as never })
const done: StreamEvent.StreamEvent = { _tag: "Done" }

/** A provider answering round 1 with `first` and every later round with `rest`. */
const provider = (first: Stream.Stream<StreamEvent.StreamEvent>, rest: Stream.Stream<StreamEvent.StreamEvent>): Provider.AgentProvider => ({
  capabilities: Provider.capabilities({ name: "hostile", requiresNetworking: false }),
  stream: (request) => Script.position(request.messages).round === 0 ? first : rest,
  validateTools: () => Effect.succeed([])
})

const body = (id: string, text = "hi") => JSON.stringify({ id, messages: [userMessage(text)], trigger: "submit-message" })

/** A raw HTTP/1.1 POST on a socket that never reads what comes back. */
const rawPost = (api: string, payload: string, headers: Record<string, string> = {}) => {
  const url = new URL(api)
  const socket = net.connect(Number(url.port), url.hostname)
  socket.pause()
  const lines = [`POST ${url.pathname} HTTP/1.1`, `host: ${url.host}`, "content-type: application/json", `content-length: ${Buffer.byteLength(payload)}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)]
  socket.write(`${lines.join("\r\n")}\r\n\r\n${payload}`)
  return socket
}

describe("ChatHandler against hostile clients", () => {
  it.scopedLive("bad JSON, wrong shapes, a wrong content type and an oversized body are typed 4xx; no session is looked up", () =>
    Effect.gen(function*() {
      const lookups = yield* Ref.make(0)
      const log: Log = { ran: [], undone: [] }
      const lookup = yield* keyed((id) => Effect.zipRight(Ref.update(lookups, (n) => n + 1), session(id, { turns: [[[text("no"), done]]] }, weatherToolkit(log))))
      const api = yield* serveChat({ session: lookup, maxBodyBytes: 4096 })
      const post = (payload: string, contentType = "application/json") =>
        Effect.promise(async () => {
          const response = await fetch(api, { method: "POST", headers: { "content-type": contentType }, body: payload })
          const text = await response.text()
          return { status: response.status, type: response.headers.get("content-type"), body: (response.status === 200 ? {} : JSON.parse(text)) as { error: { message: string; type: string } } }
        })
      const cases: ReadonlyArray<readonly [string, string, number, RegExp]> = [
        ["not JSON", "{\"id\": ", 400, /not JSON/],
        ["no messages", JSON.stringify({ id: "c", trigger: "submit-message" }), 400, /messages/],
        ["empty messages", JSON.stringify({ id: "c", messages: [], trigger: "submit-message" }), 400, /messages/],
        ["unknown trigger", JSON.stringify({ id: "c", messages: [userMessage("hi")], trigger: "delete-everything" }), 400, /trigger/],
        ["empty chat id", body(""), 400, /id/],
        ["a chat id too long", body("x".repeat(257)), 400, /id/],
        ["the assistant's message last", JSON.stringify({ id: "c", messages: [{ id: "a", role: "assistant", parts: [{ type: "text", text: "hi" }] }], trigger: "submit-message" }), 400, /last message must be the user's/],
        ["no text part", JSON.stringify({ id: "c", messages: [{ id: "u", role: "user", parts: [{ type: "file", url: "x" }] }], trigger: "submit-message" }), 400, /no text part/],
        ["a JSON array", "[1, 2]", 400, /ChatRequest|expected/i],
        ["oversized", body("c", "x".repeat(10_000)), 413, /larger than 4096 bytes/]
      ]
      for (const [what, payload, status, message] of cases) {
        const answer = yield* post(payload)
        assert.strictEqual(answer.status, status, what)
        assert.strictEqual(answer.body.error.type, "invalid_request_error", what)
        assert.match(answer.body.error.message, message, what)
      }
      // a body without a length that grows past the limit: refused (413, or the connection closed), never read whole
      const chunked = yield* Effect.async<string>((resume) => {
        const url = new URL(api)
        const socket = net.connect(Number(url.port), url.hostname)
        let received = ""
        socket.on("data", (data) => (received += data.toString()))
        socket.on("close", () => resume(Effect.succeed(received)))
        socket.on("error", () => undefined)
        const piece = "x".repeat(1000)
        socket.write(`POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`)
        for (let i = 0; i < 64; i++) socket.write(`${piece.length.toString(16)}\r\n${piece}\r\n`, () => undefined)
        return Effect.sync(() => socket.destroy())
      })
      assert.isTrue(chunked === "" || chunked.startsWith("HTTP/1.1 413"), chunked.slice(0, 100))
      const plain = yield* post(body("c"), "text/plain")
      assert.strictEqual(plain.type, "application/json")
      assert.strictEqual(plain.status, 415)
      assert.strictEqual(yield* Ref.get(lookups), 0)
      // a good request after all of them still works
      const good = yield* post(body("c"))
      assert.deepStrictEqual([good.status, good.type], [200, "text/event-stream"])
      assert.strictEqual(yield* Ref.get(lookups), 1)
    }))

  it.scopedLive("a body that does not arrive within the time limit is a 408, and nothing runs", () =>
    Effect.gen(function*() {
      const lookups = yield* Ref.make(0)
      const log: Log = { ran: [], undone: [] }
      const lookup = yield* keyed((id) => Effect.zipRight(Ref.update(lookups, (n) => n + 1), session(id, { turns: [[[text("no"), done]]] }, weatherToolkit(log))))
      const api = yield* serveChat({ session: lookup, bodyTimeout: "300 millis" })
      const answer = yield* Effect.async<string>((resume) => {
        const url = new URL(api)
        const socket = net.connect(Number(url.port), url.hostname)
        let received = ""
        socket.on("data", (data) => (received += data.toString()))
        socket.on("close", () => resume(Effect.succeed(received)))
        socket.on("error", () => resume(Effect.succeed(received)))
        // the headers promise 1000 bytes; 10 arrive
        socket.write(`POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"id": "c"`)
        return Effect.sync(() => socket.destroy())
      })
      assert.match(answer, /^HTTP\/1\.1 408/)
      assert.match(answer, /did not arrive within/)
      assert.strictEqual(yield* Ref.get(lookups), 0)
    }))

  it.scopedLive("a client that goes away mid-turn interrupts the turn: the call it ran is compensated, nothing is outstanding", () =>
    Effect.gen(function*() {
      const log: Log = { ran: [], undone: [] }
      const held = yield* Ref.make<AgentSession.AgentSession | undefined>(undefined)
      // round 1 calls the tool; round 2 writes a little and never ends
      const model = provider(Stream.make(call("call_1", { city: "Paris" }), done), Stream.concat(Stream.make(text("thinking…")), Stream.never))
      const lookup = yield* keyed((id) => Effect.tap(session(id, model, weatherToolkit(log)), (s) => Ref.set(held, s)))
      const api = yield* serveChat({ session: lookup })
      const seen = yield* Effect.promise(async () => {
        const abort = new AbortController()
        const stream = await new DefaultChatTransport({ api }).sendMessages({ chatId: "gone", messages: [userMessage("Paris?")], trigger: "submit-message", messageId: undefined, abortSignal: abort.signal })
        const chunks: Array<UIMessageChunk> = []
        try {
          for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) {
            chunks.push(chunk)
            if (chunk.type === "text-delta") abort.abort()
          }
        } catch {
          // the abort ends the read
        }
        return chunks.map((c) => c.type)
      })
      assert.include(seen, "tool-output-available")
      // the server saw the client go: the turn is interrupted and its call undone
      yield* Effect.suspend(() => log.undone.length === 1 ? Effect.void : Effect.fail("not yet")).pipe(
        Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo("20 seconds")))
      )
      assert.deepStrictEqual(log.ran, [{ city: "Paris" }])
      assert.deepStrictEqual(log.undone, [{ city: "Paris" }])
      const s = (yield* Ref.get(held))!
      assert.deepStrictEqual(yield* s.outstanding, [])
      const history = yield* s.history
      assert.deepStrictEqual(history.map((m) => m._tag), ["User"])
    }))

  it.scopedLive("a client that never reads holds the turn within a bound; going away then ends the turn", () =>
    Effect.gen(function*() {
      const pulled = yield* Ref.make(0)
      const kilobyte = "x".repeat(1024)
      const log: Log = { ran: [], undone: [] }
      const held = yield* Ref.make<AgentSession.AgentSession | undefined>(undefined)
      // a model that writes without end: 1 KiB a delta, until the session's 100,000 events a round if nothing holds it
      const model = provider(Stream.repeatValue(text(kilobyte)), Stream.empty)
      const counted = (s: AgentSession.AgentSession): AgentSession.AgentSession => ({
        ...s,
        stream: (t, o) => s.stream(t, o).pipe(Stream.tap(() => Ref.update(pulled, (n) => n + 1)))
      })
      const lookup = yield* keyed((id) => Effect.tap(session(id, model, weatherToolkit(log)), (s) => Ref.set(held, s)).pipe(Effect.map(counted)))
      const api = yield* serveChat({ session: lookup })
      const socket = rawPost(api, body("never-reads"))
      yield* Effect.addFinalizer(() => Effect.sync(() => socket.destroy()))
      // wait until the turn stops moving (the socket's buffers are full)
      let last = -1
      let still = 0
      while (still < 5) {
        yield* Effect.sleep("200 millis")
        const now = yield* Ref.get(pulled)
        still = now === last && now > 0 ? still + 1 : 0
        last = now
      }
      assert.isBelow(last, 50_000, "the turn ran ahead of a client that reads nothing")
      assert.isAbove(last, 100, "the turn streamed")
      const s = (yield* Ref.get(held))!
      const events = yield* s.subscribe
      socket.destroy()
      const ended = yield* Queue.take(events).pipe(Effect.repeat({ until: (e) => e._tag === "TurnRolledBack" }), Effect.timeout("20 seconds"))
      assert.strictEqual(ended._tag, "TurnRolledBack")
    }), { timeout: 60_000 })
})
