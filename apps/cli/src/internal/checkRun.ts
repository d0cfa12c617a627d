/**
 * What `check` does once it runs: the capabilities probed from a relay or read from a saved response, and
 * the drift gate's verdicts over the local tools as a report (loaded only by that command).
 *
 * @internal
 */
import { Capabilities, DriftGate } from "@toolgate/runtime"
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

/** A hint for a relay that answered 404: `--relay` wants the base URL, not the capabilities path. */
const notFoundHint = (url: string): string | undefined => {
  const trimmed = url.replace(/\/+$/, "")
  if (trimmed.endsWith(Capabilities.path)) {
    return `--relay wants the relay's base URL: try --relay ${trimmed.slice(0, -Capabilities.path.length) || trimmed}`
  }
  return `--relay wants the relay's base URL (check probes ${trimmed}${Capabilities.path}); is ${url} the relay's root?`
}

/** Probes the relay, saying so on stderr when it takes more than a second. */
const probe = (source: { readonly url: string; readonly timeout: number }) =>
  withProgress(
    `waiting for the relay at ${source.url} (up to ${source.timeout} s)`,
    Effect.scoped(Effect.flatMap(
      Capabilities.make({ baseUrl: source.url, timeout: `${source.timeout} seconds` }),
      (capabilities) => capabilities.probe()
    ))
  ).pipe(Effect.provide(Lazy.httpClient), Effect.either)

/** The capabilities, probed from the relay or read from a saved response, as a report over the local tools. */
export const report = (source: Source, local: ToolsFile.Tools, warnings: ReadonlyArray<CheckKeywords.Warning> = []) =>
  Effect.gen(function*() {
    const answer = source._tag === "Relay"
      ? yield* probe(source)
      : Capabilities.fromBody(yield* parseJson(source.text, "capabilities response"))
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
