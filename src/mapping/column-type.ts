import type { Lazy } from "./lazy.js";

/** The storage kinds a mapped column can have. Each engine maps them to its own SQL types and driver values. */
export type ColumnKind = "int32" | "int64" | "float" | "decimal" | "string" | "boolean" | "date" | "blob" | "lazy";

/** A class that Tenon can map: it has a no-argument constructor. */
export type EntityClass<T = object> = abstract new () => T;

/** A concrete entity class. */
export type ConcreteEntityClass<T = object> = new () => T;

declare const valueTypeBrand: unique symbol;

/** The smallest and largest value an integer column type holds. */
export interface IntegerRange<N extends number | bigint> {
  /** The smallest value. */
  readonly min: N;
  /** The largest value. */
  readonly max: N;
}

/**
 * The values of an `int32` column, and so of every primary key, version and reference:
 * the one home of this range, which JSON decoding, the filter body, key drawing and the API schemas read.
 */
export const int32Range: IntegerRange<number> = Object.freeze({ min: -2147483648, max: 2147483647 });

/** The values of an `int64` column. */
export const int64Range: IntegerRange<bigint> = Object.freeze({ min: -(2n ** 63n), max: 2n ** 63n - 1n });

/**
 * The declared type of a mapped column. `V` is the TypeScript type of the field; the field decorators
 * require the field to have exactly that type, so `@Column("Name", Type.int32) name: string` does not compile.
 */
export class ColumnType<V> {
  /** Phantom member carrying the field's value type; never set at run time. */
  declare readonly [valueTypeBrand]: (value: V) => V;
  /** The storage kind. */
  readonly kind: ColumnKind;
  /** Whether the column accepts SQL NULL (the field type then includes `null`). */
  readonly nullable: boolean;
  /** Maximum length of a string column, when declared. */
  readonly size: number | undefined;
  /** Total digits of a decimal column. */
  readonly precision: number | undefined;
  /** Digits after the point of a decimal column. */
  readonly scale: number | undefined;
  /** The referenced entity of a `lazy` column. */
  readonly target: (() => EntityClass) | undefined;

  /** @internal use the `Type` constants. */
  constructor(
    kind: ColumnKind,
    nullable: boolean,
    options: { size?: number; precision?: number; scale?: number; target?: () => EntityClass } = {},
  ) {
    this.kind = kind;
    this.nullable = nullable;
    this.size = options.size;
    this.precision = options.precision;
    this.scale = options.scale;
    this.target = options.target;
  }

  /** The same type accepting `null`. */
  get orNull(): ColumnType<V | null> {
    return new ColumnType<V | null>(this.kind, true, {
      size: this.size,
      precision: this.precision,
      scale: this.scale,
      target: this.target,
    });
  }
}

/** The column types a field decorator can declare. */
export const Type = {
  /** A 32-bit signed integer held as a `number` (also the type of primary keys and versions); its values: `int32Range`. */
  int32: new ColumnType<number>("int32", false),
  /** A 64-bit signed integer held as a `bigint`, so values beyond 2^53 stay exact; its values: `int64Range`. */
  int64: new ColumnType<bigint>("int64", false),
  /** A double-precision floating-point number. */
  float: new ColumnType<number>("float", false),
  /** An exact decimal held as its canonical text (`"12.50"`), so no digit is lost. */
  decimal(precision = 18, scale = 4): ColumnType<string> {
    return new ColumnType<string>("decimal", false, { precision, scale });
  },
  /** Text of any length. */
  string: new ColumnType<string>("string", false),
  /** Text with a declared maximum length (reported by the metadata). */
  varchar(size: number): ColumnType<string> {
    return new ColumnType<string>("string", false, { size });
  },
  /** A boolean. */
  boolean: new ColumnType<boolean>("boolean", false),
  /** A point in time, held as a `Date` and stored in UTC. */
  date: new ColumnType<Date>("date", false),
  /** Binary data. */
  blob: new ColumnType<Uint8Array>("blob", false),
  /**
   * A foreign key to `target`, held as a `Lazy<T>` that loads the referenced entity on first access.
   * The key itself may be null; use `@Required` to demand one.
   */
  lazy<T extends object>(target: () => EntityClass<T>): ColumnType<Lazy<T>> {
    return new ColumnType<Lazy<T>>("lazy", true, { target });
  },
} as const;
