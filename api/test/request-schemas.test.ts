import {
  checkInput,
  clientReferenceSchema,
  placementsSchema,
  refIdOf,
  signingMethodOf,
  RequestMessages,
  SIGNATURE_TYPES,
  uploadSchema,
} from '@esign/contract';
import { AppError } from '../src/common/app-error';
import { validateOptions, validateRecipients } from '../src/modules/requests/recipients';
import { clientReferenceOf, toRefId } from '../src/modules/requests/requests.service';
import { parseMethod } from '../src/modules/requests/rules';

/**
 * The requests module still parses /v1/upload's fields itself (RequestsService.upload: validateRecipients,
 * validateOptions, toRefId, clientReferenceOf), after the contract's uploadSchema has checked them before the
 * controller. Both must agree on every input: the same value, or the same first problem. Thousands of bodies are
 * made from valid and invalid values of each field (seeded, so every run sees the same ones).
 */

/** What RequestsService.upload makes of the fields, in its order (the organisation allows every signature type). */
function serviceReading(body: Record<string, unknown>) {
  try {
    const recipients = validateRecipients(body.data, SIGNATURE_TYPES);
    const options = validateOptions(body);
    const refId = body.refId === undefined || body.refId === '' ? null : toRefId(body.refId);
    if (body.refId !== undefined && body.refId !== '' && refId === null)
      throw new AppError('NOT_FOUND', RequestMessages.requestNotFound);
    const clientReference = clientReferenceOf(body.clientReference);
    return { ok: true as const, value: { recipients, ...options, refId, clientReference } };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { ok: false as const, problem: { code: err.code, message: err.message } };
  }
}

const seeded = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};

const RECIPIENT_VALUES: Record<string, unknown[]> = {
  name: ['Asha Rao', '  Asha   Rao ', '', '   ', 'x'.repeat(201), 42, undefined, null],
  email: ['asha@example.in', ' asha@example.in ', 'asha@', 'not an email', '', 7, undefined],
  phoneNumber: [
    '9876543210',
    '+91 98765 43210',
    '09876543210',
    9876543210,
    '5123456789',
    '+1 212 555 0100',
    '123',
    '',
    undefined,
    null,
  ],
  recipient_type: [undefined, 'Needs to sign', 'Receives a copy', 'Someone', '', 3],
  observer: [false, true, 'true', 'false', '', 'yes', null, undefined],
  signature_type: ['e-Signature', 'aadhaar', 'DSC', 'Fax', '', null, 5, undefined],
};
const FIELD_VALUES: Record<string, unknown[]> = {
  checkOrder: [undefined, true, false, 'true', 'false', '1', '0', 1, 0, '', null, 'maybe', 2],
  otpRequired: [undefined, true, 'false', 'nope'],
  reminder: [undefined, false, true, 'true', 'x'],
  reminder_duration: [undefined, '12', 24, '48', '36', '', null, 'abc'],
  refId: [undefined, '', '1234567890', 1234567890, 'abc', '1234567890123456', -1],
  clientReference: [undefined, '', null, 'batch-1', '  ', 'x'.repeat(101), 5],
};

function pick<T>(random: () => number, values: T[]): T {
  return values[Math.floor(random() * values.length)];
}

function makeRecipient(random: () => number): unknown {
  if (random() < 0.03) return pick(random, ['text', 5, null, ['a']]);
  const r: Record<string, unknown> = {};
  for (const [field, values] of Object.entries(RECIPIENT_VALUES)) {
    // Mostly valid values, so that the checks after the first are reached too.
    const value = random() < 0.9 ? values[0] : pick(random, values);
    if (value !== undefined) r[field] = value;
  }
  return r;
}

function makeBody(random: () => number): Record<string, unknown> {
  const count = pick(random, [1, 1, 2, 3, 6, 7, 0]);
  const list = Array.from({ length: count }, () => makeRecipient(random));
  const body: Record<string, unknown> = {};
  const shape = random();
  body.data = shape < 0.6 ? JSON.stringify(list) : shape < 0.9 ? list : pick(random, ['[oops', '{}', 5, undefined]);
  for (const [field, values] of Object.entries(FIELD_VALUES)) {
    const value = random() < 0.7 ? undefined : pick(random, values);
    if (value !== undefined) body[field] = value;
  }
  return body;
}

