import { Column, CreateDateColumn, UpdateDateColumn, type ColumnOptions, type ValueTransformer } from 'typeorm';

/** Millisecond timestamps that mean the same on SQLite and MySQL/MariaDB. */
export const DateTimeColumn = (options: ColumnOptions = {}) => Column({ type: 'datetime', precision: 3, ...options });
export const CreatedAtColumn = () => CreateDateColumn({ name: 'created_at', type: 'datetime', precision: 3 });
export const UpdatedAtColumn = () => UpdateDateColumn({ name: 'updated_at', type: 'datetime', precision: 3 });

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
