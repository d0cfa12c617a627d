import { assert, describe, it } from "@effect/vitest"
import { JsonSchema, Normalize, RefAware, Validator } from "@toolgate/json-schema"
import { Subschema } from "@toolgate/subschema"
import { Script } from "@toolgate/providers"
import { Either } from "effect"
import { Demo, Profile } from "../src/index.js"

const local = (name: string) => {
  const tool = Demo.localTools.find((t) => t.name === name)
  if (tool === undefined) throw new Error(`no local tool ${name}`)
  return tool.parameters
}

const scenario = (name: string) => {
  const found = Demo.scenarios.find((s) => s.name === name)
  if (found === undefined) throw new Error(`no scenario ${name}`)
  return found
}

const toolSchemas = (profile: unknown): Record<string, JsonSchema.JsonSchema> => (profile as { tool_schemas: Record<string, JsonSchema.JsonSchema> }).tool_schemas

/** Every event of every round of a script, failures left out. */
const events = (script: Script.Script) => script.turns.flat().flatMap((round) => Script.isFailure(round) ? [] : [...round])

describe("Demo", () => {
  it("has the eight contract scenarios, then text-routed tools, tool discovery and the Gemini dialect, in order, with unique url-safe names", () => {
    assert.deepStrictEqual(Demo.scenarios.map((s) => s.name), [
      "matches", "drift", "old-relay", "near-miss", "repair", "exhausted", "provider-contract", "chaining", "text-tools", "discovery", "gemini-dialect"
    ])
    for (const s of Demo.scenarios) {
      assert.match(s.name, /^[a-z0-9][a-z0-9-]*$/, s.name)
      assert.strictEqual(encodeURIComponent(s.name), s.name)
      assert.isTrue(s.title.length > 10 && s.prompt.length > 0, s.name)
    }
  })

  it("every scenario's script decodes with Script.decode and its profile's faults read", () => {
    for (const s of Demo.scenarios) {
      assert.isTrue(Either.isRight(Script.decode(s.script)), s.name)
      assert.isTrue(Either.isRight(Script.decode(JSON.parse(JSON.stringify(s.script)))), `${s.name} as JSON`)
      assert.deepStrictEqual(Profile.faults(s.profile), Either.right([]), s.name)
    }
  })

  it("the local tools are schemas with unique names", () => {
    assert.strictEqual(new Set(Demo.localTools.map((t) => t.name)).size, Demo.localTools.length)
    for (const t of Demo.localTools) assert.isTrue(JsonSchema.isSchema(t.parameters), t.name)
  })

  it("matches: the profile exports every local tool and each is proven", () => {
    const schemas = toolSchemas(scenario("matches").profile)
    assert.deepStrictEqual(Object.keys(schemas).sort(), Demo.localTools.map((t) => t.name).sort())
    for (const [name, cloud] of Object.entries(schemas)) {
      assert.deepStrictEqual(Subschema.check(structuredClone(cloud), local(name)), { _tag: "Subtype" }, name)
    }
  })

  it("drift: get_weather drifted (city optional, units widened) with a witness the local schema rejects; locate_user still proven", () => {
    const schemas = toolSchemas(scenario("drift").profile)
    const cloud = schemas["get_weather"] as JsonSchema.JsonSchemaObject
    const verdict = Subschema.check(cloud, local("get_weather"))
    assert.strictEqual(verdict._tag, "Drift")
    if (verdict._tag === "Drift") assert.notDeepEqual(verdict.witness, undefined)
    assert.notInclude((cloud["required"] ?? []) as Array<string>, "city")
    const units = (cloud["properties"] as Record<string, { enum: Array<string> }>)["units"]!.enum
    assert.include(units, "kelvin")
    // the widened enum alone is a drift as well
    const onlyEnum = { ...cloud, required: ["city"] }
    assert.strictEqual(Subschema.check(onlyEnum, local("get_weather"))._tag, "Drift")
    assert.deepStrictEqual(Subschema.check(schemas["locate_user"]!, local("locate_user")), { _tag: "Subtype" })
  })

  it("old-relay: the profile has neither key (the relay predates the export)", () => {
    const profile = scenario("old-relay").profile as Record<string, unknown>
    assert.isFalse(Object.hasOwn(profile, "capabilities_version"))
    assert.isFalse(Object.hasOwn(profile, "tool_schemas"))
  })

  it("each scenario's script says what its title claims", () => {
    const nearMiss = events(scenario("near-miss").script).find((e) => e._tag === "ToolCallComplete")
    assert.include(JSON.stringify(nearMiss), "\\\"15\\\"")
    assert.isTrue(events(scenario("provider-contract").script).some((e) => e._tag === "ToolCallStarted"))
    assert.strictEqual(scenario("provider-contract").executionModel, "providerDriven")
    const chained = events(scenario("chaining").script).flatMap((e) => e._tag === "ToolCallComplete" ? RefAware.refs(e.arguments) : [])
    assert.deepStrictEqual(chained.map((l) => l.ref), [{ $tool: "call_1", $path: "result.city" }])
    assert.isTrue(scenario("chaining").toolChaining)
    for (const s of Demo.scenarios.filter((s) => s.name !== "chaining")) assert.isFalse(s.toolChaining, s.name)
  })

  it("text-tools: a text-routed client; its calls are <tool_call> blocks of JSON in the reply text, the first one invalid, the second a near miss", () => {
    const s = scenario("text-tools")
    assert.isTrue(s.client?.textTools)
    assert.isFalse(events(s.script).some((e) => e._tag === "ToolCallComplete"), "no native calls")
    const blocks = events(s.script).flatMap((e) => e._tag === "TextDelta" ? Array.from(e.text.matchAll(/<tool_call>([\s\S]*?)<\/tool_call>/g), (m) => JSON.parse(m[1]!)) : [])
    assert.deepStrictEqual(blocks, [
      { name: "get_weather", arguments: { city: "Berlin", units: "kelvin" } },
      { name: "get_weather", arguments: { city: "Berlin", units: "metric", days: "3" } }
    ])
    assert.include(JSON.stringify(s.script), "{{sampling}}")
  })

  it("discovery: the toolkit by domain is larger than the client's maxTools, each domain fits beside the two meta-tools", () => {
    const s = scenario("discovery")
    const maxTools = s.client?.maxTools ?? 0
    const all = Object.values(Demo.domainTools).flat()
    assert.isAbove(all.length, maxTools)
    assert.strictEqual(new Set(all.map((t) => t.name)).size, all.length)
    for (const local of Demo.localTools) assert.include(all, local)
    for (const [domain, tools] of Object.entries(Demo.domainTools)) assert.isAtMost(tools.length, maxTools - 2, domain)
    for (const t of all) assert.isTrue(JsonSchema.isSchema(t.parameters), t.name)
    const calls = events(s.script).flatMap((e) => e._tag === "ToolCallComplete" ? [e.name] : [])
    assert.deepStrictEqual(calls, ["toolgate_list_domains", "toolgate_activate_domain", "get_weather"])
  })

  it("gemini-dialect: a local Gemini client; a tool schema Google's dialect rewrites; a first call only the rewrite accepts; the script echoes the declarations", () => {
    const s = scenario("gemini-dialect")
    assert.deepStrictEqual([s.mode, s.client?.gemini?.model, s.client?.tools], ["local", "gemini-2.5-flash", [Demo.forecastTool]])
    const original = Demo.forecastTool.parameters
    assert.isTrue(JsonSchema.isSchema(original))
    const google = Normalize.google(original)
    const changed = google.changes.map((c) => `${c.path} ${c.change}`).join("\n")
    for (const rewrite of [/\$ref.* inlined/, /const.* became `enum`/, /^\/additionalProperties /m, /^\/properties\/days\/maximum .*kept in `description`/m]) {
      assert.match(changed, rewrite)
    }
    const calls = events(s.script).flatMap((e) => e._tag === "ToolCallComplete" ? [e] : [])
    assert.deepStrictEqual(calls.map((c) => c.name), ["get_forecast", "get_forecast"])
    const accepts = (schema: JsonSchema.JsonSchema, value: unknown) => Either.getOrThrow(Validator.compile(schema)).isValid(value)
    assert.isTrue(accepts(google.schema, calls[0]!.arguments), "Gemini's declaration allows days 20")
    assert.isFalse(accepts(original, calls[0]!.arguments), "the app's schema does not")
    assert.include(JSON.stringify(s.script.turns[0]![0]), "Declared to me: {{functionDeclarations}}")
  })

  it("config serves every scenario by name and matches at the root", () => {
    assert.deepStrictEqual(Array.from(Demo.config.scenarios.keys()), Demo.scenarios.map((s) => s.name))
    assert.strictEqual(Demo.config.profile, scenario("matches").profile)
    assert.strictEqual(Demo.config.script, scenario("matches").script)
    for (const s of Demo.scenarios) assert.strictEqual(Demo.config.scenarios.get(s.name)?.script, s.script)
    assert.isUndefined(Demo.config.scenarios.get("__proto__"))
  })
})
