/**
 * A relay's config checked once, before anything is served: the request limits (body bytes, body time,
 * nesting depth, connections), whether fault headers are honoured, each profile's faults, and the scenario
 * names (url-safe, so `/scenarios/<name>` needs no escaping).
 *
 * @internal
 */
import type { Script } from "@toolgate/providers"
import * as Either from "effect/Either"
import * as Profile from "../Profile.js"
import type { Resolved } from "./endpoint.js"
import * as Http from "./http.js"

/** What a relay serves (the shape of `Relay.Config`). */
export interface Input {
  readonly profile: unknown
  readonly script: Script.Script
  readonly scenarios?: ReadonlyMap<string, { readonly profile: unknown; readonly script: Script.Script }>
  readonly maxBodyBytes?: number
  readonly maxBodyDepth?: number
  readonly bodyTimeoutMs?: number
  readonly maxConnections?: number
  readonly maxConnectionsPerClient?: number
  readonly faultHeaders?: boolean
  readonly allowedHosts?: ReadonlyArray<string>
  readonly allowedOrigins?: ReadonlyArray<string>
}

/** What every endpoint of every scenario shares: the request limits and whether fault headers are honoured. */
export interface Limits {
  readonly maxBodyBytes: number
  /** The deepest nesting of arrays and objects a JSON body may have. */
  readonly maxBodyDepth: number
  /** How long a request body may take to arrive, from the end of its headers. */
  readonly bodyTimeoutMs: number
  /** `x-toolgate-fault` / `x-toolgate-delay-ms` are honoured (else a request carrying one is a 400). */
  readonly faultHeaders: boolean
}

/** The config checked: what the root serves and what each named scenario serves. */
export interface Checked {
  readonly root: Resolved
  readonly scenarios: ReadonlyMap<string, Resolved>
  /** The most connections open at once; past it a connection is closed as it is accepted. */
  readonly maxConnections: number
  /** The most connections one client (remote address) may hold open at once; past it its next is closed as it is accepted. */
  readonly maxConnectionsPerClient: number
  /** `Host` header names accepted besides the loopback names (lower case; `name` any port, `name:port` that port). */
  readonly allowedHosts: ReadonlyArray<string>
  /** `Origin` header values accepted besides the relay's own origins (lower case). */
  readonly allowedOrigins: ReadonlyArray<string>
}

/** The request body limit when the config gives none. */
export const defaultMaxBodyBytes = 1024 * 1024

/** The body nesting limit when the config gives none: far above any real request, far below what costs CPU. */
export const defaultMaxBodyDepth = 256

/** The body time limit when the config gives none (a loopback client sends 1 MiB in milliseconds). */
export const defaultBodyTimeoutMs = 10_000

/** The connection cap when the config gives none. */
export const defaultMaxConnections = 512

/** A scenario name: letters, digits, `-` and `_`, starting with a letter or digit, at most 64 characters. */
export const scenarioName = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/

/** Whether `name` can name a scenario. */
export const isScenarioName = (name: unknown): name is string => typeof name === "string" && scenarioName.test(name)

/** One profile and script with the body limit, or why the profile's faults are not valid. */
const one = (profile: unknown, script: Script.Script, limits: Limits): Either.Either<Resolved, string> => {
  const faults = Profile.faults(profile)
  if (Either.isLeft(faults)) return Either.left(`the profile's ${faults.left}`)
  return Either.right({ profile, profileFaults: faults.right, script, ...limits })
}

/** The named scenarios as entries, or why they are not (a value that is not a map, or one that throws when read). */
const entriesOf = (scenarios: unknown): Either.Either<ReadonlyArray<readonly [unknown, unknown]>, string> => {
  if (scenarios === undefined) return Either.right([])
  try {
    if (!(scenarios instanceof Map)) return Either.left("scenarios must be a Map of name to { profile, script }")
    return Either.right(Array.from(scenarios.entries()))
  } catch {
    return Either.left("scenarios could not be read")
  }
}

