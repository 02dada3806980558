import { useEffect } from 'react';
import { Button } from '../components';
import { useI18n } from '../i18n';
import FieldInput, { inputIdOf } from './FieldInput';
import type { SignerFields } from './useSignerFields';

/**
 * The guided fields step under the document (a bottom sheet on a phone): how many required fields are left, the
 * current field's input, and 'Previous field' / 'Next field'. Moving to a field focuses its input; the viewer turns to
 * its page and scrolls to its box (FieldOverlays).
 */
const FieldsPanel = ({ state }: { state: SignerFields }) => {
  const { t } = useI18n();
  const seq = state.current?.seq ?? 0;
  const id = state.current?.id ?? null;
  useEffect(() => {
    if (!seq || id === null) return;
    // The box is scrolled to by the viewer; the input is in the sheet, already in view.
    document.getElementById(inputIdOf(id))?.focus({ preventScroll: true });
  }, [seq, id]);

  const field = state.currentField;
  return (
    <section className="fields-panel" aria-label={t('fields.panel')} data-testid="fields-panel">
      {state.total > 0 && (
        <p className="fields-count" role="status" data-testid="fields-left">
          {t('fields.requiredLeft', { n: state.left, m: state.total })}
        </p>
      )}
      {!state.editable && <p className="note">{t('fields.alreadySigned')}</p>}
      {field && <FieldInput key={field.id} state={state} field={field} />}
      <div className="fields-bar">
        <Button variant="outline" disabled={!state.hasPrevious} onClick={state.previous}>
          {t('fields.previousField')}
        </Button>
        <Button onClick={state.next}>{t('fields.nextField')}</Button>
      </div>
    </section>
  );
};

export default FieldsPanel;
