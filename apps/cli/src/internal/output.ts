/**
 * How every command ends on bad input: one line on stderr, and with `--json` one JSON object on stdout,
 * `{ "_tag": "BadInput", "exitCode", "message" }`, of the same `_tag`-ed family as the commands' outcomes.
 *
 * @internal
 */
import * as JsonValue from "@toolgate/json-schema/JsonValue"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { CliExit } from "../CliExit.js"
import type { BadInput } from "./input.js"

/** One JSON object on one line (values too deep for `JSON.stringify` included). */
export const jsonLine = (value: unknown): string =>
  JsonValue.stringify(value) ?? JSON.stringify({ _tag: "BadInput", message: "The result is not JSON." })

/** The `--json` object of a failure the command could not get past. */
export const failureJson = (tag: string, exitCode: number, message: string, extra: Record<string, unknown> = {}): string =>
  jsonLine({ _tag: tag, exitCode, message, ...extra })

/** Says why the input cannot be used (and, with `--json`, prints it as an object), then ends with `code`. */
export const badInput = (options: { readonly json: boolean }, code: number) => (e: BadInput) =>
  Effect.gen(function*() {
    yield* Console.error(`toolgate: ${e.message}`)
    if (options.json) yield* Console.log(failureJson("BadInput", code, e.message))
    return yield* new CliExit({ code })
  })
