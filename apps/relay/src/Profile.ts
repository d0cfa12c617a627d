/**
 * A relay profile: the JSON a relay serves at `GET /v1/agent/capabilities`, plus an optional `faults`
 * list that switches faults on for every request:
 *
 * ```json
 * { "capabilities_version": "1.0", "tool_schemas": { "get_weather": { "type": "object" } }, "faults": ["slow"] }
 * ```
 *
 * A profile is kept as the raw JSON value it was read as, never decoded into a fixed shape: a profile may
 * be broken on purpose (a missing key, a non-schema entry, a wrong version) to show what a client does with
 * such a relay. It is served as given, without its `faults` key, unless a capability fault applies.
 *
 * @since 0.1.0
 */
import * as Text from "@toolgate/json-schema/Text"
import * as Either from "effect/Either"
import * as Faults from "./Faults.js"

/** A profile: any JSON value read from a profile file, kept as is. */
export type Profile = unknown

/** The profile of a relay with one tool, `get_weather(city)`, at capabilities version 1.0. */
export const example: Profile = {
  capabilities_version: "1.0",
  tool_schemas: {
    get_weather: {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
      additionalProperties: false
    }
  }
}

/** What `tool_schemas` is under the `malformed` fault: not an object. */
export const malformedToolSchemas = "not an object: the relay's malformed fault"

/** The faults a profile switches on (its own `faults` key: a list of fault names), or why that key is not one. */
export const faults = (profile: Profile): Either.Either<ReadonlyArray<Faults.Fault>, string> => {
  const entries = ownEntries(profile)
  if (entries === undefined) return Either.right([])
  const listed = entries.find(([key]) => key === "faults")
  if (listed === undefined) return Either.right([])
  const names = listed[1]
  if (!Array.isArray(names)) return Either.left(`"faults" must be a list of fault names (${Faults.all.join(", ")})`)
  const unknown = names.filter((name) => !Faults.isFault(name)).map(describe)
  return unknown.length === 0
    ? Either.right(names.filter(Faults.isFault))
    : Either.left(`"faults" lists ${unknown.join(", ")}, which ${unknown.length === 1 ? "is not a fault" : "are not faults"} (${Faults.all.join(", ")})`)
}

/**
 * The capabilities body `profile` stands for with `faults` applied: `newer-major` sets the version to
 * "2.0", `malformed` makes `tool_schemas` a string, `predates` removes both keys (it wins over the other
 * two). A profile that is an object loses its `faults` key; any other value is served as is.
 */
export const capabilities = (profile: Profile, faults: Iterable<Faults.Fault>): unknown => {
  const on = new Set(faults)
  const entries = ownEntries(profile)
  if (entries === undefined) {
    if (on.has("predates")) return {}
    if (on.has("malformed")) return { capabilities_version: on.has("newer-major") ? "2.0" : "1.0", tool_schemas: malformedToolSchemas }
    return on.has("newer-major") ? { capabilities_version: "2.0", tool_schemas: {} } : profile
  }
  let body = entries.filter(([key]) => key !== "faults")
  const version = body.find(([key]) => key === "capabilities_version")?.[1]
  if (on.has("newer-major")) {
    body = set(body, "capabilities_version", "2.0")
    if (!body.some(([key]) => key === "tool_schemas")) body = set(body, "tool_schemas", {})
  }
  if (on.has("malformed")) {
    if (!on.has("newer-major")) body = set(body, "capabilities_version", typeof version === "string" ? version : "1.0")
    body = set(body, "tool_schemas", malformedToolSchemas)
  }
  if (on.has("predates")) body = body.filter(([key]) => key !== "capabilities_version" && key !== "tool_schemas")
  return Object.fromEntries(body)
}

type Entries = Array<readonly [string, unknown]>

/** A plain object's own enumerable entries (a `__proto__` key included), `undefined` for anything else or a value that throws. */
const ownEntries = (u: unknown): Entries | undefined => {
  try {
    if (typeof u !== "object" || u === null || Array.isArray(u)) return undefined
    const proto = Object.getPrototypeOf(u)
    if (proto !== Object.prototype && proto !== null) return undefined
    return Object.entries(u)
  } catch {
    return undefined
  }
}

/** `entries` with `key` set to `value` (replaced in place, or appended). */
const set = (entries: Entries, key: string, value: unknown): Entries =>
  entries.some(([k]) => k === key)
    ? entries.map(([k, v]) => [k, k === key ? value : v] as const)
    : [...entries, [key, value] as const]

/** A value named in an error message, shortened. */
const describe = (u: unknown): string => {
  const text = typeof u === "string" ? JSON.stringify(u) : Array.isArray(u) ? "a list" : u === null ? "null" : typeof u
  return Text.clip(text, 41)
}
