import { describe, expect, it } from "@effect/vitest"
import { toolgate } from "./toolgate.js"
import { normalize, render, type Target } from "../src/Normalize.js"
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
    expect(code).toBe(0)
    expect(stdout).toContain("target: openai-strict")
    expect(stdout).toContain("strict: true")
    expect(stdout).toMatch(/\/properties\/city\/pattern: .*pattern/)
    expect(stdout).toContain("`dict`")
    const printed = JSON.parse(stdout.slice(stdout.indexOf("schema:\n") + "schema:\n".length))
    expect(printed.additionalProperties).toBe(false)
    expect(printed.required).toEqual(["city", "days", "__proto__"])
    expect(printed.properties.city.description).toBe('City (default: "Paris")')
  }, 30_000)

  it("google --json prints one object { target, schema, changes } (no strict), keeping __proto__ as a property", () => {
    const { code, stdout } = toolgate("normalize", "--target", "google", "--json", schema)
    expect(code).toBe(0)
    const printed = JSON.parse(stdout.trim())
    expect(Object.keys(printed)).toEqual(["_tag", "exitCode", "target", "schema", "changes"])
    expect(printed.target).toBe("google")
    expect(printed.schema.type).toBe("object")
    expect(printed.schema.properties.city.description).toContain('{pattern: "^[A-Z]"}')
    expect(Object.hasOwn(printed.schema.properties, "__proto__")).toBe(true)
    expect(printed.changes.map((c: { path: string }) => c.path)).toContain("/properties/days/minimum")
    expect(Object.prototype).not.toHaveProperty("type")
  }, 30_000)

  it("exits 2 for text that is not JSON, with the reason on stderr", () => {
    const { code, stderr, stdout } = toolgate("normalize", "--target", "cca", file("broken.json", "{ \"type\": "))
    expect(code).toBe(2)
    expect(stderr).toContain("not valid JSON")
    expect(stdout).toBe("")
  }, 30_000)

  it("prints a 10,000-level schema (strict mode falls open and returns it as given) instead of crashing", () => {
    const deep = file("deep.json", Array.from({ length: 10_000 }).reduce<string>((s) => `{"type":"object","properties":{"a":${s}}}`, '{"type":"string"}'))
    const human = toolgate("normalize", "--target", "openai-strict", deep)
    expect(human.code).toBe(0)
    expect(human.stdout).toContain("strict: false")
    const printed = toolgate("normalize", "--target", "mcp", "--json", deep)
    expect(printed.code).toBe(0)
    expect(JSON.parse(printed.stdout.trim()).target).toBe("mcp")
  }, 30_000)

  it("reads 01-string-integers.json as a file, and inline JSON only from --schema-json; --json bad input is a BadInput object", () => {
    const numbered = file("01-string-integers.json", JSON.stringify({ type: "dict", properties: { n: { type: "integer" } } }))
    const fromFile = toolgate("normalize", "--target", "mcp", numbered, "--json")
    expect(fromFile.code, fromFile.stderr).toBe(0)
    expect(JSON.parse(fromFile.stdout).schema.type).toBe("object")
    const inline = toolgate("normalize", "--target", "mcp", "--schema-json", '{"type":"float"}', "--json")
    expect(inline.code, inline.stderr).toBe(0)
    expect(JSON.parse(inline.stdout).schema).toEqual({ type: "number" })
    const both = toolgate("normalize", "--target", "mcp", numbered, "--schema-json", "{}", "--json")
    expect(both.code).toBe(2)
    expect(JSON.parse(both.stdout)).toMatchObject({ _tag: "BadInput", exitCode: 2 })
    const neither = toolgate("normalize", "--target", "mcp", "--json")
    expect(neither.code).toBe(2)
    expect(JSON.parse(neither.stdout).message).toContain("SCHEMA.json")
  }, 30_000)

  it("--help's example passes a schema, and running it rewrites that schema", () => {
    const help = toolgate("normalize", "--help")
    expect(help.code).toBe(0)
    const example = /Example: toolgate normalize --target (\S+) --schema-json '([^']+)'/.exec(help.stdout)
    expect(example, help.stdout).not.toBeNull()
    const run = toolgate("normalize", "--target", example![1]!, "--schema-json", example![2]!, "--json")
    expect(run.code, run.stderr).toBe(0)
    const printed = JSON.parse(run.stdout)
    expect(printed.changes.length).toBeGreaterThan(0)
    expect(printed.schema).not.toEqual(JSON.parse(example![2]!))
  }, 30_000)

  it("exits 2 for a missing file and for JSON that is not a schema", () => {
    const missing = toolgate("normalize", "--target", "mcp", join(dir, "no-such.json"))
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("no-such.json")
    const list = toolgate("normalize", "--target", "mcp", file("list.json", "[1, 2]"))
    expect(list.code).toBe(2)
    expect(list.stderr).toContain("must be a JSON object or a boolean")
  }, 30_000)
})

// The command's own functions, in process: every target, the fall-open case, and hostile input.
describe("normalize and render", () => {
  const targets: ReadonlyArray<Target> = ["openai-strict", "google", "cca", "mcp"]
  const nullableCity = { type: "object", properties: { city: { type: ["string", "null"], minLength: 2 } }, required: ["city"] }

  it("gives `strict` for openai-strict only, and each target its dialect", () => {
    const [strict, google, cca, mcp] = targets.map((t) => normalize(t, nullableCity as never))
    expect(strict).toMatchObject({ target: "openai-strict", strict: true })
    expect((strict!.schema as any).additionalProperties).toBe(false)
    expect((google!.schema as any).properties.city).toEqual({ type: "string", nullable: true, description: "{minLength: 2}" })
    expect(cca!.schema).toEqual({ type: "object", properties: { city: { type: "string", description: "{minLength: 2}" } } })
    expect((mcp!.schema as any).properties.city).toEqual({ type: ["string", "null"], minLength: 2 })
    for (const r of [google, cca, mcp]) expect(Object.keys(r!)).toEqual(["target", "schema", "changes"])
    expect(render(cca!)).not.toContain("strict:")
  })

  it("a schema strict mode cannot take prints strict: false, the reason, and the schema unchanged", () => {
    const open = { type: "object", properties: { meta: { type: "object", description: "Anything." } } }
    const r = normalize("openai-strict", open as never)
    expect(r.strict).toBe(false)
    expect(r.schema).toEqual(open)
    const text = render(r)
    expect(text).toContain("strict: false")
    expect(text).toMatch(/\/properties\/meta: strict mode is off for this tool/)
  })

  it("hostile input: __proto__ names stay properties, and 10,000 levels of nesting print without throwing", () => {
    const proto = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string","format":"email"},"constructor":{"const":1}}}')
    for (const t of targets) {
      const r = normalize(t, proto)
      expect(Object.hasOwn((r.schema as any).properties, "__proto__")).toBe(true)
      expect(JSON.parse(JSON.stringify(r)).schema.properties).toHaveProperty("constructor")
    }
    expect(({} as Record<string, unknown>)["type"]).toBeUndefined()
    let deep: Record<string, unknown> = { type: "string" }
    for (let i = 0; i < 10_000; i++) deep = { type: "object", properties: { a: deep } }
    for (const t of targets) {
      const text = render(normalize(t, deep as never))
      expect(text).toContain(`target: ${t}`)
      expect(text.endsWith("}")).toBe(true)
      if (t === "openai-strict") expect(text).toContain("strict: false")
    }
  })
})
