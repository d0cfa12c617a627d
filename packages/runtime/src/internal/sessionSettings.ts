/**
 * A session's options and a send's options that are data, as Schemas, and their decoders (built once):
 * what `AgentSession.make` and each send decode at the boundary, defaults filled in.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import * as Decode from "../Decode.js"
import * as Message from "../Message.js"
import * as Provider from "../Provider.js"
import * as RunLimits from "../RunLimits.js"
import * as SessionStore from "../SessionStore.js"

/**
 * The options that are data, as a Schema: what `make` decodes once. Its fields take no Schema defaults (those
 * would make the Schema a transformation, which decodes the options twice, once per side); `withDefaults`
 * fills them in after the one pass.
 */
export const Settings = Schema.Struct({
  id: Schema.optionalWith(Schema.NonEmptyString, { exact: true }),
  mode: Schema.Literal("cloudProfile", "local"),
  limits: Schema.optionalWith(RunLimits.Limits, { exact: true }),
  chainScope: Schema.optionalWith(Schema.Literal("turn", "session"), { exact: true }),
  eventCapacity: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 1_000_000)), { exact: true }),
  maxEventsPerRound: Schema.optionalWith(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)), { exact: true }),
  persona: Schema.optionalWith(Schema.String, { exact: true }),
  name: Schema.optionalWith(Schema.NonEmptyString.pipe(Schema.maxLength(256)), { exact: true }),
  sampling: Schema.optionalWith(Provider.Sampling, { exact: true }),
  scope: Schema.optionalWith(Schema.NonEmptyArray(Schema.String), { exact: true }),
  strictTools: Schema.optionalWith(Schema.Boolean, { exact: true }),
  // a snapshot is given as `export` answers it (the decoded form), so its type side is what is checked
  snapshot: Schema.optionalWith(Schema.typeSchema(SessionStore.SessionSnapshot), { exact: true }),
  // no defaults for the store's options: a session without a store never reads them
  onBusy: Schema.optionalWith(Schema.Literal("fail", "wait"), { exact: true }),
  leaseMillis: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { exact: true }),
  waitMillis: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { exact: true })
})

/** The defaults of the options that have one. */
const defaults = { chainScope: "turn", eventCapacity: 1024, maxEventsPerRound: 100_000, sampling: {}, strictTools: true } as const

/** The decoded options with the defaults filled in. */
export type Decoded = typeof Settings.Type & { readonly [K in keyof typeof defaults]-?: NonNullable<(typeof Settings.Type)[K]> }

/** The decoded options with the defaults filled in where none was given. */
export const withDefaults = (settings: typeof Settings.Type): Decoded => ({ ...defaults, ...settings })

/** A send's options that are data, as a Schema. */
export const SendSettings = Schema.Struct({
  /** Read here, where a throwing getter is an `InvalidOptions`; checked when the turn is admitted. */
  toolChoice: Schema.optionalWith(Schema.Unknown, { exact: true }),
  directives: Schema.optionalWith(Schema.String, { exact: true }),
  sampling: Schema.optionalWith(Provider.Sampling, { exact: true, default: () => ({}) }),
  images: Schema.optionalWith(Message.Images, { exact: true }),
  model: Schema.optionalWith(Schema.NonEmptyTrimmedString.pipe(Schema.maxLength(256)), { exact: true })
})

export const decodeSettings = Decode.options("AgentSession", Settings)
export const decodeFlags = Decode.options("AgentSession.provider.capabilities", Provider.CapabilityFlags)
export const decodeSend = Decode.options("AgentSession.send", SendSettings)
export const decodeKeys = Decode.options("AgentSession.reconcile", Schema.Array(Schema.String))

/** A send without options (the common call) needs no decoding. */
export const noSendOptions = Schema.decodeSync(SendSettings)({})