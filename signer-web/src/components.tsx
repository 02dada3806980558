import { LANGUAGE_NAMES, Limits, RECIPIENT_LANGUAGES, isRecipientLanguage, logoPath } from '@esign/contract';
import { createContext, useCallback, useContext, useEffect, useId, useRef, useState } from 'react';
import type { ButtonHTMLAttributes, ReactNode } from 'react';
import { useI18n } from './i18n';

/** The organisation logo; hidden when the organisation has none. */
export const OrgLogo = ({ orgId }: { orgId?: string }) => {
  const { t } = useI18n();
  const [failed, setFailed] = useState(false);
  if (!orgId || failed) return null;
  return (
    <img
      className="org-logo"
      src={logoPath(orgId)}
      alt={t('messages.organisationLogoAlt')}
      data-testid="org-logo"
      onError={() => setFailed(true)}
    />
  );
};

/**
 * The language switch (issue 22): a native select (keyboard usable as it is), each language named in its own script
 * and marked with its `lang`; the choice is remembered.
 */
export const LanguageSwitch = () => {
  const { language, choose, t } = useI18n();
  return (
    <label className="language-switch">
      <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
        <path
          fill="currentColor"
          d="M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20Zm6.9 6h-2.9a15.7 15.7 0 0 0-1.4-3.6A8 8 0 0 1 18.9 8ZM12 4c.8 1.2 1.5 2.5 1.9 4h-3.8c.4-1.5 1.1-2.8 1.9-4ZM4.3 14a8.2 8.2 0 0 1 0-4h3.4a16.5 16.5 0 0 0 0 4H4.3Zm.8 2h2.9c.3 1.3.8 2.5 1.4 3.6A8 8 0 0 1 5.1 16ZM8 8H5.1a8 8 0 0 1 4.3-3.6C8.8 5.5 8.4 6.7 8 8Zm4 12c-.8-1.2-1.5-2.5-1.9-4h3.8c-.4 1.5-1.1 2.8-1.9 4Zm2.3-6H9.7a14.7 14.7 0 0 1 0-4h4.6a14.7 14.7 0 0 1 0 4Zm.3 5.6c.6-1.1 1.1-2.3 1.4-3.6h2.9a8 8 0 0 1-4.3 3.6Zm1.7-5.6a16.5 16.5 0 0 0 0-4h3.4a8.2 8.2 0 0 1 0 4h-3.4Z"
        />
      </svg>
      <select
        value={language}
        aria-label={t('page.language')}
        data-testid="language-switch"
        onChange={(event) => {
          if (isRecipientLanguage(event.target.value)) choose(event.target.value);
        }}
      >
        {RECIPIENT_LANGUAGES.map((code) => (
          <option key={code} value={code} lang={code}>
            {LANGUAGE_NAMES[code]}
          </option>
        ))}
      </select>
    </label>
  );
};

/** Page frame: the bar with the organisation's logo (when the page belongs to one) and the language switch, and a
 * centred card. */
export const Shell = ({ orgId, children, wide }: { orgId?: string; children: ReactNode; wide?: boolean }) => (
  <div className="shell">
    <header className={orgId ? 'shell-header' : 'shell-header shell-header-plain'}>
      <span className="shell-header-side" />
      <OrgLogo orgId={orgId} />
      <span className="shell-header-side shell-header-end">
        <LanguageSwitch />
      </span>
    </header>
    <main className={wide ? 'card card-wide' : 'card'}>{children}</main>
  </div>
);

/** The 'PLEASE WAIT...' state shown while a page loads. */
export const PleaseWait = ({ text }: { text?: string }) => {
  const { t } = useI18n();
  return (
    <div className="please-wait" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      <p>{text ?? t('messages.pleaseWait')}</p>
    </div>
  );
};

