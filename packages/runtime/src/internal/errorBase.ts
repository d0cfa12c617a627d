/**
 * What every typed error of the runtime shares: the `TypeId` brand, the optional `compensation` field of
 * turn errors, and the helpers their messages are written with. `Errors` and the files it re-exports
 * define the errors on top of it.
 *
 * @internal
 */
import * as Text from "@toolgate/json-schema/Text"
import * as Schema from "effect/Schema"
import { Report } from "./compensationReport.js"

/** The brand of every toolgate error (`readonly [TypeId]: TypeId = TypeId` in each class). */
export const TypeId: unique symbol = Symbol.for("@toolgate/runtime/Errors")

/** The type of `TypeId`. */
export type TypeId = typeof TypeId

/** The optional `compensation` field of every turn error. */
export const compensation = Schema.optionalWith(Report, { exact: true })

/** A JSON value rendered for a message, clipped so a huge witness stays readable. */
export const preview = (u: unknown): string => {
  try {
    return Text.clip(JSON.stringify(u) ?? "undefined", 200)
  } catch {
    return "(unprintable)"
  }
}

/** Several strings as "a; b; c", at most `max` of them. */
export const listed = (items: ReadonlyArray<string>, max = 5): string =>
  items.length <= max ? items.join("; ") : `${items.slice(0, max).join("; ")}; and ${items.length - max} more`

/** Ends `s` with a full stop unless it already ends with punctuation. */
export const sentence = (s: string): string => /[.!?…]$/.test(s) ? s : `${s}.`
