/**
 * The bench harness: measures candidates against a baseline in the same run, interleaved, and reports
 * ratios, because absolute times on a shared two-core machine mean little.
 */
import { measure } from "mitata"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"

/** One thing to time: `run` does `ops` operations per call. */
export interface Candidate {
  readonly name: string
  readonly ops: number
  readonly run: () => unknown
}

/**
 * A target on a ratio: `candidate / baseline` must be at most `max` (or at least `min`); or, with `maxNs`,
 * an absolute bound on the candidate's ns per op (the ratio to `baseline` is then printed for context).
 */
export interface Target {
  readonly name: string
  readonly candidate: string
  readonly baseline: string
  readonly max?: number
  readonly min?: number
  readonly maxNs?: number
}

/** A measured candidate. */
export interface Result {
  readonly suite: string
  readonly name: string
  readonly nsPerOp: number
  readonly baseline: string
  readonly ratio: number
}

/**
 * Times each candidate `rounds` times, round-robin, and keeps each candidate's fastest round (its average over
 * a window of at least 300 ms CPU, so the garbage collection a candidate causes stays in its figure). Another
 * process on this shared machine can only add time to a round, so the fastest round is the steadiest estimate
 * of what a candidate costs. What differs between processes (how V8 compiled the loops) it cannot remove:
 * compare runs, not single figures.
 */
export const time = async (
  candidates: ReadonlyArray<Candidate>,
  rounds = 5
): Promise<Map<string, number>> => {
  const fastest = new Map<string, number>(candidates.map((c) => [c.name, Infinity]))
  for (let round = 0; round < rounds; round++) {
    for (const candidate of candidates) {
      const stats = await measure(candidate.run, { min_cpu_time: 300e6, batch_samples: 64 })
      fastest.set(candidate.name, Math.min(fastest.get(candidate.name)!, stats.avg / candidate.ops))
    }
  }
  return fastest
}

/** Prints a suite's table and its targets; returns the results and whether every target was met. */
export const report = (
  suite: string,
  nsPerOp: Map<string, number>,
  baseline: string,
  targets: ReadonlyArray<Target>
): { readonly results: ReadonlyArray<Result>; readonly met: boolean } => {
  const base = nsPerOp.get(baseline)!
  const results = [...nsPerOp].map(([name, ns]) => ({ suite, name, nsPerOp: ns, baseline, ratio: ns / base }))
  console.log(`\n${suite}`)
  for (const r of results) {
    console.log(`  ${r.name.padEnd(44)} ${r.nsPerOp.toFixed(0).padStart(9)} ns/op  ${r.ratio.toFixed(2).padStart(6)}× ${baseline}`)
  }
  let met = true
  for (const t of targets) {
    const ratio = nsPerOp.get(t.candidate)! / nsPerOp.get(t.baseline)!
    if (t.maxNs !== undefined) {
      const ns = nsPerOp.get(t.candidate)!
      const ok = ns <= t.maxNs
      met &&= ok
      console.log(`  ${ok ? "✔" : "✘"} ${t.name}: ${(ns / 1000).toFixed(2)} µs, ${ratio.toFixed(2)}× ${t.baseline} (target ≤ ${t.maxNs / 1000} µs)`)
      continue
    }
    const ok = (t.max === undefined || ratio <= t.max) && (t.min === undefined || ratio >= t.min)
    met &&= ok
    const bound = t.max !== undefined ? `≤ ${t.max}×` : `≥ ${t.min}×`
    console.log(`  ${ok ? "✔" : "✘"} ${t.name}: ${ratio.toFixed(2)}× (target ${bound})`)
  }
  return { results, met }
}

/** `globalThis.gc`, or one obtained through V8's flag when the process was not started with --expose-gc. */
export const gcOf = (): { readonly gc: (() => void) | undefined; readonly how: string } => {
  const own = (globalThis as { gc?: () => void }).gc
  if (typeof own === "function") return { gc: own, how: "global.gc (--expose-gc)" }
  try {
    setFlagsFromString("--expose-gc")
    const gc = runInNewContext("gc") as () => void
    if (typeof gc === "function") return { gc, how: "gc via v8.setFlagsFromString('--expose-gc')" }
  } catch {
    // no way to collect on demand: fall back to the bare heap difference
  }
  return { gc: undefined, how: "heap difference without gc (noisy: garbage included)" }
}

/**
 * One full collection that keeps the compiled code (`gc({ type: "major" })`), or nothing when no collector can
 * be reached. A bare `gc()` is V8's last-resort collection, which also throws compiled code away (bytecode
 * included): the calls after it run cold for hundreds of milliseconds (a one-call turn 3–5× slower over its
 * first thousand calls), so a round timed after it measures the JIT warming up again, more so the more code
 * a candidate runs. Timed rounds collect with this; heap figures with `gcOf`'s.
 */
export const collectGarbage = (): void => {
  collector ??= gcOf().gc ?? null
  if (collector !== null) (collector as (options: { readonly type: "major" }) => void)({ type: "major" })
}
let collector: (() => void) | null | undefined

/** The median of `xs` (the upper one of an even count). */
export const median = (xs: ReadonlyArray<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/**
 * Like `time` (round-robin rounds, the median of each candidate's per-round averages), but on this
 * process's CPU time (`process.cpuUsage`: every thread, GC helpers included) as well as wall time. The
 * machine is shared by several agents: wall time per op swings with their load, CPU time much less, so the
 * ratios are taken on CPU time and the wall figures printed beside them. Each round collects garbage
 * first (`collectGarbage`, so no candidate pays for the previous one's heap), then runs
 * a candidate until it has used `minCpuMs` of CPU (and at least 5 calls).
 */
export const timeCpu = async (candidates: ReadonlyArray<Candidate>, rounds: number, minCpuMs = 200) => {
  const cpu = new Map<string, Array<number>>(candidates.map((c) => [c.name, []]))
  const wall = new Map<string, Array<number>>(candidates.map((c) => [c.name, []]))
  for (let round = 0; round < rounds; round++) {
    for (const c of candidates) {
      collectGarbage()
      const c0 = process.cpuUsage()
      const w0 = performance.now()
      let ops = 0
      let used = 0
      while (used < minCpuMs * 1000 || ops < 5 * c.ops) {
        await c.run()
        ops += c.ops
        const u = process.cpuUsage(c0)
        used = u.user + u.system
      }
      cpu.get(c.name)!.push((used * 1000) / ops)
      wall.get(c.name)!.push(((performance.now() - w0) * 1e6) / ops)
    }
  }
  const medians = (m: Map<string, Array<number>>) => new Map([...m].map(([name, xs]) => [name, median(xs)]))
  return { cpu: medians(cpu), wall: medians(wall) }
}

/** The wall-clock figures of the same rounds, with their ratios to `baseline`. */
export const printWall = (wall: Map<string, number>, baseline: string) => {
  const base = wall.get(baseline)!
  for (const [name, ns] of wall) {
    console.log(`  ${`${name} (wall)`.padEnd(44)} ${ns.toFixed(0).padStart(9)} ns/op  ${(ns / base).toFixed(2).padStart(6)}× ${baseline}`)
  }
}
