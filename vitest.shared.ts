import { defineProject, type UserWorkspaceConfig } from "vitest/config"

/**
 * Tests run against the TypeScript sources, not `dist/`: every package's `exports` maps the
 * `@toolgate/source` condition to `src/`, and this adds it in front of Vite's own conditions.
 */
const conditions = ["@toolgate/source", "module", "node", "development|production"]

/** A package's vitest project: its name, its tests, the source condition. */
export const project = (name: string, test: UserWorkspaceConfig["test"] = {}) =>
  defineProject({
    resolve: { conditions },
    ssr: { resolve: { conditions } },
    test: { name, include: ["test/**/*.test.ts"], ...test }
  })
