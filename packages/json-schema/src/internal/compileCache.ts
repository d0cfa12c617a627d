/**
 * The one way json-schema caches what it derives from schemas (compiled validators, `prepare`'s entries,
 * prover verdicts, widened schemas): by object identity in a `WeakMap`, so an entry lives as long as its
 * schema, and, where equal copies should share the work, by canonical content (`stableKey`) in a map of
 * bounded size that drops the least recently used entry. Schemas are treated as immutable once seen.
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

/** A map of at most `limit` entries: a full map drops its least recently used one, through `onEvict`. */
export class Lru<K, V> {
  private readonly map = new Map<K, V>()
  constructor(readonly limit: number, private readonly onEvict?: (value: V) => void) {}

  /** The value under `key`, now the most recently used. */
  get(key: K): V | undefined {
    const v = this.map.get(key)
    if (v !== undefined) {
      this.map.delete(key)
      this.map.set(key, v)
    }
    return v
  }

  /** Stores `value` under `key`, evicting the least recently used entry when full. */
  set(key: K, value: V): void {
    this.map.delete(key)
    if (this.map.size > 0 && this.map.size >= this.limit) {
      const [oldest, evicted] = this.map.entries().next().value!
      this.map.delete(oldest)
      this.onEvict?.(evicted)
    }
    this.map.set(key, value)
  }
}
