/**
 * RFC 6901 JSON pointers and their URI-fragment form.
 *
 * @internal
 */
import type { JsonValue } from "../JsonValue.js"

const unescape = (t: string): string => (t.includes("~") ? t.replace(/~1/g, "/").replace(/~0/g, "~") : t)

const escape = (t: string): string => (/[~/]/.test(t) ? t.replace(/~/g, "~0").replace(/\//g, "~1") : t)

/** Percent-decodes a URI fragment; a malformed escape leaves the text as it is. */
export const decodeFragment = (f: string): string => {
  if (!f.includes("%")) return f
  try {
    return decodeURIComponent(f)
  } catch {
    return f
  }
}

/** Tokens of a pointer; a leading `#` marks the URI-fragment form, which is percent-decoded first. */
export const parse = (p: string): ReadonlyArray<string> => {
  const s = p.startsWith("#") ? decodeFragment(p.slice(1)) : p
  if (s === "") return []
  const body = s.startsWith("/") ? s.slice(1) : s
  return body.split("/").map(unescape)
}

/** A pointer from tokens. */
export const format = (tokens: ReadonlyArray<string | number>): string => {
  let out = ""
  for (const t of tokens) out += "/" + escape(String(t))
  return out
}

/** One more token. */
export const append = (p: string, token: string | number): string => p + "/" + escape(String(token))

const index = /^(0|[1-9][0-9]*)$/

/** The value at a pointer, following own properties and canonical array indices only. */
export const get = (root: JsonValue, p: string): JsonValue | undefined => {
  let cur: JsonValue | undefined = root
  for (const t of parse(p)) {
    if (typeof cur !== "object" || cur === null) return undefined
    if (Array.isArray(cur)) {
      if (!index.test(t)) return undefined
      cur = cur[Number(t)]
    } else {
      if (!Object.prototype.hasOwnProperty.call(cur, t)) return undefined
      cur = (cur as { readonly [k: string]: JsonValue })[t]
    }
  }
  return cur
}

/** A pointer written as an argument path the way a model reads it: `filters.0.name`. */
export const toField = (p: string): string => parse(p).join(".")
