/**
 * A relay's config checked once, before anything is served: the body limit, each profile's faults, and
 * the scenario names (url-safe, so `/scenarios/<name>` needs no escaping).
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
}

/** The config checked: what the root serves and what each named scenario serves. */
export interface Checked {
  readonly root: Resolved
  readonly scenarios: ReadonlyMap<string, Resolved>
}

/** The request body limit when the config gives none. */
export const defaultMaxBodyBytes = 1024 * 1024

/** A scenario name: letters, digits, `-` and `_`, starting with a letter or digit, at most 64 characters. */
export const scenarioName = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/

/** Whether `name` can name a scenario. */
export const isScenarioName = (name: unknown): name is string => typeof name === "string" && scenarioName.test(name)

/** One profile and script with the body limit, or why the profile's faults are not valid. */
const one = (profile: unknown, script: Script.Script, maxBodyBytes: number): Either.Either<Resolved, string> => {
  const faults = Profile.faults(profile)
  if (Either.isLeft(faults)) return Either.left(`the profile's ${faults.left}`)
  return Either.right({ profile, profileFaults: faults.right, script, maxBodyBytes })
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
const scenario = (name: unknown, value: unknown, maxBodyBytes: number): Either.Either<Resolved, string> => {
  if (!isScenarioName(name)) {
    return Either.left(`scenario name ${Http.clean(JSON.stringify(String(name)))} is not url-safe (letters, digits, - and _, at most 64 characters)`)
  }
  const shape = `scenario "${name}" must be { profile, script }`
  try {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, "profile") || !Object.hasOwn(value, "script")) {
      return Either.left(shape)
    }
    const { profile, script } = value as { readonly profile: unknown; readonly script: Script.Script }
    return Either.mapLeft(one(profile, script, maxBodyBytes), (reason) => `scenario "${name}": ${reason}`)
  } catch {
    return Either.left(shape)
  }
}

/** The config checked, or the first reason it is not valid. */
export const check = (config: Input): Either.Either<Checked, string> => {
  const max = config.maxBodyBytes ?? defaultMaxBodyBytes
  if (!Number.isSafeInteger(max) || max <= 0) return Either.left(`maxBodyBytes must be a positive whole number, got ${String(max)}`)
  const root = one(config.profile, config.script, max)
  if (Either.isLeft(root)) return Either.left(root.left)
  const entries = entriesOf(config.scenarios)
  if (Either.isLeft(entries)) return Either.left(entries.left)
  const scenarios = new Map<string, Resolved>()
  for (const [name, value] of entries.right) {
    const checked = scenario(name, value, max)
    if (Either.isLeft(checked)) return Either.left(checked.left)
    scenarios.set(name as string, checked.right)
  }
  return Either.right({ root: root.right, scenarios })
}
