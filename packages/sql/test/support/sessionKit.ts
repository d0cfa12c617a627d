/**
 * Sessions on a store for the suite that runs on every backend: a scripted model, tools that count their runs,
 * a session made on a given store instance, and a store whose journal writes fail.
 */
import { Effect, Either, Stream } from "effect"
import { AgentSession, ArgumentValidator, Errors, Provider, SessionStore, type StreamEvent, Tool, Toolkit } from "@toolgate/runtime"

/** A model answering request n with `rounds[n]`. */
export const scripted = (rounds: ReadonlyArray<ReadonlyArray<StreamEvent.StreamEvent>>) => {
  const requests: Array<Provider.CompletionRequest> = []
  const provider: Provider.AgentProvider = {
    capabilities: Provider.capabilities({ name: "scripted", supportsParallelToolCalls: false, requiresNetworking: false }),
    stream: (request) =>
      Stream.suspend(() => {
        const round = rounds[requests.length]
        requests.push(request)
        return round === undefined ? Stream.fail(new Errors.ProviderError({ provider: "scripted", reason: "no round left", retryable: false })) : Stream.fromIterable(round)
      })
  }
  return { provider, requests }
}

/** A round calling `name` once, as call `id`. */
export const calling = (id: string, name: string, v: string): ReadonlyArray<StreamEvent.StreamEvent> => [
  { _tag: "ToolCallComplete", id, name, arguments: { v } },
  { _tag: "Done" }
]

/** A round answering `text`. */
export const answering = (text: string): ReadonlyArray<StreamEvent.StreamEvent> => [{ _tag: "TextDelta", text }, { _tag: "Done" }]

/** `book` (undone) and `charge` (no undo), counting runs and undos by idempotency key. */
export const kit = () => {
  const runs: Array<string> = []
  const undos: Array<string> = []
  const params = { type: "object", properties: { v: { type: "string" } }, required: ["v"] } as const
  const book = Tool.make("book", {
    description: "Books.",
    parameters: params,
    execute: (args, ctx) => Effect.sync(() => (runs.push(ctx.idempotencyKey), { booked: (args as { v: string }).v })),
    undo: (_args, ctx) => Effect.sync(() => void undos.push(ctx.idempotencyKey))
  })
  const charge = Tool.make("charge", {
    description: "Charges.",
    parameters: params,
    execute: (args, ctx) => Effect.sync(() => (runs.push(ctx.idempotencyKey), { charged: (args as { v: string }).v }))
  })
  return { runs, undos, toolkit: Either.getOrThrow(Toolkit.make(book, charge)) }
}

/** A local-mode session `id` on the store instance `store`. */
export const sessionOn = (
  store: SessionStore.Service,
  id: string,
  provider: Provider.AgentProvider,
  toolkit: Toolkit.Toolkit<never>,
  extra: Pick<AgentSession.Options<never>, "snapshot" | "onBusy" | "leaseMillis" | "waitMillis"> = {}
) =>
  AgentSession.make({ ...extra, id, provider, toolkit, mode: "local" }).pipe(
    Effect.provide(ArgumentValidator.layer),
    Effect.provideService(SessionStore.SessionStore, store)
  )

/** `store` whose `callStarted` fails (the journal cannot be written). */
export const refusing = (store: SessionStore.Service): SessionStore.Service => ({
  ...store,
  callStarted: (call) => Effect.fail(new Errors.SessionStoreError({ session: call.session, operation: "callStarted", detail: "the disk is full" }))
})
