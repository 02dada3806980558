import { Limits } from '@esign/contract';
import type { TextKey } from '@esign/contract';
import { useEffect, useId, useRef, useState } from 'react';
import { useI18n } from '../i18n';

/** Spec section 5: png or jpeg with a single dot in the name (the server checks the same). */
const IMAGE_NAME = /^[^.]+\.(png|jpe?g)$/i;
const IMAGE_TYPES = ['image/png', 'image/jpeg'];

/** Why a chosen signature image cannot be sent (the text's key), or null when it can. */
export const checkSignatureFile = (file: File): TextKey | null => {
  if (!IMAGE_NAME.test(file.name) || !IMAGE_TYPES.includes(file.type)) return 'messages.invalidSignatureImage';
  if (file.size > Limits.signatureImageMaxBytes) return 'server.signatureTooLarge';
  return null;
};

/** The pad's Upload tab: a PNG or JPEG file, checked when chosen, with a preview. */
export const UploadTab = ({
  file,
  disabled,
  onFile,
}: {
  file: File | null;
  disabled: boolean;
  /** The accepted file (or null) and why a chosen one was refused (the text's key, or null). */
  onFile: (file: File | null, problem: TextKey | null) => void;
}) => {
  const { t } = useI18n();
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [preview, setPreview] = useState<string | null>(null);

  useEffect(() => {
    if (!file) {
      setPreview(null);
      if (input.current) input.current.value = '';
      return;
    }
    const url = URL.createObjectURL(file);
    setPreview(url);
    return () => URL.revokeObjectURL(url);
  }, [file]);

  return (
    <div className="field pad-upload">
      <label htmlFor={id}>{t('page.padUpload')}</label>
      <input
        ref={input}
        id={id}
        className="input pad-file"
        type="file"
        accept=".png,.jpg,.jpeg,image/png,image/jpeg"
        disabled={disabled}
        onChange={(event) => {
          const chosen = event.target.files?.[0] ?? null;
          if (!chosen) return;
          const problem = checkSignatureFile(chosen);
          if (problem) event.target.value = '';
          onFile(problem ? null : chosen, problem);
        }}
      />
      {file && preview && <img className="pad-preview" src={preview} alt={file.name} />}
    </div>
  );
};
