/**
 * Exact decimal arithmetic on JSON numbers, read as JSON writes them (a double's shortest decimal form):
 * `19.99` is a multiple of `0.01` and `5e21` of `5`, which floating-point division gets wrong.
 *
 * @internal
 */

/** An exact rational `[numerator, denominator]` from a finite double's shortest decimal form. */
export const rational = (x: number): readonly [bigint, bigint] => {
  const [mant, exp = "0"] = x.toString().split("e")
  const [int, frac = ""] = mant!.split(".")
  let n = BigInt(int! + frac)
  let d = 10n ** BigInt(frac.length)
  const e = Number(exp)
  if (e >= 0) n *= 10n ** BigInt(e)
  else d *= 10n ** BigInt(-e)
  return [n, d]
}

/** Whether `x` is a whole multiple of `m` (both finite, `m > 0`), exactly, in the decimals the two denote. */
export const isMultipleOf = (x: number, m: number): boolean => {
  if (!Number.isFinite(x) || !Number.isFinite(m) || m === 0) return false
  // whole numbers within ±2^53 divide exactly in doubles: no BigInt on the common path
  if (Number.isSafeInteger(x) && Number.isSafeInteger(m)) return x % m === 0
  const [xn, xd] = rational(x)
  const [mn, md] = rational(m)
  return (xn * md) % (xd * mn) === 0n
}
