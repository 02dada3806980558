import { Box, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { useText } from '../i18n/useText';

/** The no-data picture: an empty tray, drawn inline (nothing is fetched), with its caption and an optional action. */
const NoData = ({ text, children }: { text?: string; children?: ReactNode }) => {
  const t = useText();
  return (
    <Box
      data-testid="no-data"
      component="figure"
      sx={{ m: 0, py: 6, display: 'flex', flexDirection: 'column', alignItems: 'center', gap: 2 }}
    >
      <svg width="180" height="120" viewBox="0 0 180 120" role="img" aria-label={t('console.common.noData')}>
        <ellipse cx="90" cy="108" rx="70" ry="8" fill="#EDE7F6" />
        <path d="M30 60 L50 28 H130 L150 60 V98 H30 Z" fill="#fff" stroke="#9575CD" strokeWidth="3" />
        <path d="M30 60 H66 L74 72 H106 L114 60 H150" fill="none" stroke="#9575CD" strokeWidth="3" />
        <rect x="62" y="38" width="56" height="6" rx="3" fill="#D1C4E9" />
        <rect x="70" y="48" width="40" height="6" rx="3" fill="#D1C4E9" />
      </svg>
      {text && (
        <Typography component="figcaption" color="text.secondary" data-testid="no-data-caption">
          {text}
        </Typography>
      )}
      {children}
    </Box>
  );
};

export default NoData;
