/**
 * The examples in packages/json-schema/README.md run as written (the rule: packages/test-support/src/readmeExamples.ts).
 * They need nothing but the package: every function here is pure.
 */
import * as path from "node:path"
import { describeReadme } from "@toolgate/test-support/readmeExamples"

describeReadme(path.resolve(import.meta.dirname, ".."), { minOutputs: 5 })
