import { Limits, Messages, logoPath } from '@esign/contract';
import { createContext, useCallback, useContext, useEffect, useId, useRef, useState } from 'react';
import type { ButtonHTMLAttributes, ReactNode } from 'react';

/** The organisation logo; hidden when the organisation has none. */
export const OrgLogo = ({ orgId }: { orgId?: string }) => {
  const [failed, setFailed] = useState(false);
  if (!orgId || failed) return null;
  return (
    <img
      className="org-logo"
      src={logoPath(orgId)}
      alt={Messages.organisationLogoAlt}
      data-testid="org-logo"
      onError={() => setFailed(true)}
    />
  );
};

/** Page frame: the logo bar (when the page belongs to an organisation) and a centred card. */
export const Shell = ({ orgId, children, wide }: { orgId?: string; children: ReactNode; wide?: boolean }) => (
  <div className="shell">
    {orgId ? (
      <header className="shell-header">
        <OrgLogo orgId={orgId} />
      </header>
    ) : null}
    <main className={wide ? 'card card-wide' : 'card'}>{children}</main>
  </div>
);

/** The 'PLEASE WAIT...' state shown while a page loads. */
export const PleaseWait = ({ text = Messages.pleaseWait }: { text?: string }) => (
  <div className="please-wait" role="status" aria-live="polite">
    <span className="spinner" aria-hidden="true" />
    <p>{text}</p>
  </div>
);

/** The full-screen 'PLEASE WAIT...' backdrop during updates. */
export const Backdrop = ({ open, text = Messages.pleaseWait }: { open: boolean; text?: string }) =>
  open ? (
    <div className="backdrop" role="status" aria-live="polite" data-testid="backdrop">
      <span className="spinner spinner-light" aria-hidden="true" />
      <p>{text}</p>
    </div>
  ) : null;

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

/** Toasts: one line each, hidden after 3 s (spec section 8). */
export const ToastProvider = ({ children }: { children: ReactNode }) => {
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
            {t.text}
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
};

export const useToast = () => useContext(ToastContext);

/** A warning sign, drawn inline (nothing is fetched), for the hold-on page. */
export const WarningImage = () => (
  <svg className="warning-image" width="96" height="96" viewBox="0 0 96 96" role="img" aria-label="Warning">
    <path d="M48 8 L90 84 H6 Z" fill="#fff3e0" stroke="#ef6c00" strokeWidth="5" strokeLinejoin="round" />
    <rect x="44" y="34" width="8" height="28" rx="4" fill="#ef6c00" />
    <circle cx="48" cy="72" r="5" fill="#ef6c00" />
  </svg>
);
