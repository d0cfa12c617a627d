/**
 * `JSON.stringify` that survives any depth: the engine's own writer first, and on a stack overflow an
 * iterative writer that produces the same text for JSON data (a 10,000-level value is valid arguments
 * under a permissive schema, and the CLI must print it, not crash).
 *
 * @internal
 */

type Frame = { readonly close: string; readonly parts: Array<string>; readonly pending: Array<readonly [string | undefined, unknown]> }

const scalar = (v: unknown): string | undefined => {
  if (v === null) return "null"
  switch (typeof v) {
    case "string":
    case "boolean":
      return JSON.stringify(v)
    case "number":
      return Number.isFinite(v) ? JSON.stringify(v) : "null"
    case "object":
      return undefined
    default:
      return "" // undefined, functions, symbols: left out of objects, `null` in arrays (as JSON.stringify does)
  }
}

const open = (v: object): Frame =>
  Array.isArray(v)
    ? { close: "]", parts: [], pending: v.map((x) => [undefined, x] as const).reverse() }
    : { close: "}", parts: [], pending: Object.keys(v).map((k) => [k, (v as Record<string, unknown>)[k]] as const).reverse() }

/** The iterative writer (JSON data only: plain objects, arrays, strings, finite numbers, booleans, null). */
export const stringifyIterative = (value: unknown): string | undefined => {
  const top = scalar(value)
  if (top !== undefined) return top === "" ? undefined : top
  const stack: Array<Frame> = [open(value as object)]
  for (;;) {
    const frame = stack[stack.length - 1]!
    const next = frame.pending.pop()
    if (next === undefined) {
      const text = (frame.close === "]" ? "[" : "{") + frame.parts.join(",") + frame.close
      stack.pop()
      const parent = stack[stack.length - 1]
      if (parent === undefined) return text
      parent.parts[parent.parts.length - 1] += text
      continue
    }
    const [key, v] = next
    const s = scalar(v)
    if (s === "" && key !== undefined) continue
    const prefix = key === undefined ? "" : JSON.stringify(key) + ":"
    if (s !== undefined) {
      frame.parts.push(prefix + (s === "" ? "null" : s))
      continue
    }
    frame.parts.push(prefix)
    stack.push(open(v as object))
  }
}

/** `JSON.stringify(value)`, the iterative writer when the value is too deep for the engine's stack; never throws. */
export const stringify = (value: unknown): string | undefined => {
  try {
    return JSON.stringify(value)
  } catch (e) {
    return e instanceof RangeError ? stringifyIterative(value) : undefined // a cycle or a bigint: not JSON
  }
}
