/**
 * The examples in packages/mcp/README.md and docs/reference.md run as written (the rule:
 * packages/test-support/src/readmeExamples.ts): they spawn the real filesystem, memory and everything servers.
 */
import * as path from "node:path"
import { describeReadme } from "@toolgate/test-support/readmeExamples"

describeReadme(path.resolve(import.meta.dirname, ".."), { minOutputs: 4 })
