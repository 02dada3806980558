import { Limits } from '@esign/contract';
import type { SignatureStyle, TextKey } from '@esign/contract';
import { Suspense, useEffect, useId, useRef, useState } from 'react';
import type { KeyboardEvent } from 'react';
import type ReactSignatureCanvas from 'react-signature-canvas';
import { Button, Dialog } from '../components';
import { useI18n } from '../i18n';
import { useStableCallback } from './hooks';
import { lazyDefault, trimmedPng } from './media';
import { UploadTab, checkSignatureFile } from './UploadTab';

/** What the pad hands to onSubmit: the drawing (PNG data URL), the typed name's style, or the chosen image. */
export type PadSignature =
  { kind: 'drawn'; dataUrl: string } | { kind: 'typed'; style: SignatureStyle } | { kind: 'uploaded'; file: File };

export interface SignaturePadProps {
  open: boolean;
  /** The signer's name, shown on the Type tab (the server draws it). */
  name: string;
  /** Rejecting keeps the pad open (the caller shows the error). */
  onSubmit: (signature: PadSignature) => Promise<unknown>;
  onExit: () => void;
}

// Not in the first page's JavaScript: loaded when the pad opens.
const SignatureCanvas = lazyDefault<typeof ReactSignatureCanvas>(() => import('react-signature-canvas'));

type Tab = 'draw' | 'type' | 'upload';
const TABS: Array<[Tab, TextKey]> = [
  ['draw', 'page.padDraw'],
  ['type', 'page.padType'],
  ['upload', 'page.padUpload'],
];
const STYLES: Array<[SignatureStyle, TextKey]> = [
  ['normal', 'page.padNormal'],
  ['italic', 'page.padItalic'],
];

/** 'Add your signature' (spec section 4): draw, type the name (normal or italic) or upload an image. */
export const SignaturePad = (props: SignaturePadProps) => (props.open ? <PadBody {...props} /> : null);

