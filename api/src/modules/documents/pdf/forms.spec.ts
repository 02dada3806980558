import { spawnSync } from 'node:child_process';
import { Messages, type TemplateAnnotation } from '@esign/contract';
import { PDF, type PdfBool } from '@libpdf/core';
import { fixturePath, readFixture } from '../../../../test/support/fixtures';
import { AppError } from '../../../common/app-error';
import { fillFormFields, readFormFields, signatureBoxesFromAnnotation, validateAnnotation } from './forms';
import { inspectPdf } from './inspect';

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const outcome = await promise.then(
    () => new Error('expected a refusal'),
    (e: unknown) => e,
  );
  expect(outcome).toBeInstanceOf(AppError);
  return outcome as AppError;
}

function thrown(run: () => unknown): AppError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('expected an AppError');
}

const entriesNamed = (annotation: TemplateAnnotation, name: string) =>
  annotation.annotations.filter((a) => a.formFieldName === name);

interface Widget {
  name: string;
  page: number;
  type: string;
  bbox: number[];
}

/** qpdf's reading of the form: the widgets of the four template field kinds, an independent reader to compare with. */
function qpdfWidgets(name: string): Widget[] {
  const run = spawnSync('qpdf', ['--json=1', '--json-key=acroform', '--json-key=objects', fixturePath('pdfs', name)], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (run.error) throw run.error;
  const json = JSON.parse(run.stdout) as {
    acroform: {
      fields: {
        fullname: string;
        fieldtype: string;
        ischeckbox: boolean;
        isradiobutton: boolean;
        fieldflags: number;
        pageposfrom1: number;
        annotation: { object: string };
      }[];
    };
    objects: Record<string, { '/Rect'?: number[] }>;
  };
  const widgets: Widget[] = [];
  for (const field of json.acroform.fields) {
    const type =
      field.fieldtype === '/Tx'
        ? 'text-field'
        : field.fieldtype === '/Sig'
          ? 'signature-field'
          : field.ischeckbox
            ? 'checkbox-field'
            : field.isradiobutton
              ? 'radiobutton-field'
              : // A choice field with the Combo flag (bit 18) is a dropdown; a list box is left out.
                field.fieldtype === '/Ch' && (field.fieldflags & (1 << 17)) !== 0
                ? 'dropdown-field'
                : undefined;
    if (!type) continue;
    const [x1, y1, x2, y2] = json.objects[field.annotation.object]['/Rect'] as number[];
    const bbox = [Math.min(x1, x2), Math.min(y1, y2), Math.abs(x2 - x1), Math.abs(y2 - y1)];
    widgets.push({ name: field.fullname, page: field.pageposfrom1 - 1, type, bbox });
  }
  return sortWidgets(widgets);
}

const ourWidgets = (annotation: TemplateAnnotation): Widget[] =>
  sortWidgets(
    annotation.annotations.map((a) => ({
      name: a.formFieldName,
      page: a.pageIndex,
      type: a.customData.type,
      bbox: a.bbox,
    })),
  );

const sortWidgets = (widgets: Widget[]) =>
  widgets.sort(
    (a, b) => a.name.localeCompare(b.name) || a.page - b.page || a.bbox[0] - b.bbox[0] || a.bbox[1] - b.bbox[1],
  );

/** Same widgets; rectangles equal to 0.001 pt (the annotation rounds to thousandths). */
function expectSameWidgets(actual: Widget[], expected: Widget[]): void {
  expect(actual.map(({ name, page, type }) => ({ name, page, type }))).toEqual(
    expected.map(({ name, page, type }) => ({ name, page, type })),
  );
  actual.forEach((widget, i) =>
    widget.bbox.forEach((value, k) => expect(Math.abs(value - expected[i].bbox[k])).toBeLessThanOrEqual(0.0005 + 1e-9)),
  );
}

describe('readFormFields', () => {
  it.each(['sample_form.pdf', 'fancy_fields.pdf', 'prefilled_f1040.pdf', 'with_signature.pdf'])(
    '%s: every widget, its page, type and rectangle as qpdf reads them',
    async (name) => {
      const expected = qpdfWidgets(name);
      expect(expected.length).toBeGreaterThan(0);
      expectSameWidgets(ourWidgets(await readFormFields(readFixture('pdfs', name))), expected);
    },
  );

  it('sample_form.pdf: values of text fields, checkboxes and the radio group', async () => {
    const form = await readFormFields(readFixture('pdfs', 'sample_form.pdf'));
    expect(form.formFieldValues).toMatchObject({
      Name_Last: 'Bar',
      Name_First: 'Foo',
      STATE: 'WA',
      ZIP: '19283',
      Birthdate: '08/29/2020',
      'HIGH SCHOOL DIPLOMA': true,
      'TRADE CERTIFICATE': false,
      Sex: 'MALE',
    });
    expect(entriesNamed(form, 'EMPLOYEE SIGNATURE')).toEqual([
      {
        formFieldName: 'EMPLOYEE SIGNATURE',
        bbox: [338.593, 83.52, 240.444, 18.72],
        pageIndex: 0,
        customData: { type: 'signature-field' },
      },
    ]);
    expect('EMPLOYEE SIGNATURE' in form.formFieldValues).toBe(false);
    // The push button is not one of the template field types.
    expect(entriesNamed(form, 'Print')).toEqual([]);
  });

  it('fancy_fields.pdf: a radio group gives one entry per button, each with its option', async () => {
    const form = await readFormFields(readFixture('pdfs', 'fancy_fields.pdf'));
    const radios = entriesNamed(form, 'Historical Figures 🐺');
    expect(radios.map((r) => r.customData)).toEqual(
      ['Marcus Aurelius 🏛️', 'Ada Lovelace 💻', 'Marie Curie ☢️', 'Alexander Hamilton 🇺🇸'].map((option) => ({
        type: 'radiobutton-field',
        option,
      })),
    );
    expect(form.formFieldValues['Historical Figures 🐺']).toBe('Marcus Aurelius 🏛️');
    expect(form.formFieldValues['First Name 🚀']).toBe('Cedar');
    expect(form.formFieldValues['Are You A Fairy? 🌿']).toBe(true);
    expect(form.formFieldValues['Is Your Power Level Over 9000? 💪']).toBe(false);
  });

  it('prefilled_f1040.pdf: 236 fields (242 widgets) on two pages, the prefilled values included', async () => {
    const form = await readFormFields(readFixture('pdfs', 'prefilled_f1040.pdf'));
    expect(form.annotations).toHaveLength(242);
    expect(new Set(form.annotations.map((a) => a.formFieldName)).size).toBe(236);
    expect(Object.keys(form.formFieldValues)).toHaveLength(236);
    expect(new Set(form.annotations.map((a) => a.pageIndex))).toEqual(new Set([0, 1]));
    expect(form.formFieldValues['topmostSubform[0].Page2[0].p2-t124[0]']).toBe('foobar');
    expect(form.formFieldValues['topmostSubform[0].Page2[0].c1_01_0_[0]']).toBe(true);
    expect(form.formFieldValues['topmostSubform[0].Page1[0].p1-t4[0]']).toBe('');
  });

  it('with_signature.pdf: its empty signature field', async () => {
    const form = await readFormFields(readFixture('pdfs', 'with_signature.pdf'));
    expect(form).toEqual({
      annotations: [
        {
          formFieldName: 'Signature1',
          bbox: [149.236, 533.79, 337.461, 119.447],
          pageIndex: 0,
          customData: { type: 'signature-field' },
        },
      ],
      formFieldValues: {},
    });
  });

  it('a document without a form gives an empty annotation; a damaged one a 4xx', async () => {
    expect(await readFormFields(readFixture('pdfs', 'american_flag.pdf'))).toEqual({
      annotations: [],
      formFieldValues: {},
    });
    const error = await rejection(readFormFields(readFixture('pdfs', 'with_invalid_objects.pdf')));
    expect([error.status, error.message]).toEqual([422, Messages.pdfDamaged]);
  });
});

describe('fillFormFields', () => {
  it('fills text, checkbox and radio values and keeps every field (round trip through readFormFields)', async () => {
    const original = readFixture('pdfs', 'sample_form.pdf');
    const before = await readFormFields(original);
    const filled = await fillFormFields(original, {
      STATE: 'CA',
      Name_Last: 'Lovelace',
      'HIGH SCHOOL DIPLOMA': false,
      'TRADE CERTIFICATE': true,
      Sex: 'FEMALE',
    });
    const after = await readFormFields(filled);
    expect(after.annotations).toEqual(before.annotations);
    expect(after.formFieldValues).toEqual({
      ...before.formFieldValues,
      STATE: 'CA',
      Name_Last: 'Lovelace',
      'HIGH SCHOOL DIPLOMA': false,
      'TRADE CERTIFICATE': true,
      Sex: 'FEMALE',
    });
    // Not flattened: the document still has its form, push button and all.
    const doc = await PDF.load(filled);
    expect(doc.getForm()?.getFields()).toHaveLength(29);
    // The result is a document the upload check accepts as it is.
    const inspected = await inspectPdf({ bytes: filled, filename: 'filled.pdf', mimeType: 'application/pdf' });
    expect(inspected.repaired).toBe(false);
  });

  it('draws the new text into the field, as poppler shows it', async () => {
    const filled = await fillFormFields(readFixture('pdfs', 'sample_form.pdf'), { City: 'Zanzibar Quay' });
    const run = spawnSync('pdftotext', ['-layout', '-', '-'], { input: filled, encoding: 'utf8' });
    expect(run.stdout).toContain('Zanzibar Quay');
    expect(run.stdout).not.toContain('Timbuktu');
  });

  it('stores text Helvetica cannot draw and asks the viewer to draw it', async () => {
    const filled = await fillFormFields(readFixture('pdfs', 'sample_form.pdf'), { Name_First: 'नमस्ते' });
    expect((await readFormFields(filled)).formFieldValues.Name_First).toBe('नमस्ते');
    const doc = await PDF.load(filled);
    const needAppearances = doc.getForm()?.acroForm().getDict().get('NeedAppearances') as PdfBool | undefined;
    expect(needAppearances?.value.toString()).toBe('true');
  });

  it('fancy_fields.pdf: reads the dropdown with its options and fills it with one of them (issue 21)', async () => {
    const name = 'Choose A Gundam 🤖';
    const form = await readFormFields(readFixture('pdfs', 'fancy_fields.pdf'));
    expect(entriesNamed(form, name).map((e) => e.customData)[0]).toEqual({
      type: 'dropdown-field',
      options: ['Exia', 'Kyrios', 'Virtue', 'Dynames'],
    });
    expect(form.formFieldValues[name]).toBe('Dynames');
    const filled = await fillFormFields(readFixture('pdfs', 'fancy_fields.pdf'), { [name]: 'Exia' });
    expect((await readFormFields(filled)).formFieldValues[name]).toBe('Exia');
    const error = await rejection(fillFormFields(readFixture('pdfs', 'fancy_fields.pdf'), { [name]: 'Zaku' }));
    expect(error.status).toBe(400);
    expect(error.message).toBe(
      `The form field "${name}" cannot take this value: it takes one of "Exia", "Kyrios", "Virtue", "Dynames".`,
    );
    expect(() => validateAnnotation({ annotations: form.annotations, formFieldValues: { [name]: 'Zaku' } }, 1)).toThrow(
      `the dropdown "${name}" has no option "Zaku"`,
    );
  });

  it('clears a radio group with an empty value', async () => {
    const filled = await fillFormFields(readFixture('pdfs', 'fancy_fields.pdf'), { 'Historical Figures 🐺': '' });
    expect((await readFormFields(filled)).formFieldValues['Historical Figures 🐺']).toBe('');
  });

  it('names the field when the name is unknown or the value does not fit', async () => {
    const form = readFixture('pdfs', 'sample_form.pdf');
    const refusal = async (values: Record<string, string | boolean>) => {
      const error = await rejection(fillFormFields(form, values));
      expect(error.status).toBe(400);
      return error.message;
    };
    expect(await refusal({ Nope: 'x' })).toBe('The form has no field named "Nope".');
    expect(await refusal({ STATE: true })).toBe(
      'The form field "STATE" cannot take this value: it is a text field and takes text.',
    );
    expect(await refusal({ PHD: 'yes' })).toBe(
      'The form field "PHD" cannot take this value: it is a checkbox and takes true or false.',
    );
    expect(await refusal({ Sex: 'OTHER' })).toBe(
      'The form field "Sex" cannot take this value: it takes one of "MALE", "FEMALE".',
    );
    expect(await refusal({ 'EMPLOYEE SIGNATURE': 'x' })).toBe(
      'The form field "EMPLOYEE SIGNATURE" cannot take this value: it is a signature-field and cannot be filled here.',
    );
    expect(await refusal({ Print: 'x' })).toContain('"Print"');
  });

  it('refuses to rewrite a signed document', async () => {
    const error = await rejection(fillFormFields(readFixture('pdfs', 'already_signed.pdf'), {}));
    expect([error.status, error.message]).toEqual([422, Messages.pdfSignedCannotChange]);
  });

  it('removes Reader usage rights, which a rewrite would break', async () => {
    const original = readFixture('pdfs', 'sample_form.pdf');
    expect(original.includes('/UR3')).toBe(true);
    const filled = await fillFormFields(original, { STATE: 'NY' });
    const doc = await PDF.load(filled);
    expect(doc.getCatalog().get('Perms')).toBeUndefined();
  });
});

describe('signatureBoxesFromAnnotation', () => {
  it("gives the template's signature fields as boxes, in order, and their pages", async () => {
    const bytes = readFixture('pdfs', 'with_signature.pdf');
    const { geometry } = await inspectPdf({ bytes, filename: 't.pdf', mimeType: 'application/pdf' });
    const fields = signatureBoxesFromAnnotation(await readFormFields(bytes), geometry);
    expect([...fields]).toEqual([
      { formFieldName: 'Signature1', page: 1, x: 149.236, y: 533.79, width: 337.461, height: 119.447 },
    ]);
    expect(fields.pageNo).toEqual([1]);
  });

  it('moves a field sticking out of the visible area inside it, and refuses a page the document lacks', () => {
    const geometry = [
      { pages: '1-2', mediaBox: [0, 0, 612, 792], cropBox: [10, 20, 500, 700], rotation: 0 },
    ] as Parameters<typeof signatureBoxesFromAnnotation>[1];
    const annotation = (pageIndex: number): TemplateAnnotation => ({
      annotations: [
        { formFieldName: 'Sig', bbox: [480, 0, 100, 30], pageIndex, customData: { type: 'signature-field' } },
        { formFieldName: 'Name', bbox: [0, 0, 10, 10], pageIndex, customData: { type: 'text-field' } },
      ],
      formFieldValues: {},
    });
    const fields = signatureBoxesFromAnnotation(annotation(1), geometry);
    expect([...fields]).toEqual([{ formFieldName: 'Sig', page: 2, x: 410, y: 20, width: 100, height: 30 }]);
    expect(fields.pageNo).toEqual([2]);
    expect(thrown(() => signatureBoxesFromAnnotation(annotation(2), geometry)).status).toBe(400);
  });
});

describe('validateAnnotation', () => {
  it('accepts what readFormFields produces', async () => {
    for (const name of ['sample_form.pdf', 'fancy_fields.pdf', 'prefilled_f1040.pdf', 'with_signature.pdf']) {
      const bytes = readFixture('pdfs', name);
      const annotation = await readFormFields(bytes);
      const { totalPages } = await inspectPdf({ bytes, filename: 't.pdf', mimeType: 'application/pdf' });
      expect(validateAnnotation(JSON.parse(JSON.stringify(annotation)), totalPages)).toEqual(annotation);
    }
  });

  it('accepts a bare list and drops keys it does not know', () => {
    const item = { formFieldName: 'A', bbox: [1, 2, 3, 4], pageIndex: 0, customData: { type: 'text-field' }, x: 1 };
    expect(validateAnnotation([item], 1)).toEqual({
      annotations: [{ formFieldName: 'A', bbox: [1, 2, 3, 4], pageIndex: 0, customData: { type: 'text-field' } }],
      formFieldValues: {},
    });
  });

  const good = () => ({
    annotations: [
      { formFieldName: 'Name', bbox: [10, 20, 100, 20], pageIndex: 0, customData: { type: 'text-field' } },
      { formFieldName: 'Agree', bbox: [10, 60, 10, 10], pageIndex: 1, customData: { type: 'checkbox-field' } },
      {
        formFieldName: 'Size',
        bbox: [10, 80, 10, 10],
        pageIndex: 1,
        customData: { type: 'radiobutton-field', option: 'S' },
      },
      { formFieldName: 'Sign here', bbox: [300, 40, 150, 50], pageIndex: 1, customData: { type: 'signature-field' } },
    ],
    formFieldValues: { Name: 'Ada', Agree: true, Size: 'S' } as Record<string, unknown>,
  });

  it('accepts a well-formed annotation', () => {
    expect(validateAnnotation(good(), 2)).toEqual(good());
  });

  const broken: [string, (a: ReturnType<typeof good>) => unknown, string][] = [
    ['not an object', () => 'text', 'it must be an object with annotations and formFieldValues'],
    ['annotations not a list', (a) => ({ ...a, annotations: {} }), 'annotations must be a list'],
    [
      'empty name',
      (a) => ((a.annotations[0].formFieldName = ' '), a),
      'annotations[0].formFieldName must be a non-empty text of at most 1000 characters',
    ],
    [
      'bbox of three numbers',
      (a) => ((a.annotations[0].bbox = [1, 2, 3]), a),
      'annotations[0].bbox must be [x, y, width, height]: four numbers, width and height not negative',
    ],
    [
      'bbox with text',
      (a) => ((a.annotations[1].bbox = [1, 2, '3', 4] as never), a),
      'annotations[1].bbox must be [x, y, width, height]: four numbers, width and height not negative',
    ],
    [
      'negative width',
      (a) => ((a.annotations[1].bbox = [1, 2, -3, 4]), a),
      'annotations[1].bbox must be [x, y, width, height]: four numbers, width and height not negative',
    ],
    [
      'page beyond the document',
      (a) => ((a.annotations[2].pageIndex = 2), a),
      'annotations[2].pageIndex must be a page index from 0 to 1',
    ],
    [
      'page not an integer',
      (a) => ((a.annotations[2].pageIndex = 0.5), a),
      'annotations[2].pageIndex must be a page index from 0 to 1',
    ],
    [
      'unknown type',
      (a) => ((a.annotations[3].customData.type = 'dropdown'), a),
      'annotations[3].customData.type must be one of text-field, checkbox-field, radiobutton-field, signature-field, dropdown-field',
    ],
    [
      'two types for one name',
      (a) => ((a.annotations[1].formFieldName = 'Name'), a),
      'the field "Name" has two different types',
    ],
    [
      'a value for no field',
      (a) => ((a.formFieldValues.Other = 'x'), a),
      'formFieldValues names "Other", which is not one of the annotations\' fields',
    ],
    [
      'a checkbox given text',
      (a) => ((a.formFieldValues.Agree = 'yes'), a),
      'the checkbox "Agree" takes true or false',
    ],
    ['a text field given a boolean', (a) => ((a.formFieldValues.Name = true), a), 'the field "Name" takes text'],
    [
      'an unknown radio option',
      (a) => ((a.formFieldValues.Size = 'XL'), a),
      'the radio group "Size" has no option "XL"',
    ],
    [
      'a value for a signature field',
      (a) => ((a.formFieldValues['Sign here'] = 'x'), a),
      'the signature field "Sign here" cannot have a value',
    ],
  ];

  it.each(broken)('refuses %s with a 400 that says what is wrong', (_, breakIt, reason) => {
    const error = thrown(() => validateAnnotation(breakIt(good()), 2));
    expect(error.status).toBe(400);
    expect(error.message).toBe(`The template annotation is not valid: ${reason}.`);
  });
});
