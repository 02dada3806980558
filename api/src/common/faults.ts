import { FAULT_RETRY_AFTER_SECONDS, FaultMessages } from '@esign/contract';
import { AppError } from './app-error';

/** File-system errors of a full disk, and of a data folder that cannot be written (read-only mount, permissions). */
const DISK_FULL = new Set(['ENOSPC', 'EDQUOT']);
const READ_ONLY = new Set(['EROFS', 'EACCES', 'EPERM']);
/** MariaDB/MySQL (mysql2) and socket errors of a database server that went away or refuses connections. */
const DATABASE_GONE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_SERVER_SHUTDOWN',
  'ER_CON_COUNT_ERROR',
  'ER_TOO_MANY_USER_CONNECTIONS',
  'ER_QUERY_INTERRUPTED',
  'ER_CONNECTION_KILLED',
]);
/** The database's own storage full or read-only (SQLite's file, MariaDB's disk or read_only). */
const DATABASE_CANNOT_WRITE =
  /^(SQLITE_(FULL|READONLY|IOERR|CANTOPEN|CORRUPT|NOTADB)|ER_(RECORD_FILE_FULL|DISK_FULL|OPTION_PREVENTS_STATEMENT))/;
const CLOSED_CONNECTION = /connection is in closed state|Connection lost|closed connection|Pool is closed/i;

interface Coded {
  code?: unknown;
  errno?: unknown;
  syscall?: unknown;
  message?: unknown;
  driverError?: unknown;
  cause?: unknown;
}

/**
 * The 503 an infrastructure fault is answered with (issue 24: a full disk, a read-only data folder, a database that
 * went away), or null for any other error. The causes are searched (TypeORM wraps the driver's error in driverError;
 * others in cause). Nothing of the call was kept: documents are stored before the rows that name them, and the rows
 * are written in transactions, so a fault leaves at most a file no row refers to.
 */
export function faultOf(exception: unknown): AppError | null {
  const seen = new Set<unknown>();
  let err = exception as Coded | undefined;
  while (err && typeof err === 'object' && !seen.has(err)) {
    seen.add(err);
    const code = typeof err.code === 'string' ? err.code : '';
    const fileSystem = typeof err.syscall === 'string';
    if (DISK_FULL.has(code)) return unavailable(FaultMessages.storageFull);
    if (fileSystem && READ_ONLY.has(code)) return unavailable(FaultMessages.storageReadOnly);
    if (DATABASE_CANNOT_WRITE.test(code)) return unavailable(FaultMessages.databaseReadOnly);
    if (DATABASE_GONE.has(code)) return unavailable(FaultMessages.databaseUnavailable);
    if (typeof err.message === 'string' && CLOSED_CONNECTION.test(err.message))
      return unavailable(FaultMessages.databaseUnavailable);
    err = (err.driverError ?? err.cause) as Coded | undefined;
  }
  return null;
}

const unavailable = (message: string) =>
  new AppError('UNAVAILABLE', message, { 'Retry-After': String(FAULT_RETRY_AFTER_SECONDS) });
