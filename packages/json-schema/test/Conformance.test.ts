import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import * as Validator from "../src/Validator.js"
import { formatDeviations, requiredDeviations } from "./Conformance.pinned.js"
import * as Suite from "./suite.js"

const validator = Either.getOrThrow(Validator.make({ remotes: Suite.remotes() }))

describe("JSON-Schema-Test-Suite, draft 2020-12", () => {
  it("runs every required test; exactly the pinned known deviations fail", () => {
    const files = Suite.files("")
    assert.strictEqual(files.length, 46)
    const outcome = Suite.run(validator, files)
    assert.strictEqual(outcome.ran, 1299)
    assert.deepStrictEqual(outcome.failed, requiredDeviations)
    assert.strictEqual(outcome.ran - outcome.failed.length, 1227)
  })

  it("runs every format test; exactly the pinned ajv-formats deviations fail", () => {
    const files = Suite.files("optional/format")
    assert.strictEqual(files.length, 21)
    const outcome = Suite.run(validator, files)
    assert.strictEqual(outcome.ran, 764)
    assert.deepStrictEqual(outcome.failed, formatDeviations)
  })

  it("keeps the format deviations to the formats README names", () => {
    const files = new Set(formatDeviations.map((d) => d.split(" › ")[0]))
    assert.deepStrictEqual([...files].sort(), [
      "optional/format/date-time.json", "optional/format/duration.json", "optional/format/ecmascript-regex.json",
      "optional/format/email.json", "optional/format/hostname.json", "optional/format/idn-email.json",
      "optional/format/idn-hostname.json", "optional/format/iri-reference.json", "optional/format/iri.json",
      "optional/format/uri-reference.json", "optional/format/uri-template.json", "optional/format/uri.json",
      "optional/format/uuid.json"
    ])
  })

  it("serves remotes without network: a $ref to http://localhost:1234/ resolves", () => {
    const c = validator.compile({ $ref: "http://localhost:1234/draft2020-12/integer.json" })
    assert.isTrue(Either.isRight(c))
    if (Either.isRight(c)) {
      assert.isTrue(c.right.isValid(1))
      assert.isFalse(c.right.isValid("a"))
    }
  })

  it("the default instance has no remotes: the same $ref is a SchemaError", () => {
    const c = Validator.compile({ $ref: "http://localhost:1234/draft2020-12/integer.json" })
    assert.isTrue(Either.isLeft(c))
  })

  it("make answers options of the wrong type as no remotes, and hostile remotes as a value", () => {
    for (const o of [null, 5, "x", { remotes: null }, { remotes: 7 }]) {
      assert.isTrue(Either.isRight(Validator.make(o as never)))
    }
    const hostile = Validator.make({ remotes: JSON.parse('{"__proto__": {"type": 1}, "constructor": {"type": "string"}}') })
    assert.isTrue(Either.isLeft(hostile) && hostile.left.message.includes("__proto__"))
    assert.isUndefined(({} as Record<string, unknown>)["type"])
  })

  it("make reports a remote Ajv cannot register as a SchemaError", () => {
    const made = Validator.make({ remotes: { "http://localhost:1234/a.json": { $id: "http://x/1" }, "http://localhost:1234/b.json": { $id: "http://x/1" } } })
    assert.isTrue(Either.isLeft(made))
  })
})
