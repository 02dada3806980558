import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider, createBrowserRouter } from 'react-router-dom';
import App from './App';
import { registerFonts } from './i18n/fonts';

// Browser history (not hash routes): the console answers at the specification's paths, e.g. /dashboard.
// A data router, so that react-admin's unsaved-changes guard (useBlocker) works in the later forms.
// No transitions (react-admin's own router turns them off too): a navigation wrapped in startTransition never
// commits while react-admin's logout keeps re-rendering the page (queryClient.clear), which loops on /sign-in.
registerFonts();

const router = createBrowserRouter([{ path: '*', element: <App /> }]);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <RouterProvider router={router} useTransitions={false} />
  </StrictMode>,
);
