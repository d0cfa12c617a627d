/**
 * Cutting text for messages without breaking it: a cut never falls between the two halves of a
 * surrogate pair, so well-formed text stays well-formed whatever the limit.
 *
 * @since 0.1.0
 */

/** Whether a UTF-16 code unit opens a surrogate pair. */
export const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff

/** Whether a UTF-16 code unit closes a surrogate pair. */
export const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff

/** The longest prefix of `s` of at most `max` UTF-16 code units that does not end inside a surrogate pair. */
export const prefix = (s: string, max: number): string => {
  if (s.length <= max) return s
  let end = Math.max(0, Math.floor(max))
  if (end > 0 && isHighSurrogate(s.charCodeAt(end - 1)) && isLowSurrogate(s.charCodeAt(end))) end -= 1
  return s.slice(0, end)
}

/**
 * `s` when it fits in `max` UTF-16 code units, else its `prefix` ended with "…", the whole at most `max`
 * code units long (`max` below 1 gives "").
 */
export const clip = (s: string, max: number): string => {
  if (s.length <= max) return s
  return max < 1 ? "" : `${prefix(s, max - 1)}…`
}
