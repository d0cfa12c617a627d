/**
 * What commands need only once they run, loaded when one first does: the relay's server module (`serve`,
 * `demo`; node's HTTP server stack and `ws`), undici (`check --relay`, `demo`), and the library parts that
 * do the work: layer 2 (Ajv), the prover (refa, Ajv), the normalizers, the runtime, the SQL session store (better-sqlite3, pg). They are most of the
 * bundled bin, so `--help`, `--version` and reading a command line load none of them; each command loads
 * what it uses. The command modules themselves import them only as types.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** `validate`, `examples`: one call's outcome (`Arguments.prepare`, envelopes) and its renderings. */
export const outcome = Effect.promise(() => Promise.all([import("../Outcome.js"), import("../Render.js")]))

/** `normalize`: the provider dialects. */
export const normalizing = Effect.promise(() => import("./normalizing.js"))

/** `subschema`: the prover. */
export const subschema = Effect.promise(() => import("@toolgate/subschema/Subschema"))

/** `check --relay`, `demo --relay`: the runtime's one check of an http(s) URL. */
export const decode = Effect.promise(() => import("@toolgate/runtime/Decode"))

/** `demo --relay`: the relay profile's client (its path, for the preflight request). */
export const relayProfileClient = Effect.promise(() => import("@toolgate/providers/RelayProfileClient"))

/** `check`: the relay profile probe and the drift gate's verdicts. */
export const checking = Effect.promise(() => import("./checkRun.js"))

/** `mcp lock`, `check --mcp`: the MCP client (the SDK), the lock and the prover. */
export const mcp = Effect.promise(() => import("./mcpRun.js"))

/** `demo`: the scenarios' runs and their renderings. */
export const demo = Effect.promise(() => Promise.all([import("./demoRun.js"), import("./demoRender.js")]))

/** `sessions`: the session store on SQL (SQLite read-only, Postgres) and the renderings. */
export const sessions = Effect.promise(() => Promise.all([import("./sessionsStore.js"), import("./sessionsRender.js")]))

/** The relay's server module (`@toolgate/relay/Relay`). */
export const relay = Effect.promise(() => import("@toolgate/relay/Relay"))

/** An undici `HttpClient`. */
export const httpClient = Layer.unwrapEffect(
  Effect.promise(() => import("@effect/platform-node/NodeHttpClient")).pipe(Effect.map((client) => client.layerUndici))
)
