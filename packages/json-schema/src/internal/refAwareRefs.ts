/**
 * Reading sentinel refs: the shape check, and the walk that lists them in arguments (iterative, so
 * 10,000-level nesting is fine; paths are built only for the refs found).
 *
 * @internal
 */
import * as P from "./pointer.js"

type Obj = Record<string, unknown>

/** A sentinel ref as read (mirrors `RefAware.Ref`). */
export interface Ref {
  readonly $tool: string
  readonly $path?: string
  readonly $artifact?: string
}

const isPlain = (u: unknown): u is Obj => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return false
  const proto = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

/** The ref `u` is, or `undefined`; `nulls` reads a `null` `$path`/`$artifact` as absent. */
export const read = (u: unknown, nulls: boolean): Ref | undefined => {
  try {
    if (!isPlain(u)) return undefined
    let $tool: string | undefined
    let $path: string | undefined
    let $artifact: string | undefined
    for (const key of Object.keys(u)) {
      const v = u[key]
      if (key === "$tool") {
        if (typeof v !== "string" || v === "") return undefined
        $tool = v
      } else if (key === "$path" || key === "$artifact") {
        if (typeof v !== "string" && !(nulls && v === null)) return undefined
        if (typeof v === "string" && key === "$path") $path = v
        if (typeof v === "string" && key === "$artifact") $artifact = v
      } else {
        return undefined
      }
    }
    if ($tool === undefined) return undefined
    return { $tool, ...($path === undefined ? {} : { $path }), ...($artifact === undefined ? {} : { $artifact }) }
  } catch {
    return undefined
  }
}

interface Node {
  readonly value: unknown
  readonly parent: Node | undefined
  readonly token: string
}

const tokensOf = (n: Node): Array<string> => {
  const out: Array<string> = []
  for (let cur: Node | undefined = n; cur?.parent !== undefined; cur = cur.parent) out.push(cur.token)
  return out.reverse()
}

/** A ref found in arguments (mirrors `RefAware.Located`). */
export interface Located {
  readonly path: string
  readonly field: string
  readonly ref: Ref
}

/** The refs in `args`, in document order; see `RefAware.refs`. */
export const refs = (args: unknown): ReadonlyArray<Located> => {
  try {
    return refsUnsafe(args)
  } catch {
    return []
  }
}

const refsUnsafe = (args: unknown): ReadonlyArray<Located> => {
  const out: Array<Located> = []
  const seen = new Set<object>()
  const stack: Array<Node> = [{ value: args, parent: undefined, token: "" }]
  while (stack.length > 0) {
    const n = stack.pop()!
    const v = n.value
    if (typeof v !== "object" || v === null || seen.has(v)) continue
    seen.add(v)
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], parent: n, token: String(i) })
      continue
    }
    if (!isPlain(v)) continue
    const ref = read(v, true)
    if (ref !== undefined) {
      const tokens = tokensOf(n)
      out.push({ path: P.format(tokens), field: tokens.join("."), ref })
      continue
    }
    const keys = Object.keys(v)
    for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: v[keys[i]!], parent: n, token: keys[i]! })
  }
  return out
}
