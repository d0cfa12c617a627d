/**
 * What `check` does once it runs: the relay's profile probed from the relay or read from a saved response, and
 * the drift gate's verdicts over the local tools as a report (loaded only by that command).
 *
 * @internal
 */
import { RelayProfileClient } from "@toolgate/providers"
import { DriftGate } from "@toolgate/runtime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { Source } from "../Check.js"
import * as CheckKeywords from "./checkKeywords.js"
import * as CheckReport from "./checkReport.js"
import { parseJson } from "./input.js"
import * as Lazy from "./lazy.js"
import { withProgress } from "./progress.js"
import type * as ToolsFile from "./toolsFile.js"

export { CheckKeywords, CheckReport }

/** A hint for a relay that answered 404: `--relay` wants the base URL, not the profile's path. */
const notFoundHint = (url: string): string | undefined => {
  const trimmed = url.replace(/\/+$/, "")
  if (trimmed.endsWith(RelayProfileClient.path)) {
    return `--relay wants the relay's base URL: try --relay ${trimmed.slice(0, -RelayProfileClient.path.length) || trimmed}`
  }
  return `--relay wants the relay's base URL (check probes ${trimmed}${RelayProfileClient.path}); is ${url} the relay's root?`
}

/** Probes the relay, saying so on stderr when it takes more than a second. */
const probe = (source: { readonly url: string; readonly timeout: number }) =>
  withProgress(
    `waiting for the relay at ${source.url} (up to ${source.timeout} s)`,
    Effect.scoped(Effect.flatMap(
      RelayProfileClient.make({ baseUrl: source.url, timeout: `${source.timeout} seconds` }),
      (profile) => profile.probe()
    ))
  ).pipe(Effect.provide(Lazy.httpClient), Effect.either)

/** The relay's profile, probed from the relay or read from a saved response, as a report over the local tools. */
export const report = (source: Source, local: ToolsFile.Tools, warnings: ReadonlyArray<CheckKeywords.Warning> = []) =>
  Effect.gen(function*() {
    const answer = source._tag === "Relay"
      ? yield* probe(source)
      : RelayProfileClient.fromBody(yield* parseJson(source.text, "capabilities response"))
    if (Either.isLeft(answer)) return { _tag: "ContractError", detail: answer.left.message } satisfies CheckReport.Report
    const probed = answer.right
    switch (probed._tag) {
      case "Predates":
        return { _tag: "Predates", detail: "neither capabilities_version nor tool_schemas" } satisfies CheckReport.Report
      case "Unreachable": {
        const hint = source._tag === "Relay" && probed.cause === "HTTP 404" ? notFoundHint(source.url) : undefined
        return { _tag: "Unreachable", detail: probed.cause, ...(hint === undefined ? {} : { hint }) } satisfies CheckReport.Report
      }
      case "Exported":
        return {
          _tag: "Checked",
          version: probed.version,
          rows: DriftGate.verdicts(probed.toolSchemas, local.schemas),
          localOnly: Array.from(local.schemas.keys()).filter((name) => !probed.toolSchemas.has(name)),
          upgrades: local.upgrades,
          warnings
        } satisfies CheckReport.Report
    }
  })
