/**
 * The examples in apps/relay/README.md run as written (the rule: packages/test-support/src/readmeExamples.ts)
 * against the relay each starts on a free loopback port. The first example (`Relay.layer` on port 8787) serves
 * until Ctrl-C, as `toolgate serve` does: it runs on a free port instead, is asked its capabilities and its
 * broken scenario's over loopback, and is stopped.
 */
import * as path from "node:path"
import { describeReadme } from "@toolgate/test-support/readmeExamples"

describeReadme(path.resolve(import.meta.dirname, ".."), {
  minOutputs: 3,
  serving: [{
    index: 0,
    port: 8787,
    answers: [
      ["/v1/agent/capabilities", "{\"capabilities_version\":\"1.0\",…\"get_weather\"…"],
      ["/scenarios/broken/v1/agent/capabilities", "{\"capabilities_version\":\"1.0\",\"tool_schemas\":\"not an object: the relay's malformed fault\"}"]
    ]
  }]
})
