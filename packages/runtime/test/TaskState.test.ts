import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { TaskState, ToolEnvelope } from "@toolgate/runtime"

const entry = (name: string) => ({ name, path: `Desktop/${name}`, type: "file" as const })

describe("TaskState.classify", () => {
  it("tells an empty, a partial and a populated listing apart by entry_count and truncated", () => {
    assert.deepStrictEqual(TaskState.classify(ToolEnvelope.listing("Desktop", [])), TaskState.TaskState.EmptyListing({ path: "Desktop" }))
    assert.deepStrictEqual(
      TaskState.classify(ToolEnvelope.listing("Desktop", [entry("a"), entry("b")])),
      TaskState.TaskState.PopulatedListing({ path: "Desktop", entryCount: 2 })
    )
    assert.deepStrictEqual(
      TaskState.classify(ToolEnvelope.listing("Desktop", [entry("a")], { entryCount: 40, truncated: true })),
      TaskState.TaskState.PartialListing({ path: "Desktop", shown: 1, entryCount: 40 })
    )
  })

  it("reads JSON text as the model sees it, and file content as file content", () => {
    const listing = ToolEnvelope.encode(ToolEnvelope.listing("src", [entry("x")]))
    assert.strictEqual(TaskState.classify(listing)._tag, "PopulatedListing")
    const file = ToolEnvelope.encode(ToolEnvelope.file("notes.txt", "one\ntwo\n"))
    assert.deepStrictEqual(TaskState.classify(file), TaskState.TaskState.FileContent({ path: "notes.txt", truncated: false }))
  })

  it("a not_found failure is NotFound; other failures keep kind and retryable; legacy forms count", () => {
    assert.deepStrictEqual(
      TaskState.classify(ToolEnvelope.failure("not_found", "No such file: a.txt")),
      TaskState.TaskState.NotFound({ message: "No such file: a.txt" })
    )
    assert.deepStrictEqual(
      TaskState.classify(ToolEnvelope.failure("timeout", "slow")),
      TaskState.TaskState.Failed({ kind: "timeout", message: "slow", retryable: true })
    )
    assert.deepStrictEqual(TaskState.classify("[REJECTED] blocked"), TaskState.TaskState.Failed({ kind: "rejected", message: "blocked", retryable: false }))
    assert.deepStrictEqual(TaskState.classify({ error: "gone", kind: "not_found" }), TaskState.TaskState.NotFound({ message: "gone" }))
  })

  it("a success that is no listing or file, a malformed listing, and non-envelopes", () => {
    assert.strictEqual(TaskState.classify(ToolEnvelope.text("hi"))._tag, "Succeeded")
    assert.strictEqual(TaskState.classify({ ok: true, result: { kind: "listing", path: 3, entries: [] } })._tag, "Succeeded")
    assert.strictEqual(TaskState.classify({ ok: true })._tag, "Succeeded")
    for (const u of ["plain text", 42, null, undefined, [], { ok: "yes" }]) assert.strictEqual(TaskState.classify(u)._tag, "Unrecognized")
    assert.isTrue(TaskState.isListing(TaskState.classify(ToolEnvelope.listing("a", []))))
    assert.isFalse(TaskState.isListing(TaskState.classify(ToolEnvelope.text("a"))))
  })

  it("$match routes every state; $is guards one", () => {
    const next = TaskState.$match({
      EmptyListing: ({ path }) => `list the parent of ${path}`,
      PartialListing: ({ entryCount, shown }) => `page: ${shown}/${entryCount}`,
      PopulatedListing: () => "descend",
      FileContent: () => "answer",
      NotFound: () => "pick a path from the last listing",
      Failed: ({ kind }) => `handle ${kind}`,
      Succeeded: () => "go on",
      Unrecognized: () => "treat as text"
    })
    assert.strictEqual(next(TaskState.classify(ToolEnvelope.listing("d", []))), "list the parent of d")
    assert.strictEqual(next(TaskState.classify(ToolEnvelope.failure("not_found", "gone"))), "pick a path from the last listing")
    assert.isTrue(TaskState.$is("FileContent")(TaskState.classify(ToolEnvelope.file("a", "b"))))
  })

  it("hostile values (throwing getters, revoked proxies) never throw", () => {
    const { proxy, revoke } = Proxy.revocable([], {})
    revoke()
    const getter = Object.defineProperty({}, "entries", { get: () => { throw new Error("boom") }, enumerable: true })
    const trapped = new Proxy([], { get: () => { throw new Error("trap") } })
    for (const result of [
      { kind: "listing", path: "p", entries: proxy, truncated: false },
      { kind: "listing", path: "p", entries: trapped, truncated: false },
      Object.assign(getter, { kind: "listing", path: "p", truncated: false })
    ]) {
      assert.strictEqual(TaskState.classify({ ok: true, result })._tag, "Succeeded")
    }
  })

  it.prop("a listing envelope is always a listing state, partial exactly when entries are left out", [
    fc.array(fc.string(), { maxLength: 8 }),
    fc.nat({ max: 20 })
  ], ([names, extra]) => {
    const entries = names.map(entry)
    const state = TaskState.classify(ToolEnvelope.encode(ToolEnvelope.listing("d", entries, { entryCount: entries.length + extra })))
    assert.isTrue(TaskState.isListing(state))
    assert.strictEqual(state._tag === "PartialListing", extra > 0)
    assert.strictEqual(state._tag === "EmptyListing", entries.length + extra === 0)
  })
})
