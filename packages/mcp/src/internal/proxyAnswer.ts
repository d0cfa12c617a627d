/**
 * The answers the proxy gives itself instead of the upstream's: a failure envelope as an `isError` tool result.
 */
import type { Validator } from "@toolgate/json-schema"
import * as ToolEnvelope from "@toolgate/runtime/ToolEnvelope"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"

/** The `_meta` key carrying every issue of a refused call. */
export const issuesKey = "dev.toolgate/issues"

/** The `_meta` key marking a result the journal answered. */
export const replayedKey = "dev.toolgate/replayed"

/** The `_meta` key of a call's idempotency key. */
export const idempotencyKey = "dev.toolgate/idempotency-key"

/** A failure envelope as an `isError` result: its JSON as text (what a model reads) and as structured content. */
export const failure = (envelope: ToolEnvelope.Failure, meta?: Record<string, unknown>): CallToolResult => ({
  content: [{ type: "text", text: ToolEnvelope.encode(envelope) }],
  structuredContent: { ...envelope },
  isError: true,
  ...(meta === undefined ? {} : { _meta: meta })
})

/** Arguments the tool's schema refuses: `invalid_args` with the first issue's field and expected, every issue in `_meta`. */
export const invalid = (tool: string, issues: ReadonlyArray<Validator.Issue>): CallToolResult =>
  failure(ToolEnvelope.fromIssues(issues, tool), {
    [issuesKey]: issues.map((i) => ({ field: i.field, path: i.path, keyword: i.keyword, expected: i.expected, message: i.message }))
  })

/** A failure of `kind` for `tool`. */
export const of = (kind: ToolEnvelope.Kind, tool: string, message: string): CallToolResult =>
  failure(ToolEnvelope.failure(kind, message, { tool }))
