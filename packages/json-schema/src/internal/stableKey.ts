/**
 * A canonical serialisation of a schema (object keys sorted), the second-level cache key after identity.
 *
 * @internal
 */

const MAX_DEPTH = 2_000

/**
 * The canonical JSON text of a plain JSON value, or `undefined` for anything that is not plain JSON
 * (cycles, non-finite numbers, functions) or is nested deeper than the key is worth.
 */
export const stableKey = (value: unknown): string | undefined => {
  const path = new Set<object>()
  const go = (v: unknown, depth: number): string | undefined => {
    if (v === null || typeof v === "boolean" || typeof v === "string") return JSON.stringify(v)
    if (typeof v === "number") return Number.isFinite(v) ? JSON.stringify(v) : undefined
    if (typeof v !== "object" || depth > MAX_DEPTH || path.has(v)) return undefined
    path.add(v)
    let out: string | undefined
    if (Array.isArray(v)) {
      const parts: Array<string> = []
      for (const x of v) {
        const s = go(x, depth + 1)
        if (s === undefined) return undefined
        parts.push(s)
      }
      out = `[${parts.join(",")}]`
    } else {
      const parts: Array<string> = []
      for (const k of Object.keys(v).sort()) {
        const s = go((v as Record<string, unknown>)[k], depth + 1)
        if (s === undefined) return undefined
        parts.push(`${JSON.stringify(k)}:${s}`)
      }
      out = `{${parts.join(",")}}`
    }
    path.delete(v)
    return out
  }
  try {
    return go(value, 0)
  } catch {
    return undefined
  }
}
