/**
 * What only some commands need, loaded when one of them first does: the relay's server module (`serve`,
 * `demo`; it brings node's HTTP server stack and `ws`) and undici (`check --relay`, `demo`). They are most
 * of the bundled bin, so `--help`, `--version` and the other commands start without them.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** The relay's server module (`@toolgate/relay/Relay`). */
export const relay = Effect.promise(() => import("@toolgate/relay/Relay"))

/** An undici `HttpClient`. */
export const httpClient = Layer.unwrapEffect(
  Effect.promise(() => import("@effect/platform-node/NodeHttpClient")).pipe(Effect.map((client) => client.layerUndici))
)
