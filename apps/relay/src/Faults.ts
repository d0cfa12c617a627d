/**
 * The relay's fault switches: ways to make it behave like an old, broken, slow or failing relay, so a
 * client's handling of each can be seen and tested. They are switched on for every request by a profile's
 * `faults` key, or per request with the `x-toolgate-fault` header (a comma list) when the relay was started
 * with `faultHeaders: true` (`toolgate serve --faults`; otherwise the header is a 400).
 *
 * | fault         | effect |
 * |---------------|--------|
 * | `predates`    | capabilities: neither `capabilities_version` nor `tool_schemas` (an old relay) |
 * | `malformed`   | capabilities: `tool_schemas` is not an object |
 * | `newer-major` | capabilities: `capabilities_version` is `"2.0"` |
 * | `slow`        | every endpoint waits `x-toolgate-delay-ms` (default 2000) before answering |
 * | `fail`        | every endpoint answers 500 with a JSON error |
 * | `drop`        | every endpoint sends the first event (or half its JSON body), then closes the connection |
 * | `garbage`     | every endpoint answers 200 with a body that is not JSON (a streamed one: an event that is not JSON) |
 * | `rate-limit`  | every endpoint answers 429 with `retry-after: 1` and a JSON error (Google's shape on Gemini's paths) |
 *
 * @since 0.1.0
 */
import * as Text from "@toolgate/json-schema/Text"
import * as Either from "effect/Either"

/** One fault switch. */
export type Fault = "predates" | "malformed" | "newer-major" | "slow" | "fail" | "drop" | "garbage" | "rate-limit"

/** Every fault, in the order of the table above. */
export const all: ReadonlyArray<Fault> = ["predates", "malformed", "newer-major", "slow", "fail", "drop", "garbage", "rate-limit"]

/** The seconds the `rate-limit` fault's `retry-after` header asks a client to wait. */
export const retryAfterSeconds = 1

/** The faults that change only the capabilities body. */
export const capabilityFaults: ReadonlyArray<Fault> = ["predates", "malformed", "newer-major"]

/** The request header that switches faults on for one request: `x-toolgate-fault: slow,drop`. */
export const header = "x-toolgate-fault"

/** The request header that sets the `slow` fault's delay in milliseconds. */
export const delayHeader = "x-toolgate-delay-ms"

/** The `slow` fault's delay when the request does not set one. */
export const defaultDelayMs = 2_000

/** The longest delay a request may ask for (ten minutes). */
export const maxDelayMs = 600_000

const known: ReadonlySet<string> = new Set(all)

/** Whether `u` names a fault. */
export const isFault = (u: unknown): u is Fault => typeof u === "string" && known.has(u)

/** A comma list (blanks and empty items ignored) to its faults, or the names that are not faults. */
export const parse = (text: string): Either.Either<ReadonlyArray<Fault>, ReadonlyArray<string>> => {
  const names = text.split(",").map((name) => name.trim()).filter((name) => name !== "")
  const unknown = names.filter((name) => !known.has(name))
  return unknown.length === 0 ? Either.right(names.filter(isFault)) : Either.left(unknown)
}

/** The `slow` delay a header value asks for (absent: the default), or why it is not one. */
export const delayMs = (value: string | undefined): Either.Either<number, string> => {
  if (value === undefined) return Either.right(defaultDelayMs)
  const text = value.trim()
  if (!/^\d{1,9}$/.test(text)) return Either.left(`${delayHeader} must be a whole number of milliseconds, got ${clip(text)}`)
  const ms = Number(text)
  return ms <= maxDelayMs ? Either.right(ms) : Either.left(`${delayHeader} is at most ${maxDelayMs}, got ${ms}`)
}

/** A header value shortened for an error message. */
const clip = (text: string): string => JSON.stringify(Text.clip(text, 41))
