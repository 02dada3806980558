import { Alert, Box, CircularProgress } from '@mui/material';
import type { PDFDocumentProxy } from 'pdfjs-dist';
import { useState } from 'react';
import type { ReactNode } from 'react';
import { PdfPageView } from '../../pdf/PdfPageView';
import type { PageSize } from '../../pdf/PdfPageView';
import { signerColour } from './colors';
import { PAGE_UNITS } from './geometry';
import type { Box as PageBox } from './geometry';
import PageNavigator from './PageNavigator';
import SignatureBox from './SignatureBox';
import { isOnPage } from './session';
import type { SignerPlacement } from './session';
import { useText } from '../../i18n/useText';

/**
 * The page shown 840 CSS pixels tall (one pixel per page unit) with the boxes placed on it: the current signer's to
 * drag, the others' faded. A page wider than the screen scrolls inside its own frame. `overlay` draws more over the
 * page (the fields, given the page's size on screen); `side` sits beside the page when both fit, else below it.
 */
const PlacementPage = ({
  doc,
  failed,
  page,
  totalPages,
  signers,
  step,
  disabled,
  onPage,
  onMove,
  overlay,
  side,
}: {
  doc: PDFDocumentProxy | null;
  failed: boolean;
  page: number;
  totalPages: number;
  signers: SignerPlacement[];
  step: number;
  disabled: boolean;
  onPage: (page: number) => void;
  onMove: (box: PageBox) => void;
  overlay?: (shown: PageSize) => ReactNode;
  side?: ReactNode;
}) => {
  const t = useText();
  const [sizes, setSizes] = useState<Record<number, PageSize>>({});
  const shown = sizes[page];
  return (
    <Box>
      <PageNavigator page={page} total={totalPages} onPage={onPage} />
      {/* The side wraps below a page too wide to leave it room (the page's own width, padding included, as basis). */}
      <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'flex-start', gap: 2 }}>
        <Box sx={{ flex: `1 1 ${Math.ceil((shown?.width ?? 560) + 16)}px`, minWidth: 0 }}>
          {/* inline-size containment: the frame takes the card's width instead of growing to the page's. */}
          <Box sx={{ overflow: 'auto', contain: 'inline-size', p: 1 }} data-testid="pdf-frame">
            {failed && <Alert severity="error">{t('esign.documentCheckFailed')}</Alert>}
            {!doc && !failed && (
              <Box sx={{ display: 'grid', placeItems: 'center', minHeight: 200 }}>
                <CircularProgress />
              </Box>
            )}
            {/* auto margins centre a narrow page and fall to 0 for a wide one, which then scrolls from its left edge. */}
            <Box sx={{ width: 'fit-content', mx: 'auto' }}>
              {doc && (
                <PdfPageView
                  doc={doc}
                  pageNumber={page}
                  height={PAGE_UNITS}
                  onSize={(size) => setSizes((known) => ({ ...known, [page]: size }))}
                >
                  {shown &&
                    signers.map(
                      (signer, index) =>
                        isOnPage(signer, page) && (
                          <SignatureBox
                            key={signer.order}
                            order={signer.order}
                            box={signer.box}
                            shown={shown}
                            colour={signerColour(index)}
                            label={signer.name}
                            active={index === step && !disabled}
                            current={index === step}
                            onDrop={onMove}
                          />
                        ),
                    )}
                  {shown && overlay?.(shown)}
                </PdfPageView>
              )}
            </Box>
          </Box>
        </Box>
        {side && <Box sx={{ flex: '1 0 300px', maxWidth: 400, minWidth: 0 }}>{side}</Box>}
      </Box>
    </Box>
  );
};

export default PlacementPage;
