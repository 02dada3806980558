import { SigningMethod, checkInput, usbTokenSchema } from '@esign/contract';
import type { SigningMethodCode, SigningRequest, TextKey } from '@esign/contract';
import { useState } from 'react';
import { withScheme } from '../api';
import { Button } from '../components';
import { METHOD_NAMES, useI18n } from '../i18n';

/** The DSC panel's four steps (spec section 2). */
const DSC_STEPS: TextKey[] = ['page.dscStep1', 'page.dscStep2', 'page.dscStep3', 'page.dscStep4'];

export interface MethodChoiceResult {
  method: SigningMethodCode;
  password: string;
}

/**
 * Spec section 4, step 3: Aadhaar or e-Signature with the box ticked; DSC with the box ticked and a password the API
 * takes (the contract's usbTokenSchema: not empty, at most 64 characters).
 */
export const canProceed = (method: SigningMethodCode | null, confirmed: boolean, password: string): boolean =>
  method !== null && confirmed && (method !== SigningMethod.DSC || checkInput(usbTokenSchema, password).ok);

/**
 * After accepting: 'Select signing method' with the options the signature type allows, the confirmation, the Aadhaar
 * note and hint, the DSC panel, and 'Proceed to eSign'. Changing the method clears the confirmation.
 */
const MethodChoice = ({
  request,
  busy,
  onProceed,
  blocked = null,
}: {
  request: SigningRequest;
  busy: boolean;
  onProceed: (choice: MethodChoiceResult) => void;
  /** Why signing cannot start yet (required fields left, issue 21): the choice is disabled and this is shown. */
  blocked?: string | null;
}) => {
  const { t } = useI18n();
  const options = request.signing_methods;
  const [method, setMethod] = useState<SigningMethodCode | null>(options.length === 1 ? options[0] : null);
  const [confirmed, setConfirmed] = useState(false);
  const [password, setPassword] = useState('');
  const [showPassword, setShowPassword] = useState(false);

  return (
    <section className="method" aria-labelledby="method-title">
      <p className="accepted" data-testid="accepted">
        {t('page.accepted')}
      </p>
      {blocked && (
        <p className="notice method-blocked" role="status" data-testid="method-blocked">
          {blocked}
        </p>
      )}
      <fieldset className="methods" disabled={blocked !== null}>
        <legend id="method-title">{t('page.selectMethod')}</legend>
        {options.map((code) => (
          <label key={code} className="check">
            <input
              type="radio"
              name="method"
              value={code}
              checked={method === code}
              onChange={() => {
                setMethod(code);
                setConfirmed(false);
              }}
            />
            <span>{t(METHOD_NAMES[code])}</span>
          </label>
        ))}
      </fieldset>

      {method === SigningMethod.Aadhaar && (
        <div className="hint" data-testid="aadhaar-hint">
          <p>{t('page.aadhaarPhoneNote')}</p>
          <p>{t('page.aadhaarHint')}</p>
        </div>
      )}

      {method === SigningMethod.DSC && (
        <div className="hint" data-testid="dsc-panel">
          <ol className="dsc-steps">
            {DSC_STEPS.map((step, i) => (
              <li key={step}>
                {t(step)}
                {i === 0 && request.dsc_download_url && (
                  <>
                    {' '}
                    <a href={withScheme(request.dsc_download_url)} target="_blank" rel="noopener noreferrer">
                      {t('page.dscDownload')}
                    </a>
                  </>
                )}
                {i === 0 && request.dsc_tutorial_url && (
                  <>
                    {' · '}
                    <a
                      href={withScheme(request.dsc_tutorial_url)}
                      target="_blank"
                      rel="noopener noreferrer"
                      data-testid="dsc-tutorial"
                    >
                      {t('page.dscTutorial')}
                    </a>
                  </>
                )}
              </li>
            ))}
          </ol>
          <div className="password">
            <input
              className="input"
              type={showPassword ? 'text' : 'password'}
              placeholder={t('page.dscPasswordPlaceholder')}
              aria-label={t('page.dscPasswordPlaceholder')}
              autoComplete="off"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
            <Button variant="text" onClick={() => setShowPassword(!showPassword)} aria-pressed={showPassword}>
              {showPassword ? t('page.hidePassword') : t('page.showPassword')}
            </Button>
          </div>
        </div>
      )}

      <label className="check">
        <input
          type="checkbox"
          checked={confirmed}
          disabled={blocked !== null}
          onChange={(e) => setConfirmed(e.target.checked)}
        />
        <span>{t('page.confirmDetails')}</span>
      </label>

      <Button
        disabled={busy || blocked !== null || !canProceed(method, confirmed, password)}
        onClick={() => method !== null && onProceed({ method, password })}
      >
        {t('page.proceed')}
      </Button>
    </section>
  );
};

export default MethodChoice;
