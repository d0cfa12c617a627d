import { assert, describe, it } from "@effect/vitest"
import { JsonValue as J } from "@toolgate/json-schema"
import type * as Message from "../src/Message.js"
import type * as Provider from "../src/Provider.js"
import * as ToolEnvelope from "../src/ToolEnvelope.js"
import { summarize } from "../src/internal/contextSummary.js"
import { build, fit, messages } from "../src/internal/sessionRequest.js"
import { defaults } from "./support/scriptedProvider.js"

// Old directory listings, when the context window trims history: collapsed to `<N> entries in <path>`
// before any whole turn is left out; the current turn's listings are never touched.

const caps = (contextWindow: number | undefined): Provider.ProviderCapabilities => ({ ...defaults, contextWindow })

const entries = (dir: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ name: `file-${i}.txt`, path: `${dir}/file-${i}.txt`, type: "file" as const }))

/** A turn that lists `dir` (`n` entries) and answers. */
const listingTurn = (dir: string, n: number, options?: ToolEnvelope.ListingOptions): ReadonlyArray<Message.Message> => [
  { _tag: "User", text: `what is in ${dir}?` },
  { _tag: "Assistant", text: "", toolCalls: [{ id: `c-${dir}`, name: "list_dir", arguments: { path: dir } }] },
  { _tag: "ToolResult", callId: `c-${dir}`, name: "list_dir", envelope: ToolEnvelope.listing(dir, entries(dir, n), { tool: "list_dir", ...options }) },
  { _tag: "Assistant", text: `${dir} holds ${n} files.`, toolCalls: [] }
]

const estimate = (ms: ReadonlyArray<Message.Message>): number => J.stringify(ms)!.length / 4

describe("the context window and old listings", () => {
  const history = [...listingTurn("Desktop", 50), ...listingTurn("Documents", 3, { entryCount: 400, truncated: true }), ...listingTurn("Now", 40)]
  const current = 8
  const collapsed = (dir: string, n: number): Message.Message => ({
    _tag: "ToolResult",
    callId: `c-${dir}`,
    name: "list_dir",
    envelope: { ok: true, tool: "list_dir", result: { text: `${n} entries in ${dir}` } }
  })

  it("within the window nothing is collapsed", () => {
    assert.deepStrictEqual(messages(caps(1_000_000), history, current, 0), history)
    assert.deepStrictEqual(messages(caps(undefined), history, current, 0), history)
  })

  it("over the window, earlier turns' listings are collapsed to `<N> entries in <path>`, oldest first, and no turn is dropped when that is enough", () => {
    const all = history.map((m, i) => i === 2 ? collapsed("Desktop", 50) : i === 6 ? collapsed("Documents", 400) : m)
    const oneCollapsed = history.map((m, i) => i === 2 ? collapsed("Desktop", 50) : m)
    // room for everything with both old listings collapsed, not with only the first
    const window = Math.ceil(estimate(all))
    assert.isAbove(estimate(oneCollapsed), window)
    assert.deepStrictEqual(messages(caps(window), history, current, 0), all)
    // room for the first collapsed: the second listing stays whole
    assert.deepStrictEqual(messages(caps(Math.ceil(estimate(oneCollapsed))), history, current, 0), oneCollapsed)
    // the current turn's listing (index 10) is never collapsed, even when turns are then dropped
    const tight = fit(caps(1), history, current, 0)
    assert.strictEqual(tight.from, current)
    assert.deepStrictEqual(tight.messages, history.slice(current))
  })

  it("a request built over the window carries the collapsed listings", () => {
    const request = build({
      capabilities: caps(Math.ceil(estimate(history.map((m, i) => i === 2 ? collapsed("Desktop", 50) : m)))),
      all: history,
      turnStart: current,
      seen: 0,
      definitions: { tools: [], strict: new Set() },
      active: new Set(),
      textRouted: false,
      persona: undefined,
      directives: undefined,
      toolChoice: "auto",
      structuredOutput: undefined,
      sampling: undefined,
      maxToolCallsPerTurn: undefined
    })
    assert.deepStrictEqual(request.messages[2], collapsed("Desktop", 50))
    assert.deepStrictEqual(request.messages.slice(3), history.slice(3))
  })

  it("the history itself is not changed, and the summary of left-out turns names their listings", () => {
    const before = JSON.stringify(history)
    messages(caps(10), history, current, 0)
    assert.strictEqual(JSON.stringify(history), before)
    const summary = summarize(history.slice(0, current))!
    assert.include(summary, "list_dir (50 entries in Desktop)")
    assert.include(summary, "list_dir (400 entries in Documents)")
  })

  it("a failed listing call and other results are left as they are", () => {
    const other: ReadonlyArray<Message.Message> = [
      { _tag: "User", text: "x".repeat(2_000) },
      { _tag: "ToolResult", callId: "a", name: "read", envelope: ToolEnvelope.file("a.txt", "y".repeat(2_000)) },
      { _tag: "ToolResult", callId: "b", name: "list_dir", envelope: ToolEnvelope.failure("not_found", "no such directory") },
      { _tag: "User", text: "now" }
    ]
    const out = messages(caps(1), other, 3, 0)
    assert.deepStrictEqual(out, other.slice(3))
    const fits = fit(caps(Math.ceil(estimate(other))), other, 3, 0)
    assert.deepStrictEqual(fits.messages, other)
  })
})
