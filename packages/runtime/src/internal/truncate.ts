/**
 * Head + tail truncation of model-bound text.
 *
 * @internal
 */
import { isHighSurrogate, isLowSurrogate } from "@toolgate/json-schema/Text"
import { safeString } from "./json.js"
import { utf8Length } from "./text.js"

/** `12345` → `"12,345"`, without depending on the host's ICU data. */
export const groupDigits = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",")

/** The line that replaces the cut middle. */
export const marker = (omitted: number): string => `\n[… ${groupDigits(omitted)} characters omitted …]\n`

/** An end index moved left so that `text.slice(0, end)` does not end inside a surrogate pair. */
const safeEnd = (text: string, end: number): number =>
  end > 0 && end < text.length && isHighSurrogate(text.charCodeAt(end - 1)) && isLowSurrogate(text.charCodeAt(end))
    ? end - 1
    : end

/** A start index moved right so that `text.slice(start)` does not begin inside a surrogate pair. */
const safeStart = (text: string, start: number): number =>
  start > 0 && start < text.length && isLowSurrogate(text.charCodeAt(start)) &&
    isHighSurrogate(text.charCodeAt(start - 1))
    ? start + 1
    : start

/** Normalises a caller's limit: NaN, negatives and non-numbers are 0, fractions round down, `Infinity` stays. */
const limitOf = (maxChars: number): number =>
  typeof maxChars !== "number" || Number.isNaN(maxChars) || maxChars <= 0
    ? 0
    : maxChars === Infinity
    ? Infinity
    : Math.floor(maxChars)

/**
 * Keeps the head and the tail of `text` and replaces the middle with a line saying how many
 * characters (UTF-16 code units) were cut. The result never exceeds `maxChars`, never splits a
 * surrogate pair, and is `text` itself when it already fits, so applying it twice changes nothing.
 * A limit too small to hold the marker keeps only the head.
 */
export const truncateForModel = (text: string, maxChars: number = 50_000): string => {
  const s = typeof text === "string" ? text : safeString(text)
  const limit = limitOf(maxChars)
  if (s.length <= limit) return s
  // The marker for the whole length is at least as long as the real one, so the budget is safe.
  const budget = limit - marker(s.length).length
  if (budget <= 0) return s.slice(0, safeEnd(s, limit))
  const headEnd = safeEnd(s, Math.ceil(budget / 2))
  const tailStart = safeStart(s, s.length - (budget - Math.ceil(budget / 2)))
  return `${s.slice(0, headEnd)}${marker(tailStart - headEnd)}${s.slice(tailStart)}`
}

/** The UTF-8 size of the code point that starts at `i` (`step` code units long). */
const pointAt = (s: string, i: number): { readonly bytes: number; readonly step: number } => {
  const c = s.charCodeAt(i)
  if (c < 0x80) return { bytes: 1, step: 1 }
  if (c < 0x800) return { bytes: 2, step: 1 }
  return isHighSurrogate(c) && i + 1 < s.length && isLowSurrogate(s.charCodeAt(i + 1)) ? { bytes: 4, step: 2 } : { bytes: 3, step: 1 }
}

/** The end index of the longest prefix of `s` within `max` UTF-8 bytes (never inside a surrogate pair). */
const headWithin = (s: string, max: number): number => {
  let bytes = 0
  let i = 0
  while (i < s.length) {
    const p = pointAt(s, i)
    if (bytes + p.bytes > max) break
    bytes += p.bytes
    i += p.step
  }
  return i
}

/** The start index of the longest suffix of `s` within `max` UTF-8 bytes, not before `floor` (never inside a surrogate pair). */
const tailWithin = (s: string, max: number, floor: number): number => {
  let bytes = 0
  let i = s.length
  while (i > floor) {
    const pair = i - 2 >= floor && isLowSurrogate(s.charCodeAt(i - 1)) && isHighSurrogate(s.charCodeAt(i - 2))
    const start = pair ? i - 2 : i - 1
    const b = pointAt(s, start).bytes
    if (bytes + b > max) break
    bytes += b
    i = start
  }
  return i
}

/** The line that replaces the cut middle when the limit is in bytes. */
export const bytesMarker = (omitted: number): string => `\n[… ${groupDigits(omitted)} bytes omitted …]\n`

/**
 * `truncateForModel` measured in UTF-8 bytes: the head and the tail of `text` within `maxBytes` (the marker
 * included), the middle replaced by a line saying how many bytes were cut; never splits a surrogate pair;
 * `text` itself when it fits. A limit too small for the marker keeps only the head.
 */
export const truncateBytesForModel = (text: string, maxBytes: number): string => {
  const s = typeof text === "string" ? text : safeString(text)
  const limit = limitOf(maxBytes)
  // at most 3 bytes per code unit: a text that short fits without counting
  if (s.length * 3 <= limit) return s
  const total = utf8Length(s)
  if (total <= limit) return s
  const budget = limit - utf8Length(bytesMarker(total))
  if (budget <= 0) return s.slice(0, headWithin(s, limit))
  const headEnd = headWithin(s, Math.ceil(budget / 2))
  const tailStart = tailWithin(s, budget - Math.ceil(budget / 2), headEnd)
  const head = s.slice(0, headEnd)
  const tail = s.slice(tailStart)
  return `${head}${bytesMarker(total - utf8Length(head) - utf8Length(tail))}${tail}`
}
