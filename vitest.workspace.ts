import { projects } from "./vitest.shared.js"

/** The vitest projects: two per package and app (see `projects`); packages/test-support has no tests. */
export default [
  ...projects("packages/json-schema", "@toolgate/json-schema", {
    slow: ["test/RefAware.providers.test.ts"]
  }),
  ...projects("packages/subschema", "@toolgate/subschema", { slow: ["test/Subschema.containment.test.ts"] }),
  ...projects("packages/runtime", "@toolgate/runtime", { slow: ["test/sessionRequest.test.ts"] }),
  ...projects("packages/providers", "@toolgate/providers"),
  ...projects("packages/ai", "@toolgate/ai"),
  ...projects("packages/ai-sdk", "@toolgate/ai-sdk"),
  ...projects("packages/sql", "@toolgate/sql", { test: { testTimeout: 60_000, hookTimeout: 120_000 } }),
  ...projects("packages/mcp", "@toolgate/mcp", { test: { testTimeout: 60_000, hookTimeout: 60_000 } }),
  ...projects("apps/relay", "@toolgate/relay"),
  ...projects("apps/cli", "@toolgate/cli", {
    // the tests that start the real `toolgate` bin; the slow project builds it first (tsc -b, a no-op when dist/ is current)
    slow: ["test/{Check,Demo,Help,Normalize,Serve,Sessions,Subschema,bin,interrupt}.test.ts"],
    test: { testTimeout: 60_000 },
    slowTest: { globalSetup: ["test/buildOnce.ts"] }
  })
]
