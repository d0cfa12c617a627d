/**
 * Checks of the options every HTTP provider takes: a base URL that can work and a positive timeout. A
 * value that fails them is a wiring bug, reported when the provider is built.
 *
 * @internal
 */
import * as Duration from "effect/Duration"

/** A positive duration from what a caller gave, `undefined` when it is not one (`Duration.decode` throws on those). */
export const positiveDuration = (input: unknown): Duration.Duration | undefined => {
  if (typeof input === "number" && Number.isNaN(input)) return undefined
  try {
    const d = Duration.decode(input as Duration.DurationInput)
    return Duration.isZero(d) ? undefined : d
  } catch {
    return undefined
  }
}

/** Whether `u` parses as an absolute http: or https: URL. */
export const isHttpUrl = (u: unknown): u is string => {
  if (typeof u !== "string") return false
  try {
    const { protocol } = new URL(u)
    return protocol === "http:" || protocol === "https:"
  } catch {
    return false
  }
}

