/**
 * `$ref`s after enforcement. A local pointer names a place in the input, and strict mode moves nodes:
 * optional properties are wrapped in `anyOf: [<schema>, {type: "null"}]`, nested unions are spliced flat.
 * Each pointer ref is re-aimed at the node built for its target (so `#/properties/a` becomes
 * `#/properties/a/anyOf/0`, the same schema as before, not its nullable wrapper); a ref whose target is no
 * longer a node of its own (a spliced union, a removed keyword) makes the tool fail open.
 *
 * @internal
 */
import type { JsonValue } from "../JsonValue.js"
import { append, format, parse } from "./pointer.js"
import { type Changes, type Draft, isObject, NotStrict, own } from "./normalizeOpenAiNode.js"

/** Re-aims the pointer `$ref`s of a strict schema (in place: the drafts are the transform's own copies). */
export const relink = (root: Draft, nodes: ReadonlyMap<string, Draft>, changes: Changes): void => {
  let where: Map<object, string> | undefined
  for (const [path, node] of nodes) {
    const ref = own(node, "$ref")
    if (typeof ref !== "string" || !(ref === "#" || ref.startsWith("#/"))) continue
    where ??= locate(root)
    if (!where.has(node)) continue
    const pointer = format(parse(ref))
    const target = nodes.get(pointer)
    const moved = target === undefined ? undefined : where.get(target)
    if (moved === undefined) {
      throw new NotStrict(path, `has a \`$ref\` ${JSON.stringify(ref)} whose target is no schema node of its own in the strict schema`)
    }
    if (moved === pointer) continue
    node["$ref"] = `#${encodeFragment(moved)}`
    changes.push({ path, change: `\`$ref\` ${JSON.stringify(ref)} now points at ${JSON.stringify(node["$ref"])}, where its target moved` })
  }
}

/** The pointer of every schema node in the strict schema, by identity. */
const locate = (root: Draft): Map<object, string> => {
  const where = new Map<object, string>()
  const stack: Array<{ readonly node: JsonValue; readonly path: string }> = [{ node: root, path: "" }]
  while (stack.length > 0) {
    const { node, path } = stack.pop()!
    if (!isObject(node)) continue
    where.set(node, path)
    for (const key of ["properties", "$defs", "definitions"]) {
      const map = own(node, key)
      if (isObject(map)) for (const k of Object.keys(map)) stack.push({ node: map[k]!, path: append(append(path, key), k) })
    }
    for (const key of ["anyOf", "prefixItems", "items", "additionalItems"]) {
      const v = own(node, key)
      if (Array.isArray(v)) v.forEach((x, i) => stack.push({ node: x, path: append(append(path, key), i) }))
      else if (v !== undefined) stack.push({ node: v, path: append(path, key) })
    }
  }
  return where
}

/** A pointer as a URI fragment: what a fragment may not hold is percent-encoded (UTF-8). */
const encodeFragment = (pointer: string): string =>
  pointer.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/?]/gu, (c) => encodeURIComponent(c))
