import { assert, describe, it } from "@effect/vitest"
import { toolgate } from "./toolgate.js"
import { normalize, render } from "../src/internal/normalizing.js"
import type { Target } from "../src/Normalize.js"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const dir = mkdtempSync(join(tmpdir(), "toolgate-normalize-"))
const file = (name: string, text: string): string => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

// A published schema as tools write it: draft-07 `dict`, a format, a default, and a hostile property name.
const schema = file("weather.json", JSON.stringify({
  type: "dict",
  properties: {
    city: { type: "string", pattern: "^[A-Z]", default: "Paris", description: "City" },
    days: { type: "integer", minimum: 1 },
    ["__proto__"]: { type: "string" }
  },
  required: ["city"]
}))

// The real process, so the exit codes a CI script sees are the ones tested (each run starts tsx: ~1.5 s,
// more on a loaded machine, hence the timeouts).
describe("toolgate normalize (the process)", () => {
  it("openai-strict prints strict: true, each change, and the closed schema", () => {
    const { code, stdout } = toolgate("normalize", "--target", "openai-strict", schema)
    assert.strictEqual(code, 0)
    assert.include(stdout, "target: openai-strict")
    assert.include(stdout, "strict: true")
    assert.match(stdout, /\/properties\/city\/pattern: .*pattern/)
    assert.include(stdout, "`dict`")
    const printed = JSON.parse(stdout.slice(stdout.indexOf("schema:\n") + "schema:\n".length))
    assert.strictEqual(printed.additionalProperties, false)
    assert.deepStrictEqual(printed.required, ["city", "days", "__proto__"])
    assert.strictEqual(printed.properties.city.description, 'City (default: "Paris")')
  }, 30_000)

  it("google --json prints one object { target, schema, changes } (no strict), keeping __proto__ as a property", () => {
    const { code, stdout } = toolgate("normalize", "--target", "google", "--json", schema)
    assert.strictEqual(code, 0)
    const printed = JSON.parse(stdout.trim())
    assert.deepStrictEqual(Object.keys(printed), ["_tag", "exitCode", "target", "schema", "changes"])
    assert.strictEqual(printed.target, "google")
    assert.strictEqual(printed.schema.type, "object")
    assert.include(printed.schema.properties.city.description, '{pattern: "^[A-Z]"}')
    assert.strictEqual(Object.hasOwn(printed.schema.properties, "__proto__"), true)
    assert.include(printed.changes.map((c: { path: string }) => c.path), "/properties/days/minimum")
    assert.notNestedProperty(Object.prototype, "type")
  }, 30_000)

  it("exits 2 for text that is not JSON, with the reason on stderr", () => {
    const { code, stderr, stdout } = toolgate("normalize", "--target", "cca", file("broken.json", "{ \"type\": "))
    assert.strictEqual(code, 2)
    assert.include(stderr, "not valid JSON")
    assert.strictEqual(stdout, "")
  }, 30_000)

  it("prints a 10,000-level schema (strict mode falls open and returns it as given) instead of crashing", () => {
    const deep = file("deep.json", Array.from({ length: 10_000 }).reduce<string>((s) => `{"type":"object","properties":{"a":${s}}}`, '{"type":"string"}'))
    const human = toolgate("normalize", "--target", "openai-strict", deep)
    assert.strictEqual(human.code, 0)
    assert.include(human.stdout, "strict: false")
    const printed = toolgate("normalize", "--target", "mcp", "--json", deep)
    assert.strictEqual(printed.code, 0)
    assert.strictEqual(JSON.parse(printed.stdout.trim()).target, "mcp")
  }, 30_000)

  it("reads 01-string-integers.json as a file, and inline JSON only from --schema-json; --json bad input is a BadInput object", () => {
    const numbered = file("01-string-integers.json", JSON.stringify({ type: "dict", properties: { n: { type: "integer" } } }))
    const fromFile = toolgate("normalize", "--target", "mcp", numbered, "--json")
    assert.strictEqual(fromFile.code, 0, fromFile.stderr)
    assert.strictEqual(JSON.parse(fromFile.stdout).schema.type, "object")
    const inline = toolgate("normalize", "--target", "mcp", "--schema-json", '{"type":"float"}', "--json")
    assert.strictEqual(inline.code, 0, inline.stderr)
    assert.deepStrictEqual(JSON.parse(inline.stdout).schema, { type: "number" })
    const both = toolgate("normalize", "--target", "mcp", numbered, "--schema-json", "{}", "--json")
    assert.strictEqual(both.code, 2)
    assert.deepInclude(JSON.parse(both.stdout), { _tag: "BadInput", exitCode: 2 })
    const neither = toolgate("normalize", "--target", "mcp", "--json")
    assert.strictEqual(neither.code, 2)
    assert.include(JSON.parse(neither.stdout).message, "SCHEMA.json")
  }, 30_000)

  it("--help's example passes a schema, and running it rewrites that schema", () => {
    const help = toolgate("normalize", "--help")
    assert.strictEqual(help.code, 0)
    const example = /Example: toolgate normalize --target (\S+) --schema-json '([^']+)'/.exec(help.stdout)
    assert.isNotNull(example, help.stdout)
    const run = toolgate("normalize", "--target", example![1]!, "--schema-json", example![2]!, "--json")
    assert.strictEqual(run.code, 0, run.stderr)
    const printed = JSON.parse(run.stdout)
    assert.deepStrictEqual(printed.changes.map((c: { readonly path: string }) => c.path), ["/type", "/properties/days/minimum", "/properties/days", ""])
    assert.notDeepEqual(printed.schema, JSON.parse(example![2]!))
  }, 30_000)

  it("exits 2 for a missing file and for JSON that is not a schema", () => {
    const missing = toolgate("normalize", "--target", "mcp", join(dir, "no-such.json"))
    assert.strictEqual(missing.code, 2)
    assert.include(missing.stderr, "no-such.json")
    const list = toolgate("normalize", "--target", "mcp", file("list.json", "[1, 2]"))
    assert.strictEqual(list.code, 2)
    assert.include(list.stderr, "must be a JSON object or a boolean")
  }, 30_000)
})

