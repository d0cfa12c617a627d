import { configDefaults, defineProject, type UserWorkspaceConfig } from "vitest/config"

/**
 * Tests run against the TypeScript sources, not `dist/`: every package's `exports` maps the
 * `@toolgate/source` condition to `src/`, and this adds it in front of Vite's own conditions.
 */
const conditions = ["@toolgate/source", "module", "node", "development|production"]

/**
 * The slow tests of every package, by name: corpus and suite sweeps, fuzzing, hostile inputs, the README
 * examples (each runs `tsx`) and the relay's integration and load tests.
 */
const slowTests = ["test/**/*.{corpus,suite,fuzz,hostile,readme}.test.ts", "test/**/README.*.test.ts", "test/**/integration.*.test.ts"]

/** What a package adds to its projects. */
export interface Options {
  /** More slow tests of this package (globs from the package's folder). */
  readonly slow?: ReadonlyArray<string>
  /** Options of both projects. */
  readonly test?: UserWorkspaceConfig["test"]
  /** Options of the slow project only. */
  readonly slowTest?: UserWorkspaceConfig["test"]
}

/**
 * A package's two vitest projects, both on its sources: `<name>` runs its tests but the slow ones, and
 * `<name>:slow` runs those. `npm test` runs every project, `npm run test:fast` (`--project "!*:slow"`)
 * all but the slow ones.
 */
export const projects = (root: string, name: string, options: Options = {}) => {
  const slow = [...slowTests, ...(options.slow ?? [])]
  const shared = { root, resolve: { conditions }, ssr: { resolve: { conditions } } }
  return [
    defineProject({ ...shared, test: { name, include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...slow], ...options.test } }),
    defineProject({ ...shared, test: { name: `${name}:slow`, include: slow, ...options.test, ...options.slowTest } })
  ]
}
