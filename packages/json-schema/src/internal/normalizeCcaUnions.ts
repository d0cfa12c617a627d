/**
 * The union rules of the CCA pass (contract 3.3): object-only variants merged into one object shape,
 * same-type variants collapsed, mixed types lossy-collapsed to the first non-null scalar, `allOf` merged.
 * Each takes variants the walk already normalized (so no combiner is left inside them).
 *
 * @internal
 */
import type { JsonValue } from "../JsonValue.js"
import { equals } from "../JsonValue.js"
import type { Obj, Report } from "./normalizeGoogleWalk.js"
import { copy, has, isPlain, set } from "./normalizeGoogleWalk.js"

const scalars: ReadonlySet<string> = new Set(["string", "number", "integer", "boolean"])

/** The type a variant stands for: its `type`, or `object` when it only lists `properties`. */
export const variantType = (v: Obj): string | undefined =>
  typeof v["type"] === "string" ? v["type"] : isPlain(v["properties"]) ? "object" : undefined

const same = (a: unknown, b: unknown): boolean => {
  try {
    return equals(a as JsonValue, b as JsonValue)
  } catch {
    return false
  }
}

const strings = (v: unknown): ReadonlyArray<string> => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [])

/**
 * One object shape for object-only variants: properties united (a property the variants give differently
 * is collapsed like a union of its versions), `required` only where every variant requires it.
 */
export const mergeObjects = (variants: ReadonlyArray<Obj>, path: string, report: Report): Obj => {
  const out: Obj = {}
  const versions = new Map<string, Array<Obj>>()
  for (const v of variants) {
    for (const k of Object.keys(v)) if (k !== "properties" && k !== "required" && !has(out, k)) set(out, k, v[k])
    const p = v["properties"]
    if (!isPlain(p)) continue
    for (const name of Object.keys(p)) {
      const seen = versions.get(name) ?? []
      const x = p[name]
      if (isPlain(x) && !seen.some((y) => same(x, y))) seen.push(x)
      versions.set(name, seen)
    }
  }
  const props: Obj = {}
  for (const [name, vs] of versions) {
    set(props, name, vs.length === 0 ? {} : vs.length === 1 ? vs[0] : collapse(vs, `property \`${name}\`, given differently by the variants`, path, report))
  }
  const required = strings(variants[0]?.["required"]).filter((n) => variants.every((v) => strings(v["required"]).includes(n)))
  set(out, "type", "object")
  set(out, "properties", props)
  if (required.length > 0) set(out, "required", [...new Set(required)])
  return out
}

const annotations: ReadonlySet<string> = new Set(["description", "title", "examples", "default", "$comment", "deprecated", "readOnly", "writeOnly"])

/**
 * Whether the merged shape may reject a value one variant accepts: a property one variant gives that
 * another leaves open (or gives differently), or another keyword not every variant gives alike (the first
 * one's is kept). Uniting `properties` and keeping only the shared `required` only ever widen.
 */
const narrows = (variants: ReadonlyArray<Obj>): boolean => {
  const props = (v: Obj, name: string): unknown => {
    const p = v["properties"]
    return isPlain(p) && has(p, name) ? p[name] : undefined
  }
  const names = new Set(variants.flatMap((v) => (isPlain(v["properties"]) ? Object.keys(v["properties"]) : [])))
  for (const name of names) {
    const vs = variants.map((v) => props(v, name))
    const first = vs.find((x) => x !== undefined)
    const open = (x: unknown) => x === true || (isPlain(x) && Object.keys(x).every((k) => annotations.has(k)))
    if (vs.some((x) => (x === undefined ? !open(first) : !same(x, first)))) return true
  }
  const keys = new Set(variants.flatMap((v) => Object.keys(v)).filter((k) => k !== "properties" && k !== "required" && k !== "type" && !annotations.has(k)))
  return [...keys].some((k) => variants.some((v) => !has(v, k) || !same(v[k], variants[0]![k])))
}

