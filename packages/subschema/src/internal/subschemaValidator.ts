/**
 * The prover's validators. They compile the same schemas with the same Ajv settings as the executor's
 * (`Validator.compile`), except for Ajv's optimizing pass over the generated code: it does not change what
 * a validator accepts, and it doubles the compile time of a validator the prover asks about a few
 * witnesses (half a check's time went to compiling). Where the optimized code fails when run, the
 * executor's validator runs this unoptimized code instead (see `Validator`), so the two agree there too.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Validator from "@toolgate/json-schema/Validator"

/** A validator instance of the prover's, with its own compile cache. */
export const isolated = (): Either.Either<Validator.Validator, Validator.SchemaError> => Validator.make({ optimize: false, ownMetaCheck: true })

/** The prover's shared instance (without remotes it cannot fail to be made). */
export const shared: Validator.Validator = Either.getOrThrow(isolated())
