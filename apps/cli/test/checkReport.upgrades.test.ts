/** `toolgate check`'s upgrade notes: a file of draft-07 tools reads as one summary line, not one line per change. */
import { assert, describe, it } from "@effect/vitest"
import * as CheckReport from "../src/internal/checkReport.js"
import type * as ToolsFile from "../src/internal/toolsFile.js"

const report = (upgrades: ReadonlyArray<ToolsFile.Upgrade>): CheckReport.Report => ({
  _tag: "Checked",
  version: "1",
  rows: [{ _tag: "Subtype", tool: "a" } as never],
  localOnly: [],
  upgrades,
  warnings: []
})

describe("check report: upgrade notes", () => {
  it("sums many upgrade changes up in one line naming the tools", () => {
    const upgrades = ["a", "b", "c", "d", "e"].flatMap((tool) => [
      { tool, path: "/definitions", change: "`definitions` became `$defs`" },
      { tool, path: "/items", change: "array-form `items` became `prefixItems`" }
    ])
    const notes = CheckReport.text(report(upgrades), "relay").split("\n").filter((l) => l.includes("note:"))
    assert.lengthOf(notes, 1)
    assert.include(notes[0], "the local schemas of 5 tools (a, b, c and 2 more) were upgraded")
    assert.include(notes[0], "10 changes")
  })

  it("keeps a single change as it is", () => {
    const notes = CheckReport.text(report([{ tool: "w", path: "/type", change: "type `dict` is read as `object`" }]), "relay").split("\n").filter((l) => l.includes("note:"))
    assert.deepStrictEqual(notes, ["  note: the local schema of w was upgraded: /type: type `dict` is read as `object`"])
  })
})
