import { assert, describe, it } from "@effect/vitest"
import * as Cache from "../../src/internal/compileCache.js"

describe("compileCache", () => {
  it("Lru drops the least recently used entry, through onEvict", () => {
    const evicted: Array<string> = []
    const lru = new Cache.Lru<string>(2, (v) => evicted.push(v))
    lru.set("a", "A")
    lru.set("b", "B")
    assert.strictEqual(lru.get("a"), "A")
    lru.set("c", "C")
    assert.deepStrictEqual(evicted, ["B"])
    assert.isUndefined(lru.get("b"))
    assert.deepStrictEqual([lru.get("a"), lru.get("c")], ["A", "C"])
  })

  it("Lru also bounds its keys' characters: past maxChars the oldest go, the newest always stays", () => {
    const evicted: Array<string> = []
    const lru = new Cache.Lru<string>(100, (v) => evicted.push(v), 10)
    lru.set("aaaa", "A")
    lru.set("bbbb", "B")
    assert.deepStrictEqual(evicted, [])
    lru.set("cccc", "C")
    assert.deepStrictEqual(evicted, ["A"])
    lru.set("x".repeat(50), "huge")
    assert.deepStrictEqual(evicted, ["A", "B", "C"])
    assert.strictEqual(lru.get("x".repeat(50)), "huge")
    // setting a key again counts it once
    lru.set("dd", "D")
    lru.set("dd", "D2")
    lru.set("ee", "E")
    assert.deepStrictEqual([lru.get("dd"), lru.get("ee")], ["D2", "E"])
  })

  it("byIdentity derives once per object and on every call otherwise", () => {
    let calls = 0
    const f = Cache.byIdentity((k: object | boolean) => ({ k, n: ++calls }))
    const o = {}
    assert.strictEqual(f(o), f(o))
    assert.notStrictEqual(f({}), f(o))
    assert.notStrictEqual(f(true), f(true))
    assert.strictEqual(calls, 4)
  })

  it("byPair derives once per pair of objects and on every call otherwise", () => {
    let calls = 0
    const f = Cache.byPair((a: object | boolean, b: object | boolean) => ({ a, b, n: ++calls }))
    const x = {}, y = {}
    assert.strictEqual(f(x, y), f(x, y))
    assert.notStrictEqual(f(y, x), f(x, y))
    assert.notStrictEqual(f(x, true), f(x, true))
    assert.strictEqual(calls, 4)
  })
})
