/**
 * The chat endpoint over a real loopback socket, driven by the AI SDK's own client (`DefaultChatTransport`,
 * `readUIMessageStream`): text streams, a coerced call and a repaired call are tool parts, a drift error is an
 * error part, the stream always ends with finish, and a chat id keeps its session across requests.
 */
import { assert, describe, it } from "@effect/vitest"
import { DefaultChatTransport, type UIMessageChunk } from "ai"
import { Effect } from "effect"
import { ChatHandler, ChatSessions } from "../src/index.js"
import { converse, driftedSchema, keyed, type Log, serveChat, session, userMessage, weatherToolkit } from "./support/chatServer.js"

const call = (id: string, args: unknown) => ({ _tag: "ToolCallComplete" as const, id, name: "get_weather", arguments: args as never })
const text = (t: string) => ({ _tag: "TextDelta" as const, text: t })
const done = { _tag: "Done" as const }

/** The scripts by chat id: each chat's one turn (played again for a second turn). */
const scripts = {
  coerced: { turns: [[[text("Let me check. "), call("call_1", "{\"city\": \"Berlin\", \"days\": \"15\"}"), done], [text("Berlin: "), text("mild."), done]]] },
  repaired: {
    turns: [[
      [call("call_1", { city: "Madrid", units: "kelvin" }), done],
      [call("call_2", { city: "Madrid", units: "metric" }), done],
      [text("Madrid: 27 °C."), done]
    ]]
  },
  drift: { turns: [[[call("call_1", { units: "kelvin" }), done]]] },
  twice: { turns: [[[text("first"), done]], [[text("second"), done]]] },
  again: { turns: [[[call("call_1", { city: "Rome" }), done], [text("Rome: 24 °C."), done]]] }
} as const

const toolParts = (message: { parts: ReadonlyArray<{ type: string }> } | undefined) =>
  (message?.parts ?? []).filter((p) => p.type === "tool-get_weather") as unknown as ReadonlyArray<{ toolCallId: string; state: string; input: unknown; output?: unknown; errorText?: string }>

const texts = (message: { parts: ReadonlyArray<{ type: string }> } | undefined) =>
  (message?.parts ?? []).flatMap((p) => p.type === "text" ? [(p as unknown as { text: string }).text] : [])

/** The endpoint with a session per chat id, each playing its chat's script (the drift chat gated by a drifted profile). */
const endpoint = (log: Log) =>
  Effect.gen(function*() {
    const lookup = yield* keyed((id) =>
      session(id, scripts[id.split("-")[0] as keyof typeof scripts], weatherToolkit(log), id.startsWith("drift") ? driftedSchema : undefined)
    )
    return yield* serveChat({ session: lookup })
  })