// The command's own functions, in process: every target, the fall-open case, and hostile input.
describe("normalize and render", () => {
  const targets: ReadonlyArray<Target> = ["openai-strict", "google", "cca", "mcp"]
  const nullableCity = { type: "object", properties: { city: { type: ["string", "null"], minLength: 2 } }, required: ["city"] }

  it("gives `strict` for openai-strict only, and each target its dialect", () => {
    const [strict, google, cca, mcp] = targets.map((t) => normalize(t, nullableCity as never))
    assert.deepInclude(strict, { target: "openai-strict", strict: true })
    assert.strictEqual((strict!.schema as any).additionalProperties, false)
    assert.deepStrictEqual((google!.schema as any).properties.city, { type: "string", nullable: true, description: "{minLength: 2}" })
    assert.deepStrictEqual(cca!.schema, { type: "object", properties: { city: { type: "string", description: "{minLength: 2}" } } })
    assert.deepStrictEqual((mcp!.schema as any).properties.city, { type: ["string", "null"], minLength: 2 })
    for (const r of [google, cca, mcp]) assert.deepStrictEqual(Object.keys(r!), ["target", "schema", "changes"])
    assert.notInclude(render(cca!), "strict:")
  })

  it("a schema strict mode cannot take prints strict: false, the reason, and the schema unchanged", () => {
    const open = { type: "object", properties: { meta: { type: "object", description: "Anything." } } }
    const r = normalize("openai-strict", open as never)
    assert.strictEqual(r.strict, false)
    assert.deepStrictEqual(r.schema, open)
    const text = render(r)
    assert.include(text, "strict: false")
    assert.match(text, /\/properties\/meta: strict mode is off for this tool/)
  })

  it("hostile input: __proto__ names stay properties, and 10,000 levels of nesting print without throwing", () => {
    const proto = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string","format":"email"},"constructor":{"const":1}}}')
    for (const t of targets) {
      const r = normalize(t, proto)
      assert.strictEqual(Object.hasOwn((r.schema as any).properties, "__proto__"), true)
      assert.isTrue(Object.hasOwn(JSON.parse(JSON.stringify(r)).schema.properties, "constructor"))
    }
    assert.isUndefined(({} as Record<string, unknown>)["type"])
    let deep: Record<string, unknown> = { type: "string" }
    for (let i = 0; i < 10_000; i++) deep = { type: "object", properties: { a: deep } }
    for (const t of targets) {
      const text = render(normalize(t, deep as never))
      assert.include(text, `target: ${t}`)
      assert.strictEqual(text.endsWith("}"), true)
      if (t === "openai-strict") assert.include(text, "strict: false")
    }
  })
})
