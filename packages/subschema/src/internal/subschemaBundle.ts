/**
 * Embedded resources folded into one document: every `$ref` of a 2020-12 schema whose `$id`s nest
 * resources is rewritten to the JSON pointer of its target in the root (resolved against the base URI
 * where it stands, as the validator resolves it), and every `$id` is dropped, so the prover reads one
 * document whose references it can follow, and two resources that differ only by renamed `$id`s and
 * `$anchor`s compare equal. The shape is unchanged, so pointers into the original still hold.
 *
 * Only where the rewrite is certain: no dynamic references (Ajv resolves those by the resource a reference
 * stands in, which dropping an `$id` would change; without them a `$dynamicAnchor` is a plain anchor, for
 * the specification and Ajv alike), every base an http(s) URL, no resource or
 * anchor declared twice, every reference resolved inside the document; otherwise undefined.
 *
 * @internal
 */
import type { JsonSchema } from "@toolgate/json-schema/JsonSchema"
import { Pointer as P, subschemas as children } from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"

type Obj = { [k: string]: JsonValue }

/** Dynamic keywords that make a resource's boundaries matter; a `$dynamicAnchor` without them is a plain anchor. */
const dynamic = ["$dynamicRef", "$recursiveRef", "$recursiveAnchor"]
const origin = "https://toolgate.invalid/root"

/** The URL without its fragment, or undefined when it is not an http(s) URL. */
const resource = (u: URL): string | undefined => {
  if (u.protocol !== "http:" && u.protocol !== "https:") return undefined
  const c = new URL(u.href)
  c.hash = ""
  return c.href
}

interface Scan {
  readonly resources: Map<string, string>
  readonly anchors: Map<string, string>
  readonly refs: Array<{ readonly ptr: string; readonly ref: string; readonly base: URL }>
  /** The schema objects seen holding an identifier or a reference. */
  identified: number
}

/** Bases, resources, anchors and references of the document, or undefined where the rewrite is not certain. */
const scan = (root: Obj): Scan | undefined => {
  const out: Scan = { resources: new Map(), anchors: new Map(), refs: [], identified: 0 }
  const stack: Array<{ readonly s: Obj; readonly ptr: string; readonly base: URL }> = [{ s: root, ptr: "", base: new URL(origin) }]
  const seen = new Set<object>()
  while (stack.length > 0) {
    const { base: parent, ptr, s } = stack.pop()!
    if (seen.has(s)) return undefined
    seen.add(s)
    if (dynamic.some((k) => k in s)) return undefined
    if (identifying.some((k) => k in s)) out.identified++
    let base = parent
    const id = s["$id"]
    if (id !== undefined || ptr === "") {
      if (id !== undefined && (typeof id !== "string" || /#./.test(id))) return undefined
      try {
        base = id === undefined ? parent : new URL(id, parent)
      } catch {
        return undefined
      }
      const key = resource(base)
      if (key === undefined || out.resources.has(key)) return undefined
      out.resources.set(key, ptr)
    }
    for (const k of ["$anchor", "$dynamicAnchor"]) {
      const anchor = s[k]
      if (anchor === undefined) continue
      const key = `${resource(base)}#${String(anchor)}`
      if (typeof anchor !== "string" || out.anchors.has(key)) return undefined
      out.anchors.set(key, ptr)
    }
    const ref = s["$ref"]
    if (ref !== undefined) {
      if (typeof ref !== "string") return undefined
      out.refs.push({ ptr, ref, base })
    }
    for (const c of children(s)) {
      if (typeof c.schema === "object" && c.schema !== null && !Array.isArray(c.schema)) stack.push({ s: c.schema as Obj, ptr: c.tokens.reduce(P.append, ptr), base })
    }
  }
  return out
}

/** The pointer a reference names in the document, or undefined. */
const target = (root: Obj, scanned: Scan, ref: string, base: URL): string | undefined => {
  let u: URL
  try {
    u = new URL(ref, base)
  } catch {
    return undefined
  }
  const key = resource(u)
  const at = key === undefined ? undefined : scanned.resources.get(key)
  if (at === undefined) return undefined
  let fragment: string
  try {
    fragment = decodeURIComponent(u.hash.slice(1))
  } catch {
    return undefined
  }
  const ptr = fragment === "" ? at : fragment.startsWith("/") ? at + fragment : scanned.anchors.get(`${key}#${fragment}`)
  if (ptr === undefined) return undefined
  const t = P.get(root, ptr)
  return typeof t === "boolean" || (typeof t === "object" && t !== null && !Array.isArray(t)) ? ptr : undefined
}

const hasEmbeddedId = (root: Obj): boolean => {
  const stack: Array<JsonValue> = children(root).map((c) => c.schema)
  while (stack.length > 0) {
    const s = stack.pop()
    if (typeof s !== "object" || s === null || Array.isArray(s)) continue
    const o = s as Obj
    if (typeof o["$id"] === "string" && !o["$id"].startsWith("#")) return true
    for (const c of children(o)) stack.push(c.schema)
  }
  return false
}

const identifying = ["$id", "$anchor", "$ref", "$dynamicAnchor", ...dynamic]

/**
 * The number of objects anywhere in the value (under every key, `enum` and `const` too) that hold an
 * identifier or a reference: Ajv registers `$id`s and anchors it finds under unknown keywords as well, so
 * a document with one where `scan` does not look is not folded.
 */
const identified = (v: JsonValue): number => {
  let n = 0
  const stack: Array<JsonValue> = [v]
  while (stack.length > 0) {
    const x = stack.pop()!
    if (typeof x !== "object" || x === null) continue
    if (Array.isArray(x)) {
      stack.push(...x)
      continue
    }
    const o = x as Obj
    if (identifying.some((k) => k in o)) n++
    for (const k of Object.keys(o)) stack.push(o[k]!)
  }
  return n
}

/** The schema with its embedded resources folded into pointers (see the module comment), or undefined. */
export const bundle = (root: JsonSchema): JsonSchema | undefined => {
  if (typeof root !== "object" || !hasEmbeddedId(root as Obj)) return undefined
  const scanned = scan(root as Obj)
  if (scanned === undefined || scanned.identified !== identified(root)) return undefined
  const copy = structuredClone(root) as Obj
  for (const { base, ptr, ref } of scanned.refs) {
    const t = target(root as Obj, scanned, ref, base)
    if (t === undefined) return undefined
    ;(P.get(copy, ptr) as Obj)["$ref"] = "#" + P.parse(t).map((x) => "/" + encodeURIComponent(x.replace(/~/g, "~0").replace(/\//g, "~1"))).join("")
  }
  for (const ptr of scanned.resources.values()) delete (P.get(copy, ptr) as Obj)["$id"]
  return copy
}
