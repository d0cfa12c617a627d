/**
 * Measures of text for file results.
 *
 * @internal
 */

/** Lines in `text`: a final newline ends the last line rather than starting another; `""` has none. */
export const lineCount = (text: string): number => {
  if (text.length === 0) return 0
  let lines = 1
  let from = 0
  for (;;) {
    const i = text.indexOf("\n", from)
    if (i === -1 || i === text.length - 1) return lines
    lines++
    from = i + 1
  }
}

/** The UTF-8 size of `text` in bytes; a lone surrogate counts as U+FFFD (3 bytes), as encoders write it. */
export const utf8Length = (text: string): number => {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) bytes += 1
    else if (c < 0x800) bytes += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4
        i++
      } else bytes += 3
    } else bytes += 3
  }
  return bytes
}
