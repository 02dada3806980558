import { Column, type ColumnOptions, type ValueTransformer } from 'typeorm';

/**
 * Millisecond timestamps that mean the same on SQLite, MySQL 8 and MariaDB. The services set them from the Clock (so
 * tests can move time); no database default, because MySQL 8 refuses CURRENT_TIMESTAMP(6) on a datetime(3).
 */
export const DateTimeColumn = (options: ColumnOptions = {}) => Column({ type: 'datetime', precision: 3, ...options });
export const CreatedAtColumn = () => DateTimeColumn({ name: 'created_at' });
export const UpdatedAtColumn = () => DateTimeColumn({ name: 'updated_at' });

/** A short list stored as comma-separated text (values never contain commas). */
export const commaList: ValueTransformer = {
  to: (value: string[] | undefined) => (value === undefined ? undefined : value.join(',')),
  from: (value: string | null) => (value ? value.split(',').filter(Boolean) : []),
};

/** MySQL returns DOUBLE as a number but some drivers return strings; always hand a number to the service. */
export const numeric: ValueTransformer = {
  to: (value: number | undefined) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};

/** A JSON value, as stored in a JSON column. */
export type JsonValue = string | number | boolean | null | object;

/** Small JSON values (well under 64 KB: MySQL's TEXT); bigger blobs go to document storage by key. */
export const JsonColumn = (options: ColumnOptions = {}) => Column({ type: 'simple-json', ...options });

/** Numbers up to 2^53 kept in BIGINT; mysql2 returns BIGINT as text, so read them back as numbers. */
export const bigintNumber: ValueTransformer = {
  to: (value: number | undefined) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};
