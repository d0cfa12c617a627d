/**
 * The keywords Google does not take (contract 2.1, plus draft-07's `definitions`, the old name of `$defs`)
 * and the spill block that keeps the human-meaningful ones in `description`: `{pattern: "^foo$", minimum: 0}`.
 *
 * @internal
 */
import { clip } from "../Text.js"
import type { Obj, Report } from "./normalizeGoogleWalk.js"
import { set } from "./normalizeGoogleWalk.js"
import * as P from "./pointer.js"

/** Keywords stripped on the Google path (never property names: those live inside `properties`). */
export const stripped: ReadonlySet<string> = new Set([
  "$schema", "$ref", "$defs", "definitions", "$dynamicRef", "$dynamicAnchor",
  "examples", "prefixItems", "unevaluatedProperties", "unevaluatedItems",
  "patternProperties", "additionalProperties",
  "minItems", "maxItems", "minLength", "maxLength",
  "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
  "pattern", "format"
])

/** Stripped keywords a model can still use, so their values go into `description`. Structural ones do not. */
export const spilled: ReadonlySet<string> = new Set([
  "examples", "minItems", "maxItems", "minLength", "maxLength",
  "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "pattern", "format"
])

/** Longest text one spilled value takes in a description; longer ones are cut with `…`. */
export const maxSpillValue = 200

const text = (v: unknown): string => {
  let s: string
  try {
    s = JSON.stringify(v) ?? String(v)
  } catch {
    s = "…"
  }
  return clip(s, maxSpillValue + 1)
}

/** The spill block for some keyword/value pairs: `{pattern: "^foo$", minimum: 0}`. */
export const block = (entries: ReadonlyArray<readonly [string, unknown]>): string =>
  "{" + entries.map(([k, v]) => `${k}: ${text(v)}`).join(", ") + "}"

/** Appends a spill block to the node's `description` (after a space), or makes it the description. */
export const spill = (node: Obj, entries: ReadonlyArray<readonly [string, unknown]>, path: string, report: Report): void => {
  const b = block(entries)
  const d = node["description"]
  if (d !== undefined && typeof d !== "string") {
    report(P.append(path, "description"), "`description` is not a string; replaced by the spilled keywords")
  }
  set(node, "description", typeof d === "string" && d.trim().length > 0 ? `${d} ${b}` : b)
}
