import { SignerTexts, SigningMethod, checkInput, usbTokenSchema } from '@esign/contract';
import type { SigningMethodCode, SigningRequest } from '@esign/contract';
import { useState } from 'react';
import { withScheme } from '../api';
import { Button } from '../components';

const LABELS: Record<SigningMethodCode, string> = {
  [SigningMethod.Aadhaar]: SignerTexts.methodAadhaar,
  [SigningMethod.DSC]: SignerTexts.methodDsc,
  [SigningMethod.ESignature]: SignerTexts.methodESignature,
};

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
  const options = request.signing_methods;
  const [method, setMethod] = useState<SigningMethodCode | null>(options.length === 1 ? options[0] : null);
  const [confirmed, setConfirmed] = useState(false);
  const [password, setPassword] = useState('');
  const [showPassword, setShowPassword] = useState(false);

  return (
    <section className="method" aria-labelledby="method-title">
      <p className="accepted" data-testid="accepted">
        {SignerTexts.accepted}
      </p>
      {blocked && (
        <p className="notice method-blocked" role="status" data-testid="method-blocked">
          {blocked}
        </p>
      )}
      <fieldset className="methods" disabled={blocked !== null}>
        <legend id="method-title">{SignerTexts.selectMethod}</legend>
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
            <span>{LABELS[code]}</span>
          </label>
        ))}
      </fieldset>

      {method === SigningMethod.Aadhaar && (
        <div className="hint" data-testid="aadhaar-hint">
          <p>{SignerTexts.aadhaarPhoneNote}</p>
          <p>{SignerTexts.aadhaarHint}</p>
        </div>
      )}

      {method === SigningMethod.DSC && (
        <div className="hint" data-testid="dsc-panel">
          <ol className="dsc-steps">
            {SignerTexts.dscSteps.map((step, i) => (
              <li key={step}>
                {step}
                {i === 0 && request.dsc_download_url && (
                  <>
                    {' '}
                    <a href={withScheme(request.dsc_download_url)} target="_blank" rel="noopener noreferrer">
                      {SignerTexts.dscDownload}
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
                      {SignerTexts.dscTutorial}
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
              placeholder={SignerTexts.dscPasswordPlaceholder}
              aria-label={SignerTexts.dscPasswordPlaceholder}
              autoComplete="off"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
            <Button variant="text" onClick={() => setShowPassword(!showPassword)} aria-pressed={showPassword}>
              {showPassword ? SignerTexts.hidePassword : SignerTexts.showPassword}
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
        <span>{SignerTexts.confirmDetails}</span>
      </label>

      <Button
        disabled={busy || blocked !== null || !canProceed(method, confirmed, password)}
        onClick={() => method !== null && onProceed({ method, password })}
      >
        {SignerTexts.proceed}
      </Button>
    </section>
  );
};

export default MethodChoice;
