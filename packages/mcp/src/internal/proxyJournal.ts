/**
 * The proxy's journal of answered calls by idempotency key: bounded in entries and bytes, least recently used
 * out first. A call still running is in it too, so a repeat sent while the first runs waits for that answer.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"

/** What the journal keeps of one call. */
interface Entry {
  readonly tool: string
  readonly args: string
  readonly answer: Promise<CallToolResult>
  bytes: number
}

/** The limits of a journal. */
export interface Limits {
  readonly maxEntries: number
  readonly maxBytes: number
}

/** What `claim` finds: a repeat of an answered (or running) call, a key reused for another call, or a new call. */
export type Claim =
  | { readonly _tag: "Repeat"; readonly answer: Promise<CallToolResult> }
  | { readonly _tag: "Conflict"; readonly tool: string }
  | { readonly _tag: "New" }

/** A journal: `claim` before calling upstream, `record` the answer's promise once the call starts. */
export interface Journal {
  readonly claim: (key: string, tool: string, args: string) => Claim
  readonly record: (key: string, tool: string, args: string, answer: Promise<CallToolResult>) => void
  readonly forget: (key: string) => void
  readonly size: () => number
  /** What the entries weigh: their keys, arguments and answers as JSON (an answer once it has come). */
  readonly bytes: () => number
}

/** A new, empty journal. */
export const make = (limits: Limits): Journal => {
  const entries = new Map<string, Entry>()
  let bytes = 0
  const evict = () => {
    for (const [key, entry] of entries) {
      if (entries.size <= limits.maxEntries && bytes <= limits.maxBytes) return
      entries.delete(key)
      bytes -= entry.bytes
    }
  }
  const sizeOf = (result: CallToolResult, key: string, args: string): number =>
    key.length + args.length + JSON.stringify(result).length
  return {
    claim: (key, tool, args) => {
      const entry = entries.get(key)
      if (entry === undefined) return { _tag: "New" }
      entries.delete(key)
      entries.set(key, entry)
      if (entry.tool !== tool || entry.args !== args) return { _tag: "Conflict", tool: entry.tool }
      return { _tag: "Repeat", answer: entry.answer }
    },
    record: (key, tool, args, answer) => {
      const entry: Entry = { tool, args, answer, bytes: key.length + args.length }
      entries.set(key, entry)
      bytes += entry.bytes
      answer.then((result) => {
        if (entries.get(key) !== entry) return
        const size = sizeOf(result, key, args)
        bytes += size - entry.bytes
        entry.bytes = size
        evict()
      }, () => entries.get(key) === entry && (entries.delete(key), bytes -= entry.bytes))
      evict()
    },
    forget: (key) => {
      const entry = entries.get(key)
      if (entry === undefined) return
      entries.delete(key)
      bytes -= entry.bytes
    },
    size: () => entries.size,
    bytes: () => bytes
  }
}
