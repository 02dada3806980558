import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { DEFAULT_LANGUAGE, SignerRoutes, en, loadCatalogue } from '@esign/contract';
import type { Catalogue, RecipientLanguage } from '@esign/contract';
import { BrowserRouter, matchPath } from 'react-router-dom';
import { prefetch, referencePath, signToken } from './api';
import App from './App';
import { ToastProvider } from './components';
import { I18nProvider, initialLanguage } from './i18n';
import './styles.css';
import './fonts.css';

// A signing link: its request is asked for now, while React renders the page that shows it (issue 23). Its document is
// already on its way: boot.ts opened it before this module ran.
const link = matchPath(SignerRoutes.esign, window.location.pathname);
if (link && signToken()) {
  const { orgId = '', refId = '', order = '' } = link.params;
  prefetch(referencePath(orgId, refId, order));
}

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

const render = (language: RecipientLanguage, catalogue: Catalogue) => {
  document.documentElement.lang = language;
  createRoot(root).render(
    <StrictMode>
      <I18nProvider initial={{ language, catalogue }}>
        <BrowserRouter>
          <ToastProvider>
            <App />
          </ToastProvider>
        </BrowserRouter>
      </I18nProvider>
    </StrictMode>,
  );
};

// The language the page opens in: English at once; another one's texts (a small chunk) first, beside the request,
// so the page never shows English before it (and English when the chunk cannot be had).
const language = initialLanguage();
loadCatalogue(language).then(
  (catalogue) => render(language, catalogue),
  () => render(DEFAULT_LANGUAGE, en),
);
