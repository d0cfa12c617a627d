/**
 * The examples in apps/relay/README.md run as written (the rule: packages/test-support/src/readmeExamples.ts)
 * against the relay each starts on a free loopback port. The first example (`Relay.layer` on port 8787) serves
 * until Ctrl-C, as `toolgate serve` does: it states no output and is not run here.
 */
import * as path from "node:path"
import { describeReadme } from "@toolgate/test-support/readmeExamples"

describeReadme(path.resolve(import.meta.dirname, ".."), { minOutputs: 3, serving: [0] })
