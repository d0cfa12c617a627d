/**
 * What every HTTP provider says the same way: a clipped one-line text, and whether an HTTP status may pass
 * when tried again (a transport failure in words is `Errors.transportCause`, shared with the runtime).
 *
 * @internal
 */

/** At most `max` characters of `text` on one line, with an ellipsis when cut. */
export const clip = (text: string, max = 300): string => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`
}

/** Whether a status may succeed when tried again: a timeout, a rate limit or quota, or a server fault. */
export const statusRetryable = (status: number): boolean => status === 408 || status === 429 || status >= 500
