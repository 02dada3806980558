import { FaultMessages } from '@esign/contract';
import { faultOf } from './faults';

const fsError = (code: string) => Object.assign(new Error(`${code}: open '/data/files/x'`), { code, syscall: 'open' });

describe('faultOf', () => {
  it('answers 503 with a message for a full disk, a read-only folder and a database gone, through causes', () => {
    expect(faultOf(fsError('ENOSPC'))?.message).toBe(FaultMessages.storageFull);
    expect(faultOf(fsError('EROFS'))?.message).toBe(FaultMessages.storageReadOnly);
    expect(faultOf(fsError('EACCES'))?.message).toBe(FaultMessages.storageReadOnly);
    const typeorm = Object.assign(new Error('query failed'), {
      driverError: Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY' }),
    });
    expect(faultOf(typeorm)?.message).toBe(FaultMessages.databaseReadOnly);
    const gone = new Error('x', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    const fault = faultOf(gone)!;
    expect(fault.message).toBe(FaultMessages.databaseUnavailable);
    expect(fault.status).toBe(503);
    expect(fault.headers['Retry-After']).toBe('30');
    expect(faultOf(new Error("Can't add new command when connection is in closed state"))?.message).toBe(
      FaultMessages.databaseUnavailable,
    );
  });

  it('leaves every other error alone (a 500 stays a 500)', () => {
    expect(faultOf(new Error('boom'))).toBeNull();
    expect(faultOf(Object.assign(new Error('no'), { code: 'EACCES' }))).toBeNull(); // not a file-system call
    expect(faultOf(Object.assign(new Error('dup'), { code: 'ER_DUP_ENTRY' }))).toBeNull();
    expect(faultOf(undefined)).toBeNull();
  });
});
