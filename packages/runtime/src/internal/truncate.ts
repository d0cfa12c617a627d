/**
 * Head + tail truncation of model-bound text.
 *
 * @internal
 */
import { isHighSurrogate, isLowSurrogate, safeString } from "./json.js"

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
