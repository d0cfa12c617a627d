/**
 * Base types a cloud conjunction leaves empty by its own bounds: strings with `minLength` above
 * `maxLength` (or patterns no string of an allowed length matches), numbers between crossed bounds, arrays
 * with `minItems` above `maxItems`, objects needing more properties than they may have. The validator
 * rejects every value of such a type, so the prover need not show anything for it.
 *
 * @internal
 */
import * as Automata from "./patternAutomata.js"
import type { Node } from "./subschemaModel.js"
import { kw, num, strings } from "./subschemaModel.js"
import type { Base } from "./subschemaTypes.js"

interface Range {
  lo: number
  hi: number
  /** Whether `lo` (`hi`) itself is excluded. */
  openLo: boolean
  openHi: boolean
}

const most = (nodes: ReadonlyArray<Node>, key: string): number => nodes.reduce((m, n) => Math.max(m, num(kw(n, key)) ?? 0), 0)
const least = (nodes: ReadonlyArray<Node>, key: string): number => nodes.reduce((m, n) => Math.min(m, num(kw(n, key)) ?? Infinity), Infinity)

const range = (nodes: ReadonlyArray<Node>): Range => {
  const r: Range = { lo: -Infinity, hi: Infinity, openLo: false, openHi: false }
  for (const n of nodes) {
    const min = num(kw(n, "minimum")), max = num(kw(n, "maximum"))
    const emin = kw(n, "exclusiveMinimum"), emax = kw(n, "exclusiveMaximum")
    // draft-04's boolean exclusives are left alone (no bound is read from them)
    if (min !== undefined && min > r.lo) Object.assign(r, { lo: min, openLo: false })
    if (typeof emin === "number" && Number.isFinite(emin) && emin >= r.lo) Object.assign(r, { lo: emin, openLo: true })
    if (max !== undefined && max < r.hi) Object.assign(r, { hi: max, openHi: false })
    if (typeof emax === "number" && Number.isFinite(emax) && emax <= r.hi) Object.assign(r, { hi: emax, openHi: true })
  }
  return r
}

const noInteger = (r: Range): boolean => {
  const lo = r.openLo ? Math.floor(r.lo) + 1 : Math.ceil(r.lo)
  const hi = r.openHi ? Math.ceil(r.hi) - 1 : Math.floor(r.hi)
  return lo > hi
}

const noFraction = (r: Range): boolean =>
  r.lo > r.hi || (r.lo === r.hi && (r.openLo || r.openHi || Number.isInteger(r.lo)))

const noString = (nodes: ReadonlyArray<Node>): boolean => {
  const min = most(nodes, "minLength"), max = least(nodes, "maxLength")
  if (min > max) return true
  const patterns = nodes.flatMap((n) => { const p = kw(n, "pattern"); return typeof p === "string" ? [p] : [] })
  return patterns.length > 0 && Automata.isEmpty(patterns, min, max)
}

/** The base types among `types` that the conjunction's bounds leave without a single value. */
export const emptyTypes = (nodes: ReadonlyArray<Node>, types: ReadonlySet<Base>): ReadonlyArray<Base> => {
  const out: Array<Base> = []
  if (types.has("integer") || types.has("fraction")) {
    const r = range(nodes)
    if (types.has("integer") && noInteger(r)) out.push("integer")
    if (types.has("fraction") && noFraction(r)) out.push("fraction")
  }
  if (types.has("string") && noString(nodes)) out.push("string")
  if (types.has("array") && most(nodes, "minItems") > least(nodes, "maxItems")) out.push("array")
  if (types.has("object")) {
    const required = new Set(nodes.flatMap((n) => strings(kw(n, "required"))))
    if (Math.max(most(nodes, "minProperties"), required.size) > least(nodes, "maxProperties")) out.push("object")
  }
  return out
}
