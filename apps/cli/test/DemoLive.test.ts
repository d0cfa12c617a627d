/**
 * What the demo shows while a turn runs: each event reaches the run's watcher as it happens (a real session
 * over a relay on loopback), `--json` writes it as one line, and a terminal's live line shows the model's text
 * as it is written, rewritten in place and erased before the trace.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeHttpClient } from "@effect/platform-node"
import { Demo, Relay } from "@toolgate/relay"
import type { AgentSession } from "@toolgate/runtime"
import { Effect, Logger, LogLevel } from "effect"
import * as DemoRender from "../src/internal/demoRender.js"
import * as DemoRun from "../src/internal/demoRun.js"

const delta = (text: string): AgentSession.TurnEvent => ({ _tag: "TextDelta", turn: 1, round: 1, text })

describe("the demo while a turn runs", () => {
  it.scopedLive("a run hands each event to its watcher as it happens, in the order the trace reads them", () =>
    Effect.gen(function*() {
      const { url } = yield* Relay.start(Demo.config).pipe(Logger.withMinimumLogLevel(LogLevel.Warning))
      const seen: Array<AgentSession.TurnEvent> = []
      const matches = Demo.scenarios[0]!
      const result = yield* DemoRun.run(matches, 1, `${url}${Relay.scenarioPath(matches.name)}`, { current: [] }, (event) => Effect.sync(() => void seen.push(event)))
      assert.isTrue(result.passed)
      const tags = seen.map((e) => e._tag)
      assert.strictEqual(tags[0], "TurnStarted")
      assert.strictEqual(tags.at(-1), "TurnFinished")
      assert.isBelow(tags.indexOf("TextDelta"), tags.indexOf("TurnCommitted"))
      const lines = seen.map((e) => JSON.parse(DemoRender.eventJson(matches.name, e)) as { type: string; scenario: string; event: { _tag: string } })
      assert.deepStrictEqual(lines.map((l) => [l.type, l.scenario, l.event._tag]), tags.map((t) => ["event", "matches", t]))
      const end = lines.at(-1)!.event as unknown as { _tag: string; turn: number; text: string }
      assert.deepStrictEqual([end._tag, end.turn, end.text], ["TurnFinished", 1, "It is 18 °C and sunny in Paris."])
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it("the live line shows the round's text as it grows, rewrites itself in place, and is erased at the end", () => {
    const line = DemoRender.live(40)
    assert.strictEqual(line.push({ _tag: "TurnStarted", turn: 1, text: "hi" }), undefined)
    assert.strictEqual(line.push(delta("It is ")), "\r\u001b[2K  streaming It is ")
    assert.strictEqual(line.push(delta("18 °C\nand sunny")), "\r\u001b[2K  streaming It is 18 °C and sunny")
    // wider than the terminal: the end is kept
    const long = line.push(delta(" in Paris, with a light breeze from the west."))!
    assert.isTrue(long.startsWith("\r\u001b[2K  streaming …"))
    assert.isTrue(long.endsWith("from the west."))
    assert.isAtMost(Array.from(long.slice("\r\u001b[2K".length)).length, 40)
    // a round's text taken back empties the line; a new round starts it again
    assert.strictEqual(line.push({ _tag: "RoundDiscarded", turn: 1, round: 1, reason: "r" }), "\r\u001b[2K")
    assert.strictEqual(line.push({ _tag: "RoundStarted", turn: 1, round: 2 }), undefined)
    assert.strictEqual(line.push(delta("ok")), "\r\u001b[2K  streaming ok")
    assert.strictEqual(line.clear(), "\r\u001b[2K")
    assert.strictEqual(line.clear(), "")
  })

  it("a terminal that reports no width gets a live line of 80 columns", () => {
    assert.deepStrictEqual([0, undefined, Number.NaN, 120].map(DemoRender.terminalWidth), [80, 80, 80, 120])
    const text = "Let me check the weather for you. "
    assert.strictEqual(DemoRender.live(DemoRender.terminalWidth(0)).push(delta(text)), `\r\u001b[2K  streaming ${text}`)
  })

  it("the live line writes no control character the model sent", () => {
    const line = DemoRender.live(80)
    const out = line.push(delta("a\u001b[2Jb\u0007c\r\nd"))!
    assert.notMatch(out.slice("\r\u001b[2K".length), /[\u0000-\u001f\u007f]/)
  })
})
