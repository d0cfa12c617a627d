/**
 * An MCP tool as a toolgate `Tool`: its executor is `tools/call` with toolgate's idempotency key in
 * `_meta`, and what the server answers becomes an envelope (an `isError` result a failure with its text,
 * `structuredContent` the result once the output schema accepts it, other content kept as sent; a lost
 * server `unavailable`, no answer in time `timeout`).
 */
import { JsonSchema, JsonValue, Validator } from "@toolgate/json-schema"
import { type Errors, Tool, ToolEnvelope } from "@toolgate/runtime"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as McpConnection from "../McpConnection.js"
import type * as McpErrors from "../McpErrors.js"

/** The `_meta` key a call's idempotency key travels under (a proxy answers repeats by it). */
export const idempotencyKeyMeta = "dev.toolgate/idempotency-key"

/** What a tool needs to be built: its name, description and the schemas it is held to. */
export interface Spec {
  readonly name: string
  readonly description: string
  readonly inputSchema: Readonly<Record<string, unknown>>
  readonly outputSchema: Readonly<Record<string, unknown>> | undefined
}

/** The texts of a result's text blocks. */
const textOf = (content: ReadonlyArray<unknown>): string =>
  content.flatMap((block) =>
    typeof block === "object" && block !== null && (block as { type?: unknown }).type === "text" &&
      typeof (block as { text?: unknown }).text === "string"
      ? [(block as { text: string }).text]
      : []
  ).join("\n")

/** A transport failure as the call's failure. */
const failureOf = (tool: string, error: McpErrors.McpError): Effect.Effect<never, Errors.ToolFailure> => {
  switch (error._tag) {
    case "McpTimeout":
      return Tool.fail("timeout", `The MCP server did not answer \`${tool}\` within ${error.millis} ms.`)
    case "McpUnavailable":
    case "McpLimitExceeded":
      return Tool.fail("unavailable", error.message)
    case "McpServerError":
    case "McpProtocolError":
      return Tool.fail("execution_error", error.message)
  }
}

/** The compiled output schema's check, or why the schema cannot be compiled. */
const outputCheck = (schema: Readonly<Record<string, unknown>> | undefined) => {
  if (schema === undefined) return undefined
  return Validator.compile(JsonSchema.upgrade(schema as JsonSchema.JsonSchema).schema)
}

/** A call's answer as the executor's result: an envelope, or a failure. */
const answerOf = (
  tool: string,
  result: McpConnection.CallResult,
  output: ReturnType<typeof outputCheck>
): Effect.Effect<ToolEnvelope.Envelope, Errors.ToolFailure> => {
  if (result.isError) return Tool.fail("execution_error", textOf(result.content) || `The MCP tool \`${tool}\` failed.`)
  if (result.structuredContent !== undefined) {
    const value = result.structuredContent
    if (output !== undefined) {
      if (Either.isLeft(output)) return Tool.fail("execution_error", `The output schema of \`${tool}\` cannot be used: ${output.left.message}`)
      const issues = output.right.validate(value)
      if (issues.length > 0) {
        return Tool.fail("execution_error", `The MCP server's result breaks the output schema of \`${tool}\`: ${issues.map((i) => i.message).join("; ")}`)
      }
    }
    return JsonValue.isJsonValue(value) ? Effect.succeed(ToolEnvelope.success(value, { tool })) : Tool.fail("execution_error", "The result is not JSON.")
  }
  if (output !== undefined) return Tool.fail("execution_error", `The MCP tool \`${tool}\` declares an output schema but answered no structured content.`)
  const allText = result.content.every((b) => typeof b === "object" && b !== null && (b as { type?: unknown }).type === "text")
  if (allText) return Effect.succeed(ToolEnvelope.text(textOf(result.content), { tool }))
  const content = result.content as unknown
  return JsonValue.isJsonValue(content) ? Effect.succeed(ToolEnvelope.success({ content }, { tool })) : Tool.fail("execution_error", "The result is not JSON.")
}

/**
 * The tool for `spec` on `connection`; `blocked` says why calls are refused (the live server drifted from
 * what the tool was proved against), checked at each call.
 */
export const make = (
  spec: Spec,
  connection: McpConnection.Service,
  timeout: Duration.Duration,
  blocked: (tool: string) => Effect.Effect<string | undefined>
) => {
  const output = outputCheck(spec.outputSchema)
  return Tool.make(spec.name, {
    description: spec.description,
    parameters: spec.inputSchema as JsonSchema.JsonSchema,
    timeout,
    execute: (args, ctx) =>
      Effect.gen(function*() {
        const why = yield* blocked(spec.name)
        if (why !== undefined) return yield* Tool.fail("unavailable", why, { retryable: false })
        const result = yield* connection.callTool(spec.name, args as Record<string, unknown>, {
          timeout,
          meta: { [idempotencyKeyMeta]: ctx.idempotencyKey }
        }).pipe(Effect.catchAll((error) => failureOf(spec.name, error)))
        return yield* answerOf(spec.name, result, output)
      })
  })
}