/** The full-screen 'PLEASE WAIT...' backdrop during updates. */
export const Backdrop = ({ open, text }: { open: boolean; text?: string }) => {
  const { t } = useI18n();
  return open ? (
    <div className="backdrop" role="status" aria-live="polite" data-testid="backdrop">
      <span className="spinner spinner-light" aria-hidden="true" />
      <p>{text ?? t('messages.pleaseWait')}</p>
    </div>
  ) : null;
};

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & { variant?: 'primary' | 'outline' | 'text' | 'danger' };

export const Button = ({ variant = 'primary', className, type = 'button', ...props }: ButtonProps) => (
  <button type={type} className={`btn btn-${variant}${className ? ` ${className}` : ''}`} {...props} />
);

/**
 * A modal dialog: backdrop, focus moved in, Escape closes (when `onClose` is given), a labelled title. Rendered only
 * while open.
 */
export const Dialog = ({
  open,
  title,
  onClose,
  children,
  actions,
  wide,
}: {
  open: boolean;
  title?: string;
  onClose?: () => void;
  children: ReactNode;
  actions?: ReactNode;
  wide?: boolean;
}) => {
  const titleId = useId();
  const box = useRef<HTMLDivElement>(null);
  // The latest onClose, read when Escape is pressed: a new function on every render must not re-run the effect,
  // which would take the focus back from whatever the user is in.
  const close = useRef(onClose);
  close.current = onClose;
  const closable = onClose !== undefined;
  useEffect(() => {
    if (!open) return;
    const previous = document.activeElement as HTMLElement | null;
    box.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && close.current) close.current();
    };
    if (closable) window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      previous?.focus?.();
    };
  }, [open, closable]);
  if (!open) return null;
  return (
    <div className="dialog-backdrop">
      <div
        ref={box}
        className={wide ? 'dialog dialog-wide' : 'dialog'}
        role="dialog"
        aria-modal="true"
        aria-labelledby={title ? titleId : undefined}
        tabIndex={-1}
      >
        {title && (
          <h2 id={titleId} className="dialog-title">
            {title}
          </h2>
        )}
        <div className="dialog-body">{children}</div>
        {actions && <div className="dialog-actions">{actions}</div>}
      </div>
    </div>
  );
};

type ToastKind = 'info' | 'success' | 'error';
interface Toast {
  id: number;
  text: string;
  kind: ToastKind;
}
const ToastContext = createContext<(text: string, kind?: ToastKind, ms?: number) => void>(() => undefined);

/** Toasts: one line each, hidden after 3 s (spec section 8); the API's English words in the page's language. */
export const ToastProvider = ({ children }: { children: ReactNode }) => {
  const { known } = useI18n();
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(0);
  const show = useCallback((text: string, kind: ToastKind = 'info', ms: number = Limits.toastMs) => {
    const id = ++next.current;
    setToasts((all) => [...all.filter((t) => t.text !== text), { id, text, kind }]);
    setTimeout(() => setToasts((all) => all.filter((t) => t.id !== id)), ms);
  }, []);
  return (
    <ToastContext.Provider value={show}>
      {children}
      <div className="toasts" aria-live="polite">
        {toasts.map((t) => (
          <div key={t.id} role="alert" className={`toast toast-${t.kind}`}>
            {known(t.text)}
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
};

export const useToast = () => useContext(ToastContext);

/** A warning sign, drawn inline (nothing is fetched), for the hold-on page. */
export const WarningImage = () => {
  const { t } = useI18n();
  return (
    <svg
      className="warning-image"
      width="96"
      height="96"
      viewBox="0 0 96 96"
      role="img"
      aria-label={t('page.warningImage')}
    >
      <path d="M48 8 L90 84 H6 Z" fill="#fff3e0" stroke="#ef6c00" strokeWidth="5" strokeLinejoin="round" />
      <rect x="44" y="34" width="8" height="28" rx="4" fill="#ef6c00" />
      <circle cx="48" cy="72" r="5" fill="#ef6c00" />
    </svg>
  );
};
