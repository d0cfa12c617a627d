/**
 * An MCP server's tools as toolgate tools. `make` connects (a scoped resource), lists, proves the listing
 * against a lock entry when one is given (`SchemaDriftError` before any model request), and builds a
 * `Toolkit` whose executors are `tools/call`: arguments pass layers 2–3 in a session like any tool's, and
 * each call carries its idempotency key in `_meta`. When the server says its tool list changed, the list is
 * read again and proved again against what the tools were built from, at most once per `relistInterval`;
 * a tool that drifted answers `unavailable` from then on. A call that finds the listing past its `ttlMs` has it
 * read and proved again first, the same way, within the same bound (never polled on a timer). Names outside
 * `[A-Za-z0-9_.-]{1,128}` and entries that are not tools are reported in `problems`; annotations are hints and
 * change nothing.
 *
 * @since 0.1.0
 */
import { Validator } from "@toolgate/json-schema"
import { Decode, DriftGate, type Errors, type Tool, Toolkit } from "@toolgate/runtime"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as McpConnection from "./McpConnection.js"
import type * as McpErrors from "./McpErrors.js"
import * as McpLock from "./McpLock.js"
import * as Names from "./internal/names.js"
import * as ToolOf from "./internal/toolOf.js"

/** The `_meta` key each call's idempotency key travels under. */
export const idempotencyKeyMeta = ToolOf.idempotencyKeyMeta

/** What `make` takes besides the server: the lock and its key, the call timeout, the re-list interval. */
const Settings = Schema.Struct({
  /** The server's key in the lock (default: the name it gives at initialize or in `server/discover`). */
  name: Schema.optional(Schema.NonEmptyString),
  /** The auth scope of the lock entry (default `"default"`). */
  scope: Schema.optionalWith(Schema.NonEmptyString, { default: () => McpLock.defaultScope }),
  /** How long one call may take (default 60 seconds): past it the call answers `timeout`. */
  timeout: Schema.optionalWith(Decode.PositiveDuration, { default: () => Duration.seconds(60) }),
  /** The least time between two re-listings on `list_changed` (default 1 second). */
  relistInterval: Schema.optionalWith(Decode.PositiveDuration, { default: () => Duration.seconds(1) })
})

/** What `make` takes. */
export interface Options extends Partial<typeof Settings.Encoded> {
  /** Where the server is (`McpConnection.Server`). */
  readonly server: McpConnection.OptionsInput["server"]
  /** The connection's limits (`McpConnection.Limits`). */
  readonly limits?: McpConnection.OptionsInput["limits"]
  /** The lock file: the server's entry in it is the gate (default: no lock; the first listing is the baseline). */
  readonly lock?: McpLock.LockFile | undefined
}

/** Something about the server's listing the app should know. */
export interface Problem {
  readonly tool: string | undefined
  readonly message: string
}

/** Why a re-listing left the tools blocked: drift, or a construct the prover cannot model. */
export type Drift = Errors.SchemaDriftError | Errors.UnsupportedCloudToolSchema

/** Where the tools stand: how many listings were read and proved, and the drift of the last one, if any. */
export interface Status {
  readonly listings: number
  /** Listings on `list_changed` that failed (logged; the tools stay as they were). */
  readonly failed: number
  readonly drift: Option.Option<Drift>
}

/** An MCP server's tools. */
export interface Service {
  readonly connection: McpConnection.Service
  /** The tools, built from the lock entry (or the first listing), with their executors. */
  readonly toolkit: Toolkit.Toolkit<never>
  /** Names MCP does not allow, entries that are not tools, tools whose schema cannot be used, a repeated name. */
  readonly problems: ReadonlyArray<Problem>
  /** The proof of the first listing against the baseline (notes: new tools, changed descriptions). */
  readonly proof: McpLock.Proof
  readonly status: Effect.Effect<Status>
}

/** An MCP server's tools, as a service. */
export class McpTools extends Context.Tag("@toolgate/mcp/McpTools")<McpTools, Service>() {}

/** Why `make` fails. */
export type MakeError =
  | McpErrors.McpError
  | Errors.InvalidOptions
  | McpLock.InvalidLock
  | Errors.SchemaDriftError
  | Errors.UnsupportedCloudToolSchema

const decodeSettings = Decode.options("McpTools", Settings)

/** The baseline: the lock's entry for the server, or the live listing when there is no lock. */
const baselineOf = (options: Options, settings: typeof Settings.Type, connection: McpConnection.Service, listing: McpConnection.ToolListing) => {
  const live = McpLock.fromListing(connection.serverInfo, listing.tools, listing.cacheScope)
  if (options.lock === undefined) return Either.right(live)
  const key = settings.name ?? connection.serverInfo.name
  return Either.fromOption(
    McpLock.get(options.lock, key, settings.scope),
    () => new McpLock.InvalidLock({ path: "lock", detail: `it has no entry for the server ${JSON.stringify(key)} under the scope ${JSON.stringify(settings.scope)}, nor a "public" one under another scope` })
  )
}

/** What the listing says the app should know. */
const problemsOf = (listing: McpConnection.ToolListing, proof: McpLock.Proof): Array<Problem> => [
  ...listing.problems.map((p) => ({ tool: p.name, message: `tools[${p.index}] is not a tool: ${p.reason}` })),
  ...proof.badNames.map((name) => ({ tool: name, message: Names.problem(name) }))
]