/** Same-type variants as one schema: the first, with `enum`s united (or dropped when a variant has none). */
export const collapseSame = (variants: ReadonlyArray<Obj>, type: string | undefined): Obj => {
  const out = copy(variants[0]!)
  if (type !== undefined) set(out, "type", type)
  if (variants.every((v) => Array.isArray(v["enum"]))) {
    const values: Array<unknown> = []
    for (const v of variants) for (const x of v["enum"] as ReadonlyArray<unknown>) if (!values.some((y) => same(x, y))) values.push(x)
    set(out, "enum", values)
  } else delete out["enum"]
  return out
}

/** The variant kept when types mix: the first non-null scalar, else the first. */
export const firstScalar = (variants: ReadonlyArray<Obj>): Obj =>
  variants.find((v) => scalars.has(variantType(v) ?? "")) ?? variants[0]!

/** Collapses the non-null variants of an `anyOf`/`oneOf` to one schema, reporting how. */
export const collapse = (variants: ReadonlyArray<Obj>, what: string, at: string, report: Report): Obj => {
  if (variants.length === 1) {
    report(at, `${what}: one non-null variant, used in its place`)
    return variants[0]!
  }
  const types = variants.map(variantType)
  if (types.every((t) => t === "object")) {
    report(at, `${what}: ${variants.length} object variants merged into one object shape${narrows(variants) ? "; a property or keyword only some variants give now applies to every value (lossy)" : ""}`)
    return mergeObjects(variants, at, report)
  }
  const numeric = types.every((t) => t === "number" || t === "integer")
  if (numeric || types.every((t) => t === types[0])) {
    const type = numeric && types.includes("number") ? "number" : types[0]
    report(at, `${what}: ${variants.length} variants of one type (${type ?? "untyped"}) collapsed into one schema`)
    return collapseSame(variants, type)
  }
  const kept = firstScalar(variants)
  report(at, `${what}: mixes ${[...new Set(types.map((t) => t ?? "untyped"))].join(", ")}: only the variant of type ${variantType(kept) ?? "untyped"} is kept (lossy)`)
  return kept
}

/**
 * Lays `variant` over `node`: the union's result joins its siblings (a conjunction), so `properties` and
 * `required` are united; any other keyword the node has already keeps the node's value.
 */
export const absorb = (node: Obj, variant: Obj, at: string, report: Report): void => {
  for (const k of Object.keys(variant)) {
    const v = variant[k]
    if (!has(node, k)) set(node, k, v)
    else if (k === "properties" && isPlain(v) && isPlain(node[k])) {
      const props = copy(node[k] as Obj)
      for (const name of Object.keys(v)) {
        if (!has(props, name)) set(props, name, v[name])
        else if (!same(props[name], v[name])) report(at, `property \`${name}\` of the collapsed union differs from the one beside it: the outer one is kept (lossy)`)
      }
      set(node, k, props)
    } else if (k === "required") set(node, k, [...new Set([...strings(node[k]), ...strings(v)])])
    else if (k !== "description" && k !== "title" && !same(node[k], v)) {
      report(at, `\`${k}\` of the collapsed union differs from the one beside it: the outer one is kept (lossy)`)
    }
  }
}

/** `allOf` branches merged into the node: properties and `required` united, other conflicts keep the first. */
export const mergeAll = (node: Obj, branches: ReadonlyArray<Obj>, at: string, report: Report): void => {
  for (const b of branches) {
    for (const k of Object.keys(b)) {
      const v = b[k]
      if (!has(node, k)) set(node, k, k === "properties" && isPlain(v) ? copy(v) : v)
      else if (k === "properties" && isPlain(v) && isPlain(node[k])) {
        const props = node[k] as Obj
        for (const name of Object.keys(v)) {
          if (!has(props, name)) set(props, name, v[name])
          else if (!same(props[name], v[name])) report(at, `property \`${name}\` differs between \`allOf\` branches: the first is kept (lossy)`)
        }
      } else if (k === "required") set(node, k, [...new Set([...strings(node[k]), ...strings(v)])])
      else if (k !== "description" && k !== "title" && !same(node[k], v)) {
        report(at, `\`${k}\` differs between \`allOf\` branches: the first is kept (lossy)`)
      }
    }
  }
  report(at, `\`allOf\` of ${branches.length} branches merged into one schema`)
}
