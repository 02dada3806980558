import { CONSOLE_LANGUAGES, LANGUAGE_NAMES } from '@esign/contract';
import type { ConsoleLanguage } from '@esign/contract';
import TranslateIcon from '@mui/icons-material/Translate';
import { Button, Menu, MenuItem } from '@mui/material';
import { useId, useState } from 'react';
import { useLocaleState } from 'react-admin';
import { useText } from '../i18n/useText';

/**
 * The console's language, in the top bar (issue 22): English or Hindi, each named in its own script; the choice is
 * remembered in this browser (i18n/provider.ts).
 */
const LanguageSwitch = ({ color = 'inherit' }: { color?: 'inherit' | 'primary' }) => {
  const t = useText();
  const [locale, setLocale] = useLocaleState();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const menuId = useId();
  const current = (CONSOLE_LANGUAGES as readonly string[]).includes(locale) ? (locale as ConsoleLanguage) : 'en';
  return (
    <>
      <Button
        color={color}
        startIcon={<TranslateIcon />}
        aria-label={`${t('console.layout.chooseLanguage')}: ${LANGUAGE_NAMES[current]}`}
        aria-haspopup="menu"
        aria-expanded={anchor ? 'true' : undefined}
        aria-controls={anchor ? menuId : undefined}
        onClick={(event) => setAnchor(event.currentTarget)}
        data-testid="language-switch"
        sx={{ textTransform: 'none' }}
      >
        <span lang={current}>{LANGUAGE_NAMES[current]}</span>
      </Button>
      <Menu id={menuId} anchorEl={anchor} open={Boolean(anchor)} onClose={() => setAnchor(null)}>
        {CONSOLE_LANGUAGES.map((language) => (
          <MenuItem
            key={language}
            lang={language}
            selected={language === current}
            onClick={() => {
              setLocale(language);
              setAnchor(null);
            }}
          >
            {LANGUAGE_NAMES[language]}
          </MenuItem>
        ))}
      </Menu>
    </>
  );
};

export default LanguageSwitch;
