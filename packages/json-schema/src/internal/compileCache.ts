/**
 * The one way json-schema caches what it derives from schemas (compiled validators, `prepare`'s entries,
 * widened schemas; public as `SchemaCache`, where the prover keeps its verdicts): by object identity in a
 * `WeakMap`, so an entry lives as long as its schema, and, where equal copies should share the work, by
 * canonical content (`stableKey`) in a map of bounded size that drops the least recently used entry.
 * Schemas are treated as immutable once seen.
 *
 * @internal
 */

/** `derive` memoized per object argument; any other argument (a boolean schema) is derived on every call. */
export const byIdentity = <K, A>(derive: (key: K) => A): (key: K) => A => {
  const memo = new WeakMap<object, A>()
  return (key) => {
    if (typeof key !== "object" || key === null) return derive(key)
    let a = memo.get(key)
    if (a === undefined) memo.set(key, a = derive(key))
    return a
  }
}

/** `derive` memoized per pair of objects (a `WeakMap` of `WeakMap`s); a pair with a non-object is derived on every call. */
export const byPair = <K, A>(derive: (a: K, b: K) => A): (a: K, b: K) => A => {
  const memo = new WeakMap<object, WeakMap<object, A>>()
  return (a, b) => {
    if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return derive(a, b)
    let inner = memo.get(a)
    if (inner === undefined) memo.set(a, inner = new WeakMap())
    let v = inner.get(b)
    if (v === undefined) inner.set(b, v = derive(a, b))
    return v
  }
}

/** The most characters an `Lru`'s keys hold in all by default: 32 Mi (its keys are canonical schema texts). */
export const defaultMaxChars = 32 * 1024 * 1024

/**
 * A map of at most `limit` entries whose keys (canonical schema texts) hold at most `maxChars` characters
 * in all, so a few huge schemas cannot hold gigabytes where a count alone would let them: past either bound
 * the least recently used entries are dropped, through `onEvict`. The newest entry always stays.
 */
export class Lru<V> {
  private readonly map = new Map<string, V>()
  private chars = 0
  constructor(readonly limit: number, private readonly onEvict?: (value: V) => void, readonly maxChars = defaultMaxChars) {}

  /** The value under `key`, now the most recently used. */
  get(key: string): V | undefined {
    const v = this.map.get(key)
    if (v !== undefined) {
      this.map.delete(key)
      this.map.set(key, v)
    }
    return v
  }

  /** Stores `value` under `key`, then drops the least recently used entries while a bound is passed. */
  set(key: string, value: V): void {
    if (this.map.delete(key)) this.chars -= key.length
    this.map.set(key, value)
    this.chars += key.length
    while (this.map.size > 1 && (this.map.size > this.limit || this.chars > this.maxChars)) {
      const [oldest, evicted] = this.map.entries().next().value!
      this.map.delete(oldest)
      this.chars -= oldest.length
      this.onEvict?.(evicted)
    }
  }
}
