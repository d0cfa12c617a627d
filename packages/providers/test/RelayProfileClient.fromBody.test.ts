import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import * as RelayProfileClient from "../src/RelayProfileClient.js"

const weather = { type: "object", properties: { city: { type: "string" } }, required: ["city"] }

describe("RelayProfileClient.fromBody", () => {
  it("classifies a saved body exactly as the probe does", () => {
    const exported = RelayProfileClient.fromBody({ capabilities_version: "1.3", tool_schemas: { get_weather: weather }, documents: true })
    assert.isTrue(Either.isRight(exported) && exported.right._tag === "Exported")
    if (Either.isRight(exported) && exported.right._tag === "Exported") {
      assert.strictEqual(exported.right.version, "1.3")
      assert.deepStrictEqual([...exported.right.toolSchemas.keys()], ["get_weather"])
    }
    const predates = RelayProfileClient.fromBody({ documents: true })
    assert.isTrue(Either.isRight(predates) && predates.right._tag === "Predates")
  })

  it("fails with the contract error's reason for every broken body, whatever its type", () => {
    const reasons = [
      [{ capabilities_version: "2.0", tool_schemas: {} }, "unsupported_version"],
      [{ capabilities_version: "1.0" }, "incomplete"],
      [{ capabilities_version: 1, tool_schemas: {} }, "malformed"],
      [{ capabilities_version: "1.0", tool_schemas: { a: 5 } }, "malformed"],
      [null, "malformed"],
      ["text", "malformed"],
      [[1, 2], "malformed"]
    ] as const
    for (const [body, reason] of reasons) {
      const result = RelayProfileClient.fromBody(body)
      assert.isTrue(Either.isLeft(result), JSON.stringify(body))
      if (Either.isLeft(result)) assert.strictEqual(result.left.reason, reason, JSON.stringify(body))
    }
  })

  it("keeps a tool named __proto__ as a tool and pollutes nothing", () => {
    const result = RelayProfileClient.fromBody(JSON.parse(`{"capabilities_version":"1.0","tool_schemas":{"__proto__":${JSON.stringify(weather)}}}`))
    assert.isTrue(Either.isRight(result) && result.right._tag === "Exported" && result.right.toolSchemas.has("__proto__"))
    assert.isUndefined(({} as Record<string, unknown>).properties)
  })
})
