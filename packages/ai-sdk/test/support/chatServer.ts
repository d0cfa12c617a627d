/**
 * What the chat endpoint tests share: a real server on a loopback port serving `ChatHandler` at /api/chat,
 * sessions on `Scripted` over a weather tool, the drift gate over a profile the test picks, and a client that
 * is the AI SDK's own (`DefaultChatTransport`, `readUIMessageStream`).
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type { JsonSchema } from "@toolgate/json-schema"
import { Scripted, type Script } from "@toolgate/providers"
import { AgentSession, ArgumentValidator, DriftGate, type Provider, RelayProfile, Tool, Toolkit } from "@toolgate/runtime"
import { DefaultChatTransport, readUIMessageStream, type UIMessageChunk } from "ai"
import { Context, Effect, Either, Layer, Stream } from "effect"
import { createServer } from "node:http"
import { ChatHandler, type ChatStream, ChatSessions } from "../../src/index.js"

export const weatherSchema: JsonSchema.JsonSchema = {
  type: "object",
  properties: { city: { type: "string", minLength: 1 }, units: { enum: ["metric", "imperial"] }, days: { type: "integer", minimum: 1, maximum: 16 } },
  required: ["city"],
  additionalProperties: false
}

/** The relay's drifted weather schema: `city` no longer required, `units` gained "kelvin". */
export const driftedSchema: JsonSchema.JsonSchema = {
  type: "object",
  properties: { city: { type: "string", minLength: 1 }, units: { enum: ["metric", "imperial", "kelvin"] }, days: { type: "integer", minimum: 1, maximum: 16 } },
  additionalProperties: false
}

/** What the weather tool ran with, and what its undo took back. */
export interface Log {
  readonly ran: Array<unknown>
  readonly undone: Array<unknown>
}

/** The weather tool; `hold` (when given) runs before it answers (a test holds a call mid-turn with it). */
export const weatherToolkit = (log: Log, hold: Effect.Effect<void> = Effect.void) =>
  Either.getOrThrow(Toolkit.make(Tool.make("get_weather", {
    description: "The weather in a city.",
    parameters: weatherSchema,
    execute: (args) => Effect.zipRight(hold, Effect.sync(() => (log.ran.push(args), { city: (args as { city: string }).city, celsius: 18 }))),
    undo: (args) => Effect.sync(() => void log.undone.push(args))
  })))

/** A relay profile that exports `schema` as the weather tool's. */
export const profile = (schema: JsonSchema.JsonSchema) =>
  Layer.succeed(RelayProfile.RelayProfile, {
    probe: () => Effect.succeed(RelayProfile.Probe.Exported({ version: "1.0", toolSchemas: new Map([["get_weather", schema]]) }))
  })

const withoutComplete = ({ complete: _, requests: __, ...provider }: Scripted.Scripted): Provider.AgentProvider => ({
  ...provider,
  // one event at a time, as a model's stream arrives
  stream: (request) => Stream.rechunk(provider.stream(request), 1)
})

/** A cloud-profile session over `provider` (or `script` played by `Scripted`), gated by `exported`. */
export const session = (id: string, model: Script.Script | Provider.AgentProvider, toolkit: Toolkit.Toolkit<never>, exported: JsonSchema.JsonSchema = weatherSchema) =>
  Effect.gen(function*() {
    // without `complete` the session reads the script as a stream: one TextDelta per text event
    const provider: Provider.AgentProvider = "turns" in model ? withoutComplete(yield* Scripted.make(model)) : model
    return yield* AgentSession.make({ id, provider, toolkit, mode: "cloudProfile" })
  }).pipe(Effect.provide(Layer.merge(DriftGate.layer.pipe(Layer.provide(profile(exported))), ArgumentValidator.layer)))

/** Serves the chat endpoint over `lookup` at /api/chat on a loopback port for the scope; the endpoint's URL. */
export const serveChat = <E extends ChatStream.Reportable>(options: ChatHandler.Options<E>) =>
  Effect.gen(function*() {
    const handler = yield* ChatHandler.make(options)
    const app = HttpRouter.empty.pipe(HttpRouter.post("/api/chat", handler))
    const context = yield* Layer.build(HttpServer.serve(app).pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))))
    const address = Context.get(context, HttpServer.HttpServer).address
    if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("not a TCP server")
    return `http://127.0.0.1:${address.port}/api/chat`
  })

/** Sessions per chat id made by `make`, for the scope. */
export const keyed = <E>(make: (id: string) => Effect.Effect<AgentSession.AgentSession, E>) =>
  Effect.orDie(ChatSessions.keyed(make))

/** A user message as `useChat` sends it. */
export const userMessage = (text: string, id = "u1") => ({ id, role: "user" as const, parts: [{ type: "text" as const, text }] })

/** One turn through the AI SDK's own client: every chunk it read, and the message its reader built. */
export const converse = (api: string, chatId: string, text: string, options: { readonly abortSignal?: AbortSignal; readonly onChunk?: (chunk: UIMessageChunk) => void } = {}) =>
  Effect.promise(async () => {
    const transport = new DefaultChatTransport<ChatStream.ChatMessage>({ api })
    const stream = await transport.sendMessages({ chatId, messages: [userMessage(text)], trigger: "submit-message", messageId: undefined, abortSignal: options.abortSignal })
    const chunks: Array<UIMessageChunk> = []
    const errors: Array<string> = []
    const [mine, theirs] = stream.tee()
    const reading = (async () => {
      for await (const chunk of mine as unknown as AsyncIterable<UIMessageChunk>) {
        chunks.push(chunk)
        options.onChunk?.(chunk)
      }
    })()
    let message: ChatStream.ChatMessage | undefined
    for await (const m of readUIMessageStream<ChatStream.ChatMessage>({ stream: theirs as never, onError: (e) => errors.push(e instanceof Error ? e.message : String(e)) })) message = m
    await reading
    return { chunks, errors, message }
  })
