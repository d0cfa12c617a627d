import { assert, describe, it } from "@effect/vitest"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { transportCause } from "../src/internal/transport.js"

describe("transportCause", () => {
  it("transportCause reads hostile causes without throwing: getters, Proxy traps, a huge multi-line message is one clipped line", () => {
    const request = HttpClientRequest.get("http://127.0.0.1:1/")
    const cause = (value: unknown) => transportCause(new HttpClientError.RequestError({ request, reason: "Transport", cause: value }))
    assert.strictEqual(cause({ cause: { code: "ECONNREFUSED", message: "connect failed" } }), "transport error (ECONNREFUSED)")
    const throwing = {
      get cause(): unknown {
        throw new Error("cause getter")
      },
      get code(): unknown {
        throw new Error("code getter")
      },
      get message(): unknown {
        throw new Error("message getter")
      }
    }
    const trapped = new Proxy({}, { get: () => { throw new Error("trap") }, getOwnPropertyDescriptor: () => { throw new Error("trap") } })
    for (const value of [throwing, trapped, undefined, null, 42, "ECONNRESET", { code: 42 }, JSON.parse("{\"__proto__\":{\"code\":\"EFAKE\"}}")]) {
      assert.strictEqual(cause(value), "transport error")
    }
    const huge = cause(new Error(`first\n\n\t${"word ".repeat(2_000_000)}`))
    assert.isAtMost(huge.length, 201)
    assert.isTrue(huge.startsWith("transport error (first word word"), huge.slice(0, 40))
    assert.notInclude(huge, "\n")
  })
})
