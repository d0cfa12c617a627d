/**
 * A session's methods over its environment: `send`, `stream` (the same turn, its events handed to a reader
 * as they happen) and `generate` run one turn each under the session's lock and its `invoke_agent` span;
 * the rest read or change the session's state.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as JSONSchema from "effect/JSONSchema"
import * as ParseResult from "effect/ParseResult"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type { JsonSchema } from "@toolgate/json-schema"
import type { AgentSession, SendOptions, Turn, TurnFinished } from "../AgentSession.js"
import { StructuredOutputInvalid, StructuredOutputUnsupported } from "../Errors.js"
import type * as Provider from "../Provider.js"
import * as Telemetry from "../Telemetry.js"
import { safeString } from "./json.js"
import * as SessionJournal from "./sessionJournal.js"
import * as SessionResume from "./sessionResume.js"
import { decodeKeys, decodeSend, noSendOptions } from "./sessionSettings.js"
import { type Env, type Sink, subscribe, withSink } from "./sessionState.js"
import * as SessionStream from "./sessionStream.js"
import * as SessionTurn from "./sessionTurn.js"
import { lastCommitted, undoLast } from "./sessionUndo.js"

/** The JSON Schema of `schema` for the request, or why it has none. */
const jsonSchemaOf = <A, I>(schema: Schema.Schema<A, I>): Either.Either<JsonSchema.JsonSchema, StructuredOutputInvalid> =>
  Either.try({
    try: () => JSONSchema.make(schema) as unknown as JsonSchema.JsonSchema,
    catch: (e) => new StructuredOutputInvalid({ detail: `the schema has no JSON Schema form (${safeString(e instanceof Error ? e.message : e)})` })
  })

/** What a session's `send` and `generate` run in: its environment, its one-turn-at-a-time lock, its span attributes. */
interface Running {
  readonly env: Env
  readonly serialized: <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<A, E>
  /** The turn's `invoke_agent` span, its attributes built once for the session. */
  readonly inAgentSpan: ReturnType<typeof Telemetry.invokeAgentSpan>
}

const acceptAny = (_text: string) => Effect.void

/** The last element of a streamed send that committed. */
const finished = (turn: Turn): TurnFinished => ({ _tag: "TurnFinished", turn })

/** A send's turn; its events also go to `sink` when given (a streamed send). */
const sendIn = (s: Running, text: string, options?: SendOptions, sink?: Sink) =>
  Effect.gen(function*() {
    const { directives, images, model, sampling, toolChoice: chosen } = options == null ? noSendOptions : yield* decodeSend(options)
    const toolChoice = (chosen ?? "auto") as Provider.ToolChoice
    const [turn] = yield* s.serialized(withSink(s.env, sink, SessionTurn.run(s.env, safeString(text), {
      toolChoice,
      accept: acceptAny,
      sampling,
      ...(directives === undefined ? {} : { directives }),
      ...(images === undefined ? {} : { images }),
      ...(model === undefined ? {} : { model })
    })))
    yield* Effect.annotateCurrentSpan("toolgate.turn", turn.turn)
    return turn
  }).pipe(s.inAgentSpan)

const generateIn = <A, I>(s: Running, schema: Schema.Schema<A, I>, text: string) =>
  Effect.gen(function*() {
    const capabilities = s.env.provider.capabilities
    if (!capabilities.supportsStructuredOutput) return yield* new StructuredOutputUnsupported({ provider: capabilities.name })
    const structuredOutput = yield* jsonSchemaOf(schema)
    const decode = Schema.decodeUnknown(Schema.parseJson(schema), { errors: "all" })
    const accept = (answer: string) =>
      Effect.mapError(decode(answer), (e) => new StructuredOutputInvalid({ detail: ParseResult.TreeFormatter.formatErrorSync(e) }))
    const [, value] = yield* s.serialized(SessionTurn.run(s.env, text, { toolChoice: "auto", structuredOutput, accept, sampling: {} }))
    return value
  }).pipe(s.inAgentSpan)

const undoSpan = Telemetry.span("AgentSession.undoLastTurn")

/** The session's methods over its environment. */
export const methods = (env: Env, serialized: <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<A, E>): AgentSession => {
  const running: Running = { env, serialized, inAgentSpan: Telemetry.invokeAgentSpan(Telemetry.invokeAgent(env.provider.capabilities.name, env.id, env.name)) }
  const reconcile = (keys: ReadonlyArray<string>) =>
    Effect.flatMap(decodeKeys(keys), (decoded) =>
      Effect.zipRight(
        env.durable === undefined ? Effect.void : SessionJournal.reconciled(env.durable, decoded),
        Ref.modify(env.outstanding, (all) => {
          const wanted = new Set(decoded)
          return [all.filter((o) => wanted.has(o.idempotencyKey)), all.filter((o) => !wanted.has(o.idempotencyKey))]
        })
      ))
  return {
    id: env.id,
    send: (text, options) => sendIn(running, text, options),
    stream: (text, options) => SessionStream.stream((sink) => sendIn(running, text, options, sink), finished),
    generate: (schema, text) => generateIn(running, schema, text),
    outstanding: Ref.get(env.outstanding),
    reconcile,
    history: Ref.get(env.history),
    lastUsageReport: Ref.get(env.lastUsage),
    lastSchemaWarnings: Ref.get(env.lastSchemaWarnings),
    // the turn the caller sees as last is read before waiting for a send in flight
    undoLastTurn: Effect.flatMap(lastCommitted(env), (expected) => serialized(undoLast(env, expected))).pipe(undoSpan),
    subscribe: subscribe(env.events),
    // built when asked for: an idle session carries no effect for it
    export: Effect.suspend(() => serialized(SessionResume.snapshotOf(env)))
  }
}
