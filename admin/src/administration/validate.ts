import { checkInput } from '@esign/contract';

type Schema = Parameters<typeof checkInput>[0];

/**
 * A react-admin form's `validate` from a contract schema: the very check the API runs, its message on the field it
 * names (or the first field when it names none). `pick` keeps only the fields the form sends.
 */
export const schemaValidator =
  (schema: Schema, pick: (values: Record<string, unknown>) => Record<string, unknown>) =>
  (values: Record<string, unknown>): Record<string, string> => {
    const checked = checkInput(schema, pick(values));
    if (checked.ok) return {};
    const field = String(checked.problem.path[0] ?? Object.keys(pick(values))[0] ?? '');
    return field ? { [field]: checked.problem.message } : {};
  };
