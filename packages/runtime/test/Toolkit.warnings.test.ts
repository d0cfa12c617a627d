/**
 * What a local parameter schema says that the validator will not enforce is reported when the tool is made:
 * misspelled or foreign keywords and unknown formats, per tool and on the toolkit, logged once by
 * `Toolkit.logWarnings`; annotations, `x-*` keys and the corpus's `optional`/`example_value` stay silent.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Logger, Schema } from "effect"
import { Tool, Toolkit } from "@toolgate/runtime"

const sloppy = Tool.make("book", {
  description: "Book a table",
  parameters: {
    type: "object",
    title: "Booking",
    "x-owner": "team",
    examples: [{ name: "a" }],
    properties: {
      name: { type: "string", maxLenght: 20, optional: true, example_value: "Ada" },
      phone: { type: "string", format: "phone" },
      email: { type: "string", format: "email", description: "where to confirm" }
    },
    required: ["name"]
  },
  execute: () => Effect.void
})

const clean = Tool.make("echo", {
  description: "Echo",
  parameters: Schema.Struct({ text: Schema.String.pipe(Schema.maxLength(10)), at: Schema.optional(Schema.DateFromString) }),
  execute: (args) => Effect.succeed(args.text)
})

describe("schema warnings", () => {
  it("a tool reports its misspelled keywords and unknown formats, nothing else", () => {
    assert.deepStrictEqual(sloppy.warnings.map(({ kind, name, path, tool }) => ({ kind, name, path, tool })), [
      { kind: "keyword", name: "maxLenght", path: "/properties/name/maxLenght", tool: "book" },
      { kind: "format", name: "phone", path: "/properties/phone/format", tool: "book" }
    ])
    assert.match(sloppy.warnings[0]!.message, /`maxLenght`.*not enforced/)
    assert.deepStrictEqual(clean.warnings, [])
  })

  it("the toolkit carries its tools' warnings, and they survive provideContext", () => {
    const kit = Either.getOrThrow(Toolkit.make(clean, sloppy))
    assert.deepStrictEqual(kit.warnings, sloppy.warnings)
    assert.deepStrictEqual(Toolkit.provideContext(kit, undefined as never).warnings, sloppy.warnings)
    const byDomain = Either.getOrThrow(Toolkit.domains({ a: [sloppy], b: [clean] }))
    assert.deepStrictEqual(byDomain.warnings, sloppy.warnings)
  })

  it.effect("logWarnings logs each warning once, annotated with the tool and where", () =>
    Effect.gen(function*() {
      const logged: Array<{ readonly level: string; readonly message: unknown; readonly annotations: Record<string, unknown> }> = []
      const logger = Logger.replace(Logger.defaultLogger, Logger.make(({ annotations, logLevel, message }) => {
        logged.push({ level: logLevel.label, message, annotations: Object.fromEntries(annotations) })
      }))
      const kit = Either.getOrThrow(Toolkit.make(sloppy, clean))
      yield* Toolkit.logWarnings(kit).pipe(Effect.provide(logger))
      assert.deepStrictEqual(logged.map((l) => [l.level, l.annotations["tool"], l.annotations["path"]]), [
        ["WARN", "book", "/properties/name/maxLenght"],
        ["WARN", "book", "/properties/phone/format"]
      ])
    }))
})