const PadBody = ({ name, onSubmit, onExit }: SignaturePadProps) => {
  const { t } = useI18n();
  const [tab, setTab] = useState<Tab>('draw');
  const [drawn, setDrawn] = useState(false);
  const [style, setStyle] = useState<SignatureStyle>('normal');
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const pad = useRef<ReactSignatureCanvas>(null);
  const tabRefs = useRef<Partial<Record<Tab, HTMLButtonElement | null>>>({});
  const base = useId();
  const exit = useStableCallback(() => {
    if (!busy) onExit();
  });

  // Keeps the canvas's backing store at its shown size × devicePixelRatio (crisp), redrawing what was drawn.
  const fit = useStableCallback(() => {
    const signature = pad.current;
    const canvas = signature?.getCanvas();
    if (!signature || !canvas || !canvas.clientWidth) return;
    const ratio = Math.max(window.devicePixelRatio || 1, 1);
    const [width, height] = [Math.round(canvas.clientWidth * ratio), Math.round(canvas.clientHeight * ratio)];
    if (canvas.width === width && canvas.height === height) return;
    const strokes = signature.toData();
    canvas.width = width;
    canvas.height = height;
    canvas.getContext('2d')?.scale(ratio, ratio);
    signature.fromData(strokes);
  });
  useEffect(() => {
    window.addEventListener('resize', fit);
    return () => window.removeEventListener('resize', fit);
  }, [fit]);
  useEffect(() => {
    if (tab === 'draw') fit();
  }, [tab, fit]);

  const choose = (next: Tab) => {
    setTab(next);
    setError(null);
    tabRefs.current[next]?.focus();
  };
  const onTabKey = (event: KeyboardEvent) => {
    const index = TABS.findIndex(([key]) => key === tab);
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (step) choose(TABS[(index + step + TABS.length) % TABS.length][0]);
    else if (event.key === 'Home') choose(TABS[0][0]);
    else if (event.key === 'End') choose(TABS[TABS.length - 1][0]);
    else return;
    event.preventDefault();
  };

  const clear = () => {
    setError(null);
    if (tab === 'draw') {
      pad.current?.clear();
      setDrawn(false);
    } else if (tab === 'type') setStyle('normal');
    else setFile(null);
  };

  const signature = (): PadSignature | null => {
    if (tab === 'draw') {
      const canvas = pad.current?.getCanvas();
      const dataUrl = drawn && canvas ? trimmedPng(canvas) : null;
      return dataUrl ? { kind: 'drawn', dataUrl } : null;
    }
    if (tab === 'type') return name.trim() ? { kind: 'typed', style } : null;
    return file ? { kind: 'uploaded', file } : null;
  };

  const submit = async () => {
    const chosen = signature();
    if (!chosen) return setError(t('messages.emptySignaturePad'));
    if (chosen.kind === 'uploaded') {
      const invalid = checkSignatureFile(chosen.file);
      if (invalid) return setError(t(invalid));
    }
    setError(null);
    setBusy(true);
    try {
      await onSubmit(chosen);
    } catch {
      // The caller shows why; the pad stays open for another try.
    } finally {
      setBusy(false);
    }
  };

  const panel = (key: Tab) => ({
    id: `${base}-${key}-panel`,
    role: 'tabpanel',
    'aria-labelledby': `${base}-${key}-tab`,
    hidden: tab !== key,
    className: 'pad-panel',
  });

  return (
    <Dialog
      open
      wide
      title={t('page.padTitle')}
      onClose={exit}
      actions={
        <>
          <Button variant="outline" onClick={clear} disabled={busy}>
            {t('page.clear')}
          </Button>
          <Button variant="text" onClick={exit} disabled={busy}>
            {t('page.exit')}
          </Button>
          <Button onClick={() => void submit()} disabled={busy}>
            {t('page.submit')}
          </Button>
        </>
      }
    >
      <div className="pad-tabs" role="tablist" aria-label={t('page.padKinds')} onKeyDown={onTabKey}>
        {TABS.map(([key, label]) => (
          <button
            key={key}
            ref={(element) => {
              tabRefs.current[key] = element;
            }}
            type="button"
            role="tab"
            id={`${base}-${key}-tab`}
            aria-selected={tab === key}
            aria-controls={`${base}-${key}-panel`}
            tabIndex={tab === key ? 0 : -1}
            className="pad-tab"
            onClick={() => choose(key)}
          >
            {t(label)}
          </button>
        ))}
      </div>

      <div {...panel('draw')}>
        <Suspense fallback={<div className="pad-canvas pad-loading" aria-busy="true" />}>
          <SignatureCanvas
            ref={pad}
            clearOnResize={false}
            penColor="#1a237e"
            minWidth={1}
            maxWidth={2.8}
            onEnd={() => {
              setDrawn(true);
              setError(null);
            }}
            canvasProps={{
              className: 'pad-canvas',
              role: 'img',
              'aria-label': t('page.padCanvas'),
            }}
          />
        </Suspense>
      </div>

      <div {...panel('type')}>
        <div className="pad-styles" role="radiogroup" aria-labelledby={`${base}-type-tab`}>
          {STYLES.map(([value, label]) => (
            <label key={value} className={style === value ? 'pad-style pad-style-chosen' : 'pad-style'}>
              <input
                type="radio"
                name={`${base}-style`}
                value={value}
                checked={style === value}
                onChange={() => {
                  setStyle(value);
                  setError(null);
                }}
              />
              {t(label)}
            </label>
          ))}
        </div>
        <p
          className="pad-typed"
          style={{ fontSize: Limits.nameSignatureFontPx, fontStyle: style }}
          data-testid="typed-name"
        >
          {name}
        </p>
      </div>

      <div {...panel('upload')}>
        <UploadTab
          file={file}
          disabled={busy}
          onFile={(chosen, problem) => {
            setFile(chosen);
            setError(problem && t(problem));
          }}
        />
      </div>

      <p className="error-text" role="alert">
        {error}
      </p>
    </Dialog>
  );
};

export default SignaturePad;