const contractReading = (body: Record<string, unknown>) => {
  const result = checkInput(uploadSchema, body);
  if (!result.ok)
    return { ok: false as const, problem: { code: result.problem.code, message: result.problem.message } };
  const v = result.value;
  return {
    ok: true as const,
    value: {
      recipients: v.recipients,
      checkOrder: v.checkOrder,
      otpRequired: v.otpRequired,
      reminder: v.reminder,
      reminderDuration: v.reminderDuration,
      refId: v.refId,
      clientReference: v.clientReference,
    },
  };
};

describe("the contract's request schemas read /v1/upload's fields as RequestsService does", () => {
  it('agrees with the service on 5000 bodies: the same recipients and options, or the same first problem', () => {
    const random = seeded(20);
    const disagreements: unknown[] = [];
    let refused = 0;
    let accepted = 0;
    for (let i = 0; i < 5000; i++) {
      const body = makeBody(random);
      const service = serviceReading(body);
      const contract = contractReading(body);
      if (service.ok) accepted++;
      else refused++;
      if (JSON.stringify(service) !== JSON.stringify(contract)) disagreements.push({ body, service, contract });
    }
    expect(disagreements.slice(0, 5)).toEqual([]);
    // Both sides of the checks were reached.
    expect(accepted).toBeGreaterThan(500);
    expect(refused).toBeGreaterThan(1000);
  });

  it('reads Ref IDs and client references as toRefId and clientReferenceOf', () => {
    for (const value of [
      '1',
      ' 42 ',
      '123456789012345',
      '1234567890123456',
      'abc',
      '',
      -1,
      7,
      1.5,
      null,
      undefined,
      {},
    ])
      expect({ value, contract: refIdOf(value) }).toEqual({ value, contract: toRefId(value) });
    for (const value of [undefined, null, '', 'ref-1', '  padded ', '   ', 'x'.repeat(100), 'x'.repeat(101), 5, {}]) {
      const contract = checkInput(clientReferenceSchema, value);
      let service: unknown;
      try {
        service = { ok: true, value: clientReferenceOf(value) };
      } catch (err) {
        service = { ok: false, message: (err as Error).message };
      }
      expect({
        value,
        contract: contract.ok ? { ok: true, value: contract.value } : { ok: false, message: contract.problem.message },
      }).toEqual({
        value,
        contract: service,
      });
    }
  });

  it('refuses the placements of /v1/save and /v1/process as the service does', () => {
    const invalid = 'Each entry of data needs refId and order of a recipient of the request.';
    for (const data of [
      undefined,
      null,
      '',
      '[',
      '[]',
      [],
      5,
      'null',
      [null],
      [[1]],
      [{ order: 1 }],
      [{ refId: 'x', order: 1 }],
      [{ refId: 1 }],
      [{ refId: 1, order: 'a' }],
    ]) {
      const result = checkInput(placementsSchema, data);
      expect({ data, result: result.ok ? 'accepted' : result.problem.message }).toEqual({ data, result: invalid });
    }
    for (const data of [
      { refId: '12', order: '1' },
      JSON.stringify([{ refId: 12, order: 1, pageNo: [1], apply_all: false, rectangle: '0,0,150,50' }]),
      [{ refId: 12, order: null }],
    ]) {
      const result = checkInput(placementsSchema, data);
      expect({ data, ok: result.ok }).toEqual({ data, ok: true });
    }
  });

  it('reads the signing method of /v1/init as rules.parseMethod', () => {
    for (const value of ['0', '1', '2', ' 2 ', '3', '1.0', '', 'x', 0, 1, 2, 3, -1, 1.5, null, undefined, [], {}])
      expect({ value, contract: signingMethodOf(value) }).toEqual({ value, contract: parseMethod(value) });
  });
});