describe("ChatHandler over a loopback socket, read by the AI SDK's client", () => {
  it.scopedLive("text streams and a coerced call is a tool part with its output; the stream ends with finish", () =>
    Effect.gen(function*() {
      const log: Log = { ran: [], undone: [] }
      const api = yield* endpoint(log)
      const { chunks, errors, message } = yield* converse(api, "coerced-1", "Forecast for Berlin?")
      assert.deepStrictEqual(errors, [])
      assert.deepStrictEqual(chunks.map((c) => c.type).filter((t) => t.startsWith("text-")), ["text-start", "text-delta", "text-end", "text-start", "text-delta", "text-delta", "text-end"])
      assert.deepStrictEqual(texts(message), ["Let me check. ", "Berlin: mild."])
      const [tool] = toolParts(message)
      assert.strictEqual(tool?.state, "output-available")
      assert.deepStrictEqual(tool?.output, { city: "Berlin", celsius: 18 })
      assert.deepStrictEqual(log.ran, [{ city: "Berlin", days: 15 }])
      assert.deepStrictEqual(chunks.at(-1), { type: "finish", finishReason: "stop" })
      // the calling round's text is marked as not the answer, in its own step
      assert.isTrue(message!.parts.some((p) => p.type === "data-toolgate-round-discarded"))
    }))

  it.scopedLive("a call with bad arguments is a tool part with the validation error; the repaired call runs", () =>
    Effect.gen(function*() {
      const log: Log = { ran: [], undone: [] }
      const api = yield* endpoint(log)
      const { errors, message } = yield* converse(api, "repaired-1", "Weather in Madrid, in kelvin?")
      assert.deepStrictEqual(errors, [])
      const tools = toolParts(message)
      assert.deepStrictEqual(tools.map((t) => [t.toolCallId, t.state]), [["call_1", "output-error"], ["call_2", "output-available"]])
      assert.match(tools[0]!.errorText!, /units/)
      assert.deepStrictEqual(tools[0]!.input, { city: "Madrid", units: "kelvin" })
      assert.isTrue(message!.parts.some((p) => p.type === "data-toolgate-repair"))
      assert.deepStrictEqual(texts(message), ["Madrid: 27 °C."])
      assert.deepStrictEqual(log.ran, [{ city: "Madrid", units: "metric" }])
    }))

  it.scopedLive("a drift error is an error part and the stream still ends with finish; nothing ran", () =>
    Effect.gen(function*() {
      const log: Log = { ran: [], undone: [] }
      const api = yield* endpoint(log)
      const { chunks, errors } = yield* converse(api, "drift-1", "Weather in Oslo?")
      assert.strictEqual(errors.length, 1)
      assert.match(errors[0]!, /^SchemaDriftError: Tool `get_weather` drifted/)
      assert.deepStrictEqual(chunks.slice(-2).map((c) => c.type), ["error", "finish"])
      assert.deepStrictEqual(chunks.at(-1), { type: "finish", finishReason: "error" })
      assert.deepStrictEqual(log.ran, [])
    }))

  it.scopedLive("the chat id names the session: a second request of the same chat is its next turn", () =>
    Effect.gen(function*() {
      const log: Log = { ran: [], undone: [] }
      const api = yield* endpoint(log)
      const first = yield* converse(api, "twice-1", "one")
      const second = yield* converse(api, "twice-1", "two")
      const other = yield* converse(api, "twice-2", "one")
      assert.deepStrictEqual([texts(first.message), texts(second.message), texts(other.message)], [["first"], ["second"], ["first"]])
    }))

  it.scopedLive("regenerate-message takes the last committed turn back (its call undone) and answers the text again", () =>
    Effect.gen(function*() {
      const log: Log = { ran: [], undone: [] }
      const api = yield* endpoint(log)
      const first = yield* converse(api, "again-1", "Rome?")
      assert.deepStrictEqual(texts(first.message), ["Rome: 24 °C."])
      const chunks = yield* Effect.promise(async () => {
        const stream = await new DefaultChatTransport({ api }).sendMessages({
          chatId: "again-1", messages: [userMessage("Rome?")], trigger: "regenerate-message", messageId: "a1", abortSignal: undefined
        })
        const out: Array<UIMessageChunk> = []
        for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) out.push(chunk)
        return out
      })
      assert.deepStrictEqual(log.undone, [{ city: "Rome" }])
      assert.deepStrictEqual(log.ran, [{ city: "Rome" }, { city: "Rome" }])
      assert.deepStrictEqual(chunks.flatMap((c) => c.type === "text-delta" ? [c.delta] : []), ["Rome: 24 °C."])
      assert.deepStrictEqual(chunks.at(-1), { type: "finish", finishReason: "stop" })
    }))

  it.scopedLive("past the sessions' capacity a new chat gets ChatCapacityExceeded as its error part; held chats go on", () =>
    Effect.gen(function*() {
      const log: Log = { ran: [], undone: [] }
      const lookup = yield* Effect.orDie(ChatSessions.keyed((id: string) => session(id, scripts.twice, weatherToolkit(log)), { capacity: 1 }))
      const api = yield* serveChat({ session: lookup })
      const held = yield* converse(api, "twice-1", "one")
      const refused = yield* converse(api, "twice-2", "one")
      assert.deepStrictEqual(texts(held.message), ["first"])
      assert.deepStrictEqual(refused.errors, ["ChatCapacityExceeded: the server holds 1 chats already; try again when one is idle"])
      assert.deepStrictEqual(refused.chunks.at(-1), { type: "finish", finishReason: "error" })
      assert.deepStrictEqual(texts((yield* converse(api, "twice-1", "two")).message), ["second"])
    }))

  it.effect("ChatSessions and ChatHandler refuse options that are not valid", () =>
    Effect.gen(function*() {
      const sessions = yield* Effect.flip(ChatSessions.keyed(() => Effect.never, { capacity: 0 }))
      assert.strictEqual(sessions._tag, "InvalidOptions")
      const handler = yield* Effect.flip(ChatHandler.make({ session: () => Effect.never, maxBodyBytes: 0 }))
      assert.strictEqual(handler._tag, "InvalidOptions")
      assert.match(handler.message, /maxBodyBytes/)
      const keepAlive = yield* Effect.flip(ChatHandler.make({ session: () => Effect.never, keepAlive: "30 days" }))
      assert.match(keepAlive.message, /keepAlive/)
    }).pipe(Effect.scoped))

  it.scopedLive("with keepAlive the stream opens with an SSE comment (the AI SDK's), which the AI SDK's client reads past", () =>
    Effect.gen(function*() {
      const log: Log = { ran: [], undone: [] }
      const lookup = yield* keyed((id) => session(id, scripts.twice, weatherToolkit(log)))
      const api = yield* serveChat({ session: lookup, keepAlive: "5 seconds" })
      const raw = yield* Effect.promise(() =>
        fetch(api, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: "twice-1", messages: [userMessage("one")], trigger: "submit-message" }) }).then((r) => r.text())
      )
      assert.isTrue(raw.startsWith(": stream-open\n\n"))
      assert.isTrue(raw.endsWith("data: [DONE]\n\n"))
      assert.deepStrictEqual(texts((yield* converse(api, "twice-1", "two")).message), ["second"])
    }))
})
