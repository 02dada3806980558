import { FieldLimits, countsAsRequired } from '@esign/contract';
import type { FieldState } from '@esign/contract';
import { useEffect } from 'react';
import type { KeyboardEvent } from 'react';
import { Button } from '../components';
import { fieldName, useI18n } from '../i18n';
import { ATTACHMENT_ACCEPT } from './texts';
import { TYPED_KINDS, type SignerFields } from './useSignerFields';

/** The element the panel focuses when a field becomes the current one. */
export const inputIdOf = (id: string) => `field-input-${id}`;
const messageIdOf = (id: string) => `field-message-${id}`;

/** The most characters a typed kind takes (the contract's limits; a text field may set a lower one). */
const maxLengthOf = (field: FieldState): number => {
  if (field.kind === 'initials') return FieldLimits.initialsMaxLength;
  if (field.kind === 'name') return FieldLimits.nameMaxLength;
  if (field.kind === 'number') return FieldLimits.numberMaxLength;
  return Math.min(field.maxLength ?? FieldLimits.defaultTextMaxLength, FieldLimits.textMaxLength);
};

/** Patterns written in capitals (PAN, IFSC, GSTIN): a phone's keyboard starts in capitals for them. */
const CAPITALS = new Set<string>(['PAN', 'IFSC', 'GSTIN']);

/**
 * One field's input, by kind: a text input (text, name, initials, number), a checkbox, a select, radio buttons, a file
 * input, or a read-only line for the date and the signature. The message under it is the contract's check (or the
 * server's refusal); Enter goes on to the next field.
 */
const FieldInput = ({ state, field }: { state: SignerFields; field: FieldState }) => {
  const { t, known } = useI18n();
  const inputId = inputIdOf(field.id);
  const messageId = messageIdOf(field.id);
  const refusal = state.error(field.id);
  // The contract's checks and the API write English: shown in the page's language (a sender's own words as written).
  const error = refusal === null ? null : known(refusal);
  const label = fieldName(t, field);
  const editable = state.canEdit(field);
  const value = state.shownValue(field);
  const required = countsAsRequired(field);
  const typed = TYPED_KINDS.includes(field.kind);
  // An attachment's file input gives way to its name and Remove (and back): the focus, lost with it, goes to them.
  useEffect(() => {
    if (field.kind === 'attachment' && document.activeElement === document.body)
      document.getElementById(inputId)?.focus({ preventScroll: true });
  }, [field.kind, value, inputId]);
  const checks = {
    'aria-invalid': error ? true : undefined,
    'aria-describedby': messageId,
  } as const;
  const onEnter = (event: KeyboardEvent) => {
    if (event.key !== 'Enter' || event.nativeEvent.isComposing) return;
    event.preventDefault();
    // A typed value that is refused keeps the signer on it, with its message; 'Next field' still moves on.
    if (typed && editable && !state.commit(field)) return;
    state.next();
  };
  const mark = required ? (
    <span className="field-required" aria-hidden="true">
      {' *'}
    </span>
  ) : null;
  const message = (
    <p
      id={messageId}
      className={error ? 'field-message error-text' : 'field-message note'}
      data-testid="field-message"
      aria-live="polite"
    >
      {error ?? (state.savedNow(field.id) ? t('fields.saved') : '')}
    </p>
  );

  if (typed)
    return (
      <div className="field field-current">
        <label htmlFor={inputId}>
          {label}
          {mark}
        </label>
        <input
          id={inputId}
          className="input"
          type="text"
          value={value}
          placeholder={field.placeholder ?? undefined}
          maxLength={maxLengthOf(field)}
          inputMode={field.kind === 'number' ? 'numeric' : undefined}
          autoComplete={field.kind === 'name' ? 'name' : 'off'}
          autoCapitalize={
            field.kind === 'initials' || (field.pattern && CAPITALS.has(field.pattern)) ? 'characters' : undefined
          }
          readOnly={!editable}
          aria-required={required || undefined}
          {...checks}
          onChange={(e) => state.change(field, e.target.value)}
          onFocus={() => state.focusChanged(field.id)}
          onBlur={() => {
            state.focusChanged(null);
            if (editable) state.commit(field);
          }}
          onKeyDown={onEnter}
        />
        {message}
      </div>
    );

  if (field.kind === 'checkbox')
    return (
      <div className="field field-current">
        <label className="check">
          <input
            id={inputId}
            type="checkbox"
            checked={value === 'true'}
            disabled={!editable}
            aria-required={required || undefined}
            {...checks}
            onChange={(e) => state.change(field, e.target.checked ? 'true' : 'false')}
            onKeyDown={onEnter}
          />
          <span>
            {label}
            {mark}
          </span>
        </label>
        {message}
      </div>
    );

  if (field.kind === 'dropdown')
    return (
      <div className="field field-current">
        <label htmlFor={inputId}>
          {label}
          {mark}
        </label>
        <select
          id={inputId}
          className="input"
          value={value}
          disabled={!editable}
          aria-required={required || undefined}
          {...checks}
          onChange={(e) => state.change(field, e.target.value)}
          onKeyDown={onEnter}
        >
          <option value="">{t('fields.choose')}</option>
          {(field.options ?? []).map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
        {message}
      </div>
    );

  if (field.kind === 'radio') {
    const options = field.options ?? [];
    // The focus goes to the chosen option, else the first (as Tab into a radio group does).
    const focusAt = Math.max(0, options.indexOf(value));
    return (
      <div className="field field-current">
        <fieldset
          className="field-radios"
          role="radiogroup"
          aria-required={required || undefined}
          {...checks}
          disabled={!editable}
        >
          <legend>
            {label}
            {mark}
          </legend>
          {options.map((option, i) => (
            <label key={option} className="check">
              <input
                id={i === focusAt ? inputId : undefined}
                type="radio"
                name={`field-${field.id}`}
                value={option}
                checked={value === option}
                onChange={() => state.change(field, option)}
                onKeyDown={onEnter}
              />
              <span>{option}</span>
            </label>
          ))}
        </fieldset>
        {message}
      </div>
    );
  }

  if (field.kind === 'attachment')
    return (
      <div className="field field-current">
        <label htmlFor={value ? undefined : inputId} id={`${inputId}-label`}>
          {label}
          {mark}
        </label>
        {value ? (
          <div className="field-attachment">
            <span className="field-attachment-name" data-testid="attachment-name">
              {value}
            </span>
            {editable && (
              <Button
                id={inputId}
                variant="outline"
                aria-label={`${t('fields.removeAttachment')} ${value}`}
                aria-describedby={messageId}
                onClick={() => state.remove(field)}
              >
                {t('fields.removeAttachment')}
              </Button>
            )}
          </div>
        ) : (
          <input
            id={inputId}
            className="input field-file"
            type="file"
            accept={ATTACHMENT_ACCEPT}
            disabled={!editable}
            aria-required={required || undefined}
            {...checks}
            onChange={(e) => {
              const file = e.target.files?.[0];
              e.target.value = '';
              if (file) state.upload(field, file);
            }}
            onKeyDown={onEnter}
          />
        )}
        {message}
      </div>
    );

  // The date and the signature: filled when the signer signs, never here.
  return (
    <div className="field field-current">
      <span className="field-label" id={`${inputId}-label`}>
        {label}
      </span>
      <p
        id={inputId}
        className="field-readonly"
        tabIndex={-1}
        aria-labelledby={`${inputId}-label ${inputId}`}
        onKeyDown={onEnter}
      >
        {value || t('fields.filledWhenSigning')}
      </p>
    </div>
  );
};

export default FieldInput;
