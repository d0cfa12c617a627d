/**
 * Sessions on a `SessionStore` for tests: a session made with a store in context, a store whose writes fail
 * from the n-th on (a process that died there: nothing after it reaches the store), and a check that every
 * tool call in a history is answered.
 */
import { Effect, Either } from "effect"
import * as AgentSession from "../../src/AgentSession.js"
import * as ArgumentValidator from "../../src/ArgumentValidator.js"
import * as Errors from "../../src/Errors.js"
import type * as Message from "../../src/Message.js"
import type * as Provider from "../../src/Provider.js"
import * as SessionStore from "../../src/SessionStore.js"
import * as Tool from "../../src/Tool.js"
import * as Toolkit from "../../src/Toolkit.js"

/** A local-mode session `id` on `store`. */
export const onStore = (
  store: SessionStore.Service,
  provider: Provider.AgentProvider | Provider.RegistryAware,
  toolkit: Toolkit.Toolkit<never>,
  extra: Pick<AgentSession.Options<never>, "id" | "snapshot" | "onBusy" | "leaseMillis" | "chainScope"> = {}
) =>
  AgentSession.make({ id: "s1", ...extra, provider, toolkit, mode: "local" }).pipe(
    Effect.provide(ArgumentValidator.layer),
    Effect.provideService(SessionStore.SessionStore, store)
  )

/** The journal writes of a store (what a crash can fall between). */
const writes = ["callStarted", "callFinished", "commitTurn", "rollbackTurn", "undoStepStarted", "undoStepInterrupted", "undoStepDone", "undoTurn", "reconcile"] as const

/**
 * `store` with writes from the `n`-th (0-based) on failing without reaching it; `onDeath` runs at the first
 * that fails; `written()` counts those that reached it.
 */
export const dying = (store: SessionStore.Service, n: number, onDeath: () => void = () => {}) => {
  let count = 0
  let dead = false
  const wrapped = { ...store } as Record<string, unknown>
  for (const name of writes) {
    const write = store[name] as (...args: ReadonlyArray<unknown>) => Effect.Effect<unknown, unknown>
    wrapped[name] = (...args: ReadonlyArray<unknown>) =>
      Effect.suspend(() =>
        count++ >= n
          ? Effect.suspend(() => {
            if (!dead) onDeath()
            dead = true
            return Effect.fail(new Errors.SessionStoreError({ session: "s1", operation: name, detail: "the process died" }))
          })
          : write(...args)
      )
  }
  return { store: wrapped as unknown as SessionStore.Service, written: () => Math.min(count, n) }
}

/** Tools that count their runs by idempotency key: `charge` (no undo) and `book` (undone by `unbook`). */
export const countingKit = () => {
  const runs = new Map<string, number>()
  const undone: Array<string> = []
  const params = { type: "object", properties: { v: { type: "string" } }, required: ["v"] }
  const ran = (key: string) => runs.set(key, (runs.get(key) ?? 0) + 1)
  const charge = Tool.make("charge", {
    description: "c",
    parameters: params,
    execute: (args, ctx) => Effect.sync(() => (ran(ctx.idempotencyKey), { charged: (args as { v: string }).v }))
  })
  const book = Tool.make("book", {
    description: "b",
    parameters: params,
    execute: (args, ctx) => Effect.sync(() => (ran(ctx.idempotencyKey), { booked: (args as { v: string }).v })),
    undo: (args, ctx) => Effect.sync(() => void undone.push(`${(args as { v: string }).v} ${JSON.stringify(ctx.result)} ${ctx.idempotencyKey}`))
  })
  return { runs, undone, toolkit: Either.getOrThrow(Toolkit.make(charge, book)) }
}

/** The tool calls in `history` that no later ToolResult answers. */
export const unanswered = (history: ReadonlyArray<Message.Message>): ReadonlyArray<string> => {
  const open = new Set<string>()
  for (const m of history) {
    if (m._tag === "Assistant") for (const c of m.toolCalls) open.add(c.id)
    if (m._tag === "ToolResult") open.delete(m.callId)
  }
  return [...open]
}
