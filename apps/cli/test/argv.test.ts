import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import * as fc from "fast-check"
import * as Argv from "../src/internal/argv.js"

describe("a server's command line split into argv without a shell", () => {
  it("splits words, keeps quoted text, interprets nothing", () => {
    assert.deepStrictEqual(Either.getOrThrow(Argv.split(`node  "my server.js" --root '/tmp/a b' $HOME \\*.js "say \\"hi\\""`)), [
      "node", "my server.js", "--root", "/tmp/a b", "$HOME", "*.js", `say "hi"`
    ])
    assert.deepStrictEqual(Either.getOrThrow(Argv.split(`a '' ""`)), ["a", "", ""])
    for (const bad of ["", "   ", "node 'x", `node "x`, "node \\"]) assert.isTrue(Either.isLeft(Argv.split(bad)))
  })

  it.prop("single-quoting each word gives the words back", [fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 6 })], ([words]) => {
    const line = words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(" ")
    assert.deepStrictEqual(Either.getOrThrow(Argv.split(line)), words)
  })
})
