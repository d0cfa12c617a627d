/**
 * `POST /v1/agent/turns`: a `RelayWire.TurnRequest` in, the scripted round's `StreamEvent`s out as
 * server-sent events; a `Failure` round, or a request the script has no round for, is an `event: error`.
 * The round is picked by `Script.select`, and its text's `{{fields}}` are filled
 * from the request's `systemPrompt`, `sampling`, `maxToolCallsPerTurn` and tool names.
 *
 * @internal
 */
import { RelayWire, Script } from "@toolgate/providers"
import type { Message } from "@toolgate/runtime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { attempt, type Resolved } from "./endpoint.js"
import * as Http from "./http.js"
import * as ModelView from "./modelView.js"

const decodeTurn = Schema.decodeUnknownEither(RelayWire.TurnRequest, { errors: "all" })

/** Why the script has no round for `messages`. */
export const noRound = (messages: ReadonlyArray<Message.Message>): string => {
  const { round, turn } = Script.position(messages)
  return turn < 0
    ? "no scripted round: the request has no user message"
    : `no scripted round ${round + 1} of turn ${turn + 1} (turns[${turn}][${round}])`
}

/** The server-sent events that answer `messages` from `script`, `{{fields}}` filled from `seen`. */
const events = (script: Script.Script, messages: ReadonlyArray<Message.Message>, seen: ModelView.Seen): ReadonlyArray<string> => {
  const round = Script.select(script, messages)
  if (round === undefined) return [RelayWire.encodeError(noRound(messages), false)]
  if (!Array.isArray(round)) {
    const failure = round as Script.Failure
    return [RelayWire.encodeError(failure.fail.reason, failure.fail.retryable)]
  }
  return ModelView.fill(round, seen).map((event) => RelayWire.encodeEvent(event))
}

/** The answer to a turn request body. */
export const answer = (resolved: Resolved, body: unknown): Effect.Effect<Http.Answer, Http.Rejection> =>
  Effect.gen(function*() {
    const turn = decodeTurn(body)
    if (Either.isLeft(turn)) return yield* Http.decodeFailure("not a turn request", turn.left)
    const { maxToolCallsPerTurn, sampling, systemPrompt, tools } = turn.right
    const messages = turn.right.messages
    const seen: ModelView.Seen = { systemPrompt, sampling, maxToolCallsPerTurn, tools }
    return Http.eventsAnswer(yield* attempt("encode the scripted round", () => events(resolved.script, messages, seen)))
  })
