/**
 * The examples in packages/ai-sdk/README.md run as written (the rule: the runtime's
 * packages/test-support/src/readmeExamples.ts). They need no outside server: the first one's model is the AI SDK's own
 * `MockLanguageModelV4`; the chat endpoint's serves itself on a free loopback port and is read by the AI SDK's client.
 */
import * as path from "node:path"
import { describeReadme } from "@toolgate/test-support/readmeExamples"

describeReadme(path.resolve(import.meta.dirname, ".."), { minOutputs: 4 })
