/**
 * The path checks of `ToolArgs.requirePath`: characters a path must not hold, `..` segments, and where
 * the path really lands once every symbolic link on the way is followed (the real path of its longest
 * existing prefix, dangling links followed to their targets), compared with the roots' real paths.
 *
 * @internal
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/** The most characters a path argument may have. */
export const maxLength = 4096

/** The most symbolic links followed while resolving one path (as the kernel's ELOOP bound). */
const maxHops = 40

/** Why a path is refused. */
export type Refusal =
  | { readonly _tag: "Dangerous"; readonly character: string; readonly index: number }
  | { readonly _tag: "Traversal" }
  | { readonly _tag: "TooLong" }
  | { readonly _tag: "Outside" }
  | { readonly _tag: "Loop" }

/**
 * The first character a path must not hold: C0 and C1 controls (NUL, newline, escape…), DEL, the line and
 * paragraph separators, bidirectional overrides and isolates (which make a name read differently than it
 * is), the byte-order mark, and a lone surrogate (no file name can hold it).
 */
export const dangerous = (text: string): { readonly character: string; readonly index: number } | undefined => {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    const bad = c <= 0x1f || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029 ||
      (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c === 0x200e || c === 0x200f || c === 0xfeff
    if (bad) return { character: `U+${c.toString(16).toUpperCase().padStart(4, "0")}`, index: i }
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++
        continue
      }
      return { character: `U+${c.toString(16).toUpperCase()}`, index: i }
    }
    if (c >= 0xdc00 && c <= 0xdfff) return { character: `U+${c.toString(16).toUpperCase()}`, index: i }
  }
  return undefined
}

/** Whether a path has a `..` segment (either separator counts: a backslash is a separator on Windows). */
export const traverses = (text: string): boolean => text.split(/[\\/]/).some((segment) => segment === "..")

/** What can be said about a path before any file is touched. */
export const lexical = (text: string): Refusal | undefined => {
  if (text.length > maxLength) return { _tag: "TooLong" }
  const bad = dangerous(text)
  if (bad !== undefined) return { _tag: "Dangerous", ...bad }
  return traverses(text) ? { _tag: "Traversal" } : undefined
}

/** A path's segments after its root (either separator on Windows). */
const segments = (path: Path.Path, text: string): Array<string> =>
  text.slice(path.parse(text).root.length).split(path.sep === "\\" ? /[\\/]/ : "/")

/**
 * Where an absolute path really lands, resolved one segment at a time from its root: a segment that is a
 * symbolic link is replaced by its target (dangling or not), at most `maxHops` times (`undefined` past that:
 * a loop); `..` goes to the parent of what is already real. Segments that do not exist are kept as named.
 * This is the real path of the path's longest existing prefix with the rest appended, with the kernel's
 * reading of `..` after a link (Node's `fs.realpath` takes `..` as text first, so it is not used).
 */
export const land = (fs: FileSystem.FileSystem, path: Path.Path, absolute: string) =>
  Effect.gen(function*() {
    let current = path.parse(absolute).root
    const queue = segments(path, absolute)
    let hops = 0
    while (queue.length > 0) {
      const segment = queue.shift()!
      if (segment === "" || segment === ".") continue
      if (segment === "..") {
        current = path.dirname(current)
        continue
      }
      const next = path.join(current, segment)
      const target = yield* Effect.option(fs.readLink(next))
      if (Option.isNone(target)) {
        current = next
        continue
      }
      if (++hops > maxHops) return undefined
      if (path.isAbsolute(target.value)) current = path.parse(target.value).root
      queue.unshift(...segments(path, target.value))
    }
    return current
  })

/** Whether `p` is `root` or lies under it (both absolute and real). */
export const within = (path: Path.Path, root: string, p: string): boolean => {
  if (p === root) return true
  const prefix = root.endsWith(path.sep) ? root : `${root}${path.sep}`
  return p.startsWith(prefix)
}

/**
 * The real path `text` lands on, relative paths taken from `base`, or why it is refused: it must pass the
 * lexical checks and land within one of the (real) `roots`.
 */
export const check = (text: string, roots: ReadonlyArray<string>, base: string) =>
  Effect.gen(function*() {
    const refused = lexical(text)
    if (refused !== undefined) return { _tag: "Refused", refusal: refused } as const
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const landed = yield* land(fs, path, path.resolve(base, text))
    if (landed === undefined) return { _tag: "Refused", refusal: { _tag: "Loop" } } as const
    const real = yield* Effect.forEach(roots, (root) => land(fs, path, path.resolve(root)))
    return real.some((root) => root !== undefined && within(path, root, landed))
      ? { _tag: "Accepted", path: landed } as const
      : { _tag: "Refused", refusal: { _tag: "Outside" } } as const
  })
