import { requiredLeft } from '@esign/contract';
import type { FieldState } from '@esign/contract';
import { useEffect, useRef } from 'react';
import type { ShownPage } from '../esign/Viewer';
import { fieldName, useI18n } from '../i18n';
import type { I18n } from '../i18n';
import type { SignerFields } from './useSignerFields';

/** What a field's box shows on the page: its value, a tick, the file name, or that signing fills it ('' when empty). */
const shownIn = (state: SignerFields, field: FieldState, t: I18n['t']): string => {
  if (field.kind === 'signature') return '';
  if (field.kind === 'date') return field.value ?? t('fields.filledWhenSigning');
  const value = state.shownValue(field);
  if (field.kind === 'checkbox') return value === 'true' ? '✓' : '';
  return value;
};

/**
 * The signer's fields on the page shown: a box at each field's place (points from the displayed page's top-left, as
 * shares of the page, so they follow the drawn size), the current one highlighted and scrolled to when it becomes
 * current. A box is picked by pointer; the keyboard moves with the panel's buttons (the boxes take no Tab stop).
 */
const FieldOverlays = ({ state, shown }: { state: SignerFields; shown: ShownPage }) => {
  const { t } = useI18n();
  const current = useRef<HTMLButtonElement>(null);
  const scrolled = useRef(0);
  const seq = state.current?.seq ?? 0;
  useEffect(() => {
    if (!seq || seq === scrolled.current || !current.current) return;
    scrolled.current = seq;
    const smooth = !window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    current.current.scrollIntoView({ block: 'center', behavior: smooth ? 'smooth' : 'auto' });
  });

  const pct = (n: number, of: number) => `${(n / of) * 100}%`;
  return (
    <>
      {state.fields
        .filter((f) => f.page === shown.page)
        .map((f) => {
          const [x1, y1, x2, y2] = f.box;
          const isCurrent = state.current?.id === f.id;
          const left = requiredLeft([f], { [f.id]: f.value }).length > 0;
          const classes = [
            'field-box',
            `field-box-${f.kind}`,
            isCurrent ? 'field-box-current' : '',
            state.canEdit(f) ? '' : 'field-box-readonly',
            state.error(f.id) ? 'field-box-invalid' : left ? 'field-box-empty' : '',
          ].filter(Boolean);
          const text = shownIn(state, f, t);
          return (
            <button
              key={f.id}
              ref={isCurrent ? current : undefined}
              type="button"
              tabIndex={-1}
              className={classes.join(' ')}
              data-testid="field-box"
              data-field={f.id}
              aria-label={t('fields.boxLabel', { label: fieldName(t, f), page: f.page })}
              aria-current={isCurrent || undefined}
              title={fieldName(t, f)}
              style={{
                left: pct(x1, shown.width),
                top: pct(y1, shown.height),
                width: pct(x2 - x1, shown.width),
                height: pct(y2 - y1, shown.height),
                fontSize: Math.max(7, Math.min(16, (y2 - y1) * shown.scale * (f.kind === 'checkbox' ? 0.95 : 0.62))),
              }}
              onClick={() => state.select(f.id)}
            >
              {text ? (
                <span className="field-box-text">{text}</span>
              ) : f.placeholder ? (
                <span className="field-box-text field-box-placeholder">{f.placeholder}</span>
              ) : null}
            </button>
          );
        })}
    </>
  );
};

export default FieldOverlays;