/** Why a tool's parameter schema cannot be compiled (a `$ref` to the network, which is never fetched, included). */
const unusable = (tool: Tool.Any & { readonly schemaError: string | undefined }): string | undefined =>
  tool.schemaError ?? Either.match(Validator.compile(tool.jsonSchema), { onLeft: (e) => e.message, onRight: () => undefined })

/** Connects, lists, gates and builds the toolkit; the connection and the re-list watcher live in the scope. */
export const make = Effect.fn("McpTools.make")(function*(options: Options) {
  const settings = yield* decodeSettings(options)
  const connection = yield* McpConnection.make({ server: options.server, ...(options.limits === undefined ? {} : { limits: options.limits }) })
  const changes = yield* connection.listChanged
  const listing = yield* connection.listTools
  const baseline = yield* baselineOf(options, settings, connection, listing)
  const proof = McpLock.prove(baseline, listing.tools)
  yield* McpLock.gate(proof)
  const live = new Map(listing.tools.map((t) => [t.name, t] as const))
  const status = yield* Ref.make<Status>({ listings: 1, failed: 0, drift: Option.none() })
  // when the last listing read goes stale (its `ttlMs` from when it was read); `undefined`: never
  const expiresAt = (ttlMs: number | undefined) =>
    Effect.map(Clock.currentTimeMillis, (now) => ttlMs === undefined ? undefined : now + ttlMs)
  const staleAt = yield* Ref.make(yield* expiresAt(listing.ttlMs))
  // when a listing was last asked for after the first: none sooner than `relistInterval` after it
  const askedAt = yield* Ref.make(Number.NEGATIVE_INFINITY)
  const intervalMs = Duration.toMillis(settings.relistInterval)
  // a listing that fails (the server busy, a timeout) leaves the tools as they were: only a proof blocks them;
  // it keeps the stale time it had, so it is asked for again after the interval
  const relist = Effect.flatMap(Clock.currentTimeMillis, (now) => Ref.set(askedAt, now)).pipe(
    Effect.zipRight(connection.listTools),
    Effect.tap((again) => Effect.flatMap(expiresAt(again.ttlMs), (at) => Ref.set(staleAt, at))),
    Effect.map((again): Option.Option<Drift> =>
      Either.match(McpLock.gate(McpLock.prove(baseline, again.tools)), { onLeft: (e) => Option.some<Drift>(e), onRight: () => Option.none() })
    ),
    Effect.flatMap((drift) => Ref.update(status, (s) => ({ ...s, listings: s.listings + 1, drift }))),
    Effect.catchAll((e) =>
      Effect.zipRight(
        Effect.logWarning(`The MCP server's tools could not be listed again: ${e.message}`),
        Ref.update(status, (s) => ({ ...s, failed: s.failed + 1 }))
      )
    ),
    Effect.withSpan("McpTools.relist")
  )
  // one listing at a time, whoever asks: a call that finds the listing stale, or a list_changed signal
  const one = yield* Effect.makeSemaphore(1)
  // MCP's freshness model: a listing is checked when it is needed (a call) and read again only if it is stale,
  // never polled on its TTL; at most once per interval (a `ttlMs` of 0 costs one listing per interval of calls)
  const fresh = one.withPermits(1)(Effect.gen(function*() {
    const [at, asked, now] = [yield* Ref.get(staleAt), yield* Ref.get(askedAt), yield* Clock.currentTimeMillis]
    if (at !== undefined && now >= at && now >= asked + intervalMs) yield* relist
  }))
  const blocked = (tool: string) =>
    Effect.zipRight(fresh, Effect.map(Ref.get(status), (s) =>
      Option.match(s.drift, {
        onNone: () => undefined,
        onSome: (e) => e._tag === "SchemaDriftError" && !e.drifted.includes(tool) ? undefined : `The MCP server's tools changed: ${e.message}`
      })))
  const problems = problemsOf(listing, proof)
  const tools = Object.entries(baseline.tools).map(([name, locked]) =>
    ToolOf.make({
      name,
      description: live.get(name)?.description ?? "",
      inputSchema: locked.inputSchema,
      outputSchema: locked.outputSchema
    }, connection, settings.timeout, blocked)
  )
  for (const tool of tools) {
    const why = unusable(tool)
    if (why !== undefined) problems.push({ tool: tool.name, message: `its schema cannot be used (its calls are refused): ${why}` })
  }
  // the names are a lock entry's keys, so none repeats, and every value is a tool `Tool.make` built
  const toolkit = yield* Effect.orDie(Toolkit.make(...tools))
  // a list_changed signal invalidates the listing at once; none is read sooner than `relistInterval` after the
  // last, so a server that sends list_changed in a loop costs one listing per interval (signals coalesce)
  const onSignal = Effect.gen(function*() {
    yield* Queue.take(changes)
    const [asked, now] = [yield* Ref.get(askedAt), yield* Clock.currentTimeMillis]
    yield* Effect.sleep(Duration.millis(Math.max(0, asked + intervalMs - now)))
    yield* one.withPermits(1)(relist)
  })
  yield* onSignal.pipe(Effect.forever, Effect.forkScoped)
  return McpTools.of({ connection, toolkit, problems, proof, status: Ref.get(status) })
})

/** The tools as a layer: connected, gated and watched for the layer's lifetime. */
export const layer = (options: Options): Layer.Layer<McpTools, MakeError> => Layer.scoped(McpTools, make(options))

/** Whether the tools are proven; the `DriftGate` verdict of the first listing. */
export const verdict = (service: Service): Either.Either<DriftGate.Verdict, Errors.SchemaDriftError | Errors.UnsupportedCloudToolSchema> =>
  McpLock.gate(service.proof)
