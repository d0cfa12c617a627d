/**
 * Sessions kept per chat id, for `ChatHandler`: the first request of a chat makes its session, later ones
 * reuse it while it is in use or was used within `idleTimeToLive`; past that it is closed (its scope, and with
 * a `SessionStore` its lease, released) and the next request makes it again (with a store, from the store's
 * records: the conversation goes on; without one, it starts over). At most `capacity` sessions are held;
 * a request for another chat then fails with `ChatCapacityExceeded` until one is released.
 *
 * @since 0.1.0
 */
import * as Decode from "@toolgate/runtime/Decode"
import type * as Errors from "@toolgate/runtime/Errors"
import type * as AgentSession from "@toolgate/runtime/AgentSession"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as RcMap from "effect/RcMap"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"

/** More chats than `capacity` are in use at once. */
export class ChatCapacityExceeded extends Schema.TaggedError<ChatCapacityExceeded>()("ChatCapacityExceeded", { capacity: Schema.Int }) {
  override get message(): string {
    return `the server holds ${this.capacity} chats already; try again when one is idle`
  }
}

/** The session of a chat id, held for the surrounding scope (the turn). */
export type Lookup<E> = (chatId: string) => Effect.Effect<AgentSession.AgentSession, E, Scope.Scope>

/** How sessions are kept. */
export interface Options {
  /** The most sessions held at once (an integer from 1 to 1,000,000; default 1,000). */
  readonly capacity?: number
  /** How long an unused session is kept (default 30 minutes). */
  readonly idleTimeToLive?: Duration.DurationInput
}

const Settings = Schema.Struct({
  capacity: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 1_000_000)), { exact: true, default: () => 1_000 }),
  idleTimeToLive: Schema.optionalWith(Decode.PositiveDuration, { exact: true, default: () => Duration.minutes(30) })
})

const decodeSettings = Decode.options("ChatSessions", Settings)

/**
 * Sessions made by `make(chatId)` (in a scope of their own, closed when the session is dropped), kept per
 * chat id for the surrounding scope; the lookup holds a session for its caller's scope.
 */
export const keyed = <E, R>(
  make: (chatId: string) => Effect.Effect<AgentSession.AgentSession, E, R | Scope.Scope>,
  options: Options = {}
): Effect.Effect<Lookup<E | ChatCapacityExceeded>, Errors.InvalidOptions, R | Scope.Scope> =>
  Effect.gen(function*() {
    const settings = yield* decodeSettings(options)
    const map = yield* RcMap.make({ lookup: make, capacity: settings.capacity, idleTimeToLive: settings.idleTimeToLive })
    return (chatId) =>
      RcMap.get(map, chatId).pipe(
        Effect.catchTag("ExceededCapacityException", () => Effect.fail(new ChatCapacityExceeded({ capacity: settings.capacity })))
      ) as Effect.Effect<AgentSession.AgentSession, E | ChatCapacityExceeded, Scope.Scope>
  })
