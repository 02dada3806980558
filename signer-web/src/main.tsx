import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { SignerRoutes } from '@esign/contract';
import { BrowserRouter, matchPath } from 'react-router-dom';
import { prefetch, referencePath } from './api';
import App from './App';
import { ToastProvider } from './components';
import './styles.css';

// A signing link: its request is asked for now, while React renders the page that shows it.
const link = matchPath(SignerRoutes.esign, window.location.pathname);
if (link) prefetch(referencePath(link.params.orgId ?? '', link.params.refId ?? '', link.params.order ?? ''));

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <BrowserRouter>
      <ToastProvider>
        <App />
      </ToastProvider>
    </BrowserRouter>
  </StrictMode>,
);
