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

/** How many times objects shared within one value are walked again before the value counts as unreadable. */
const revisitBudget = 1_000_000

/** The refs in `args`, in document order; see `RefAware.refs`. */
export const refs = (args: unknown): ReadonlyArray<Located> => {
  try {
    return refsUnsafe(args) ?? []
  } catch {
    return []
  }
}

/** An object to leave: popped after its children, so `active` holds exactly the objects on the path. */
interface Exit {
  readonly exit: object
}

const refsUnsafe = (args: unknown): ReadonlyArray<Located> | undefined => {
  const out: Array<Located> = []
  // an object shared by several places is walked at each (JSON would write it out at each); one that
  // contains itself is walked once; a value whose sharing would blow up past the budget is unreadable
  const active = new Set<object>()
  const seen = new Set<object>()
  let revisits = 0
  const stack: Array<Node | Exit> = [{ value: args, parent: undefined, token: "" }]
  while (stack.length > 0) {
    const n = stack.pop()!
    if ("exit" in n) {
      active.delete(n.exit)
      continue
    }
    const v = n.value
    if (typeof v !== "object" || v === null || active.has(v)) continue
    if (seen.has(v) && ++revisits > revisitBudget) return undefined
    seen.add(v)
    if (Array.isArray(v)) {
      active.add(v)
      stack.push({ exit: v })
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
    active.add(v)
    stack.push({ exit: v })
    const keys = Object.keys(v)
    for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: v[keys[i]!], parent: n, token: keys[i]! })
  }
  return out
}