/** A named scenario checked, or why not. */
const scenario = (name: unknown, value: unknown, limits: Limits): Either.Either<Resolved, string> => {
  if (!isScenarioName(name)) {
    return Either.left(`scenario name ${Http.clean(JSON.stringify(String(name)))} is not url-safe (letters, digits, - and _, at most 64 characters)`)
  }
  const shape = `scenario "${name}" must be { profile, script }`
  try {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, "profile") || !Object.hasOwn(value, "script")) {
      return Either.left(shape)
    }
    const { profile, script } = value as { readonly profile: unknown; readonly script: Script.Script }
    return Either.mapLeft(one(profile, script, limits), (reason) => `scenario "${name}": ${reason}`)
  } catch {
    return Either.left(shape)
  }
}

/** The config checked, or the first reason it is not valid. */
export const check = (config: Input): Either.Either<Checked, string> => {
  const numbers = positive(config)
  if (Either.isLeft(numbers)) return Either.left(numbers.left)
  const { maxConnections, ...sizes } = numbers.right
  if (config.faultHeaders !== undefined && typeof config.faultHeaders !== "boolean") return Either.left("faultHeaders must be a boolean")
  const limits: Limits = { ...sizes, faultHeaders: config.faultHeaders === true }
  const root = one(config.profile, config.script, limits)
  if (Either.isLeft(root)) return Either.left(root.left)
  const entries = entriesOf(config.scenarios)
  if (Either.isLeft(entries)) return Either.left(entries.left)
  const scenarios = new Map<string, Resolved>()
  for (const [name, value] of entries.right) {
    const checked = scenario(name, value, limits)
    if (Either.isLeft(checked)) return Either.left(checked.left)
    scenarios.set(name as string, checked.right)
  }
  const perClient = config.maxConnectionsPerClient ?? Math.max(1, Math.floor(maxConnections / 2))
  if (!Number.isSafeInteger(perClient) || perClient <= 0) return Either.left(`maxConnectionsPerClient must be a positive whole number, got ${String(perClient)}`)
  const allowedHosts = names(config.allowedHosts, "allowedHosts", /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(:\d{1,5})?$/)
  if (Either.isLeft(allowedHosts)) return Either.left(allowedHosts.left)
  const allowedOrigins = names(config.allowedOrigins, "allowedOrigins", /^(https?:\/\/[^\s/]+|null)$/)
  if (Either.isLeft(allowedOrigins)) return Either.left(allowedOrigins.left)
  return Either.right({
    root: root.right,
    scenarios,
    maxConnections,
    maxConnectionsPerClient: Math.min(perClient, maxConnections),
    allowedHosts: allowedHosts.right,
    allowedOrigins: allowedOrigins.right
  })
}

/** A list of header values (lower-cased), or why it is not one: each must match `shape`. */
const names = (list: unknown, key: string, shape: RegExp): Either.Either<ReadonlyArray<string>, string> => {
  if (list === undefined) return Either.right([])
  try {
    if (!Array.isArray(list)) return Either.left(`${key} must be a list of strings`)
    const out: Array<string> = []
    for (const item of list) {
      const value = typeof item === "string" ? item.trim().toLowerCase() : undefined
      if (value === undefined || !shape.test(value)) return Either.left(`${key} lists ${Http.clean(JSON.stringify(String(item)))}, which is not a ${key === "allowedHosts" ? "host name" : "web origin"}`)
      out.push(value)
    }
    return Either.right(out)
  } catch {
    return Either.left(`${key} could not be read`)
  }
}

const numeric = {
  maxBodyBytes: defaultMaxBodyBytes,
  maxBodyDepth: defaultMaxBodyDepth,
  bodyTimeoutMs: defaultBodyTimeoutMs,
  maxConnections: defaultMaxConnections
} as const

/** The numeric limits with their defaults, or the first that is not a positive whole number. */
const positive = (config: Input): Either.Either<{ readonly [K in keyof typeof numeric]: number }, string> => {
  const out: Record<string, number> = {}
  for (const [key, fallback] of Object.entries(numeric)) {
    const value = config[key as keyof typeof numeric] ?? fallback
    if (!Number.isSafeInteger(value) || value <= 0) return Either.left(`${key} must be a positive whole number, got ${String(value)}`)
    out[key] = value
  }
  return Either.right(out as { readonly [K in keyof typeof numeric]: number })
}
